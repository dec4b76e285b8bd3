#pragma once
// The weights of a ClipModel as a StateDict: what `hnclip export` writes. One place for the
// "model → tensors" step, so that transformations of exported weights (e.g. merging LoRA adapters
// into their base matrices) hook in here and apply to every export path.

#include "model/clip_model.h"
#include "model/state_dict_file.h"

namespace hnclip {

// named_parameters() under OpenAI CLIP's names, in registration order, as detached fp32 CPU
// copies (independent of the model: later training does not change them). An adapted model's
// LoRA/DoRA adapters are merged into the copies (model/peft.h merged_state_dict), never listed.
StateDict model_state_dict(ClipModel& model);

}  // namespace hnclip
