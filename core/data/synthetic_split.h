#pragma once
// The content plan of the built-in benchmark: which scenes, captions and families each split of
// each size holds, before anything is rendered or written. Pure and deterministic in (size, seed,
// split), so tests can regenerate the scenes behind a cached benchmark and check them.
//   pretrain: independent scenes of 1-4 objects; half with the full caption, half with a shorter
//             caption of a random proper subset of the objects; no families.
//   train:    near-twin families of 2-4 scenes of 3-4 objects, full captions.
//   val:      like test (as many families, of 3-4 scenes of 3-4 objects), from a stream of its
//             own, for choosing an epoch without the test split: a family that has a caption of
//             the test split (same size and seed) is skipped for the next stream index, so val and
//             test share no caption.
//   test:     near-twin families of 3-4 scenes of 3-4 objects, full captions.
//   shifted:  like test (as many families), from a stream of its own, rendered under a shifted
//             light (synthetic_renderer.h, shift_lighting): a test set for cross-domain transfer
//             that needs no download — the same words, pictures no split trains on.
// Every item draws from its own random stream (family streams for train/val/test), so items do
// not depend on how many came before, and a larger size's prefix is unaffected by its length
// (val's, up to the families it skips). Adding val, then shifted, left train and test as they
// were.
// Threading: free functions without state.

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "data/synthetic_scene.h"

namespace hnclip {

struct SyntheticSizeSpec {
  std::string name;            // "small", "default" or "large"
  int64_t pretrain_images = 0;
  int64_t train_images = 0;    // in families of 2-4
  int64_t test_families = 0;   // of 3-4 images each; val has as many
};

// Throws std::invalid_argument naming an unknown size.
SyntheticSizeSpec synthetic_size_spec(const std::string& size);

// The split names, in manifest order: pretrain, train, val, test, shifted.
const std::vector<std::string>& synthetic_split_names();

struct SyntheticItem {
  Scene scene;
  std::string caption;
  std::string group;  // family id "f000123" (its family's stream index); empty for pretrain
};

// The split rendered under the shifted light.
constexpr const char* kSyntheticShiftedSplit = "shifted";

// Throws std::invalid_argument naming an unknown split.
std::vector<SyntheticItem> synthetic_split_items(const SyntheticSizeSpec& spec, uint64_t seed,
                                                 const std::string& split);

// The val split's families, skipping every family that has a caption in `taken` (the "val" split
// passes the test split's captions); spec.test_families of them all the same.
std::vector<SyntheticItem> synthetic_val_items(const SyntheticSizeSpec& spec, uint64_t seed,
                                               const std::unordered_set<std::string>& taken);

}  // namespace hnclip
