#pragma once
// One named term of a training step's loss, stored per step (schema v9, step_loss_terms) so the
// Train tab can plot what a framework's loss is made of. A step's loss is Σ weight · value over
// its terms. Steps whose loss is the global term alone (plain HN-CLIP) record no terms.
// No LibTorch here: the store, the CLI and the GUI read it.

#include <string>
#include <vector>

namespace hnclip {

struct LossTerm {
  std::string name;   // one of loss_term_names()
  double weight = 1;  // what the term is multiplied by in the loss
  double value = 0;   // the term itself, before its weight (NaN: not finite)
};

// Every term name a step can record, in the order charts list them: "global" is the term the HN
// margins replace (plain HN-CLIP's loss, Long-CLIP's long-caption branch); "token" the token-level
// term (--token-weight); "short" Long-CLIP's short-caption branch; "augmented" DeBias-CLIP's
// augmented-caption branch; "fine" FineLIP's fine-grained triplet loss; "crop", "patch", "span"
// GOAL's crop-image ↔ sentence CLIP term, box-tokens ↔ crop and sentence-span ↔ sentence terms;
// "structure", "consistency", "local" StructXLIP's edge-map ↔ filtered-caption CLIP term, RGB ↔
// edge-map cosine term and edge-segment ↔ caption-chunk term.
// (Inline: the store and the widgets see train/ through headers only.)
inline const std::vector<const char*>& loss_term_names() {
  static const std::vector<const char*> kNames = {
      "global", "token", "short", "augmented", "fine",        "crop",
      "patch",  "span",  "structure",          "consistency", "local"};
  return kNames;
}

}  // namespace hnclip
