#pragma once
// The paper's experiments as one word each (`hnclip sweep --preset NAME`, the window's "New
// experiment…"): 3 seeds, controls included, on the built-in benchmark's preset recipe.
//   gamma-sweep        γ ∈ {0, 0.25, 0.5, 0.75, 1} at s = 100 fixed (Table 3 / A6)
//   gamma-scale        γ ∈ {0, 0.25, 0.5} × s ∈ {10, 20, 100} fixed: does any γ beat plain
//                      InfoNCE at its own best temperature?
//   gbar               recomputed vs frozen Ḡ at γ = 0.5 (Table A2)
//   sample-efficiency  γ = 0.5 on nested 5 / 20 / 50 / 100 % subsets (Fig. 6 / A9)
// Plain values: any thread.

#include <string>
#include <vector>

#include "experiment/experiment_spec.h"

namespace hnclip {

const std::vector<std::string>& experiment_preset_names();

// The preset's spec (name = the preset's name). Throws ConfigError naming an unknown preset.
ExperimentSpec experiment_preset(const std::string& name);

// The base configuration every preset starts from: the built-in fine-tuning recipe
// (train/builtin_recipe.h) at the learning rate chosen on the validation split (1e-3; at the
// README's 5e-5 R@1 moves by under a point), without gradient probes or Ḡ snapshots.
TrainConfig experiment_preset_recipe();

}  // namespace hnclip
