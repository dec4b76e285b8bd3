#pragma once
// The built-in benchmark's fine-tuning recipe, the one the README measures: start from the
// committed pretrained tiny checkpoint, s = 100 fixed, γ = 0.5 with recomputed Ḡ, AdamW at
// 5e-5 for 10 epochs. The window's form opens on it, and `hnclip train` on the built-in
// benchmark starts from the same checkpoint unless told `--init random` (or a --model preset).
// A fresh install's first run is then a fine-tuning that means something, not minutes of a
// random tiny model under plain InfoNCE.

#include <string>

#include "train/train_config.h"

namespace hnclip {

constexpr const char* kPretrainedInit = "pretrained";  // --init word: the committed checkpoint
constexpr const char* kRandomInit = "random";          // --init word: from scratch ("" stored)

TrainConfig builtin_finetune_recipe();

// The starting checkpoint a `train` on `config.benchmark` gets when neither --init nor --model
// was given: "pretrained" on the built-in benchmark, "" (random) elsewhere, where the committed
// checkpoint's word vocabulary does not fit.
std::string default_init_for(const TrainConfig& config);

// Whether JSON config keys name a starting point of their own ("init" or "model").
bool names_a_start(const nlohmann::json& config);

// The same rule for a config given as JSON keys (an experiment's base, from `hnclip sweep
// --config` or the window): keys that name neither "init" nor "model" get default_init_for their
// benchmark, and "init": "random" becomes "" (from scratch, as stored). Returns the init it filled
// in, "" when it filled none, so the caller can say so.
std::string fill_default_init(nlohmann::json& config);

}  // namespace hnclip
