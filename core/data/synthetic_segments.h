#pragma once
// GOAL's segments for the built-in benchmark, exact: the benchmark knows where it drew every
// object and which sentence of the caption describes it (data/synthetic_caption.h: the summary
// is sentence 0, object i of the scene — in reading order — sentence 1 + i, the background the
// last; a pretrain caption describes a subset, without the summary). A box is the bounding box of
// every pixel the object changes inside its own grid cell: the scene with only that object
// rendered against the empty scene (anti-aliasing tints at most a pixel column of the next cell,
// which is left out so that GOAL's patch term does not take a neighbouring patch for it).
// Generation writes them as the sidecar segments.json in GOAL's layout (data/goal_segments.h), so
// the built-in benchmark is read like a user's data.
// Threading: free functions without state.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/goal_segments.h"
#include "data/synthetic_renderer.h"
#include "data/synthetic_scene.h"

namespace hnclip {

// One segment per object of the scene that `caption` describes, in the scene's order; caption 0,
// score 0, no crop file.
std::vector<ImageSegment> synthetic_segments(const Scene& scene, const SyntheticRenderer& renderer,
                                             const std::string& caption);

// The sidecar entry of one image: its path (relative to the benchmark folder) and segments, each
// sentence given by its text as GOAL's files do (`caption` is the image's caption).
nlohmann::ordered_json synthetic_segment_entry(const Scene& scene, const SyntheticRenderer& renderer,
                                               const std::string& image, const std::string& caption);

}  // namespace hnclip
