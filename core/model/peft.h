#pragma once
// Parameter-efficient fine-tuning of a ClipModel: LoRA / DoRA adapters (model/linear_adapter.h) on
// the four weight matrices of every transformer block of the chosen towers — attn.in_proj_weight
// (the packed q,k,v matrix [3W, W], adapted as one matrix), attn.out_proj.weight, mlp.c_fc.weight
// and mlp.c_proj.weight. Adapter parameters are named `<owner>.<matrix>_adapter.lora_A|lora_B|magnitude`
// (e.g. `visual.transformer.resblocks.0.attn.in_proj_adapter.lora_A`); no OpenAI name contains
// "_adapter.", so the two sets never collide and a merged model has exactly OpenAI's names again.
// Embeddings, conv1, LayerNorms, biases and projections are not adapted.
// Not thread-safe: call from the thread that owns the model, never during a forward pass.

#include <cstdint>
#include <optional>
#include <string>

#include <ATen/core/Tensor.h>
#include <nlohmann/json_fwd.hpp>
#include <torch/ordered_dict.h>

#include "model/clip_model.h"
#include "model/linear_adapter.h"

namespace hnclip {

struct AdapterSpec {
  AdapterKind kind = AdapterKind::Lora;
  int64_t rank = 8;
  double alpha = 16.0;            // update scale is alpha / rank
  std::string towers = "both";    // image | text | both
  bool operator==(const AdapterSpec& o) const {
    return kind == o.kind && rank == o.rank && alpha == o.alpha && towers == o.towers;
  }
  // Throws std::invalid_argument naming the first bad field.
  void validate() const;
};

std::string to_string(AdapterKind kind);                  // "lora" | "dora"
AdapterKind adapter_kind_from_string(const std::string&);  // throws std::invalid_argument
void to_json(nlohmann::json& j, const AdapterSpec& s);
void from_json(const nlohmann::json& j, AdapterSpec& s);

// Adds adapters as in `spec` (A drawn from a generator seeded with `seed`, B = 0: the model's
// outputs do not change) and freezes every base parameter — logit_scale included; a trainer that
// learns the scale re-enables it. Throws std::invalid_argument for a bad spec or when the model
// already has adapters.
void attach_adapters(ClipModel& model, const AdapterSpec& spec, uint64_t seed);

bool has_adapters(const ClipModel& model);
// What is attached (read from the modules themselves), or nullopt.
std::optional<AdapterSpec> adapter_spec(const ClipModel& model);
bool is_adapter_parameter(const std::string& name);

// Folds every adapter into its base weight (W ← W') and removes it, so the model has OpenAI's
// parameter set again and computes what the adapted model computed; all parameters are trainable
// again afterwards (a plain model's default).
void merge_adapters(ClipModel& model);
// Removes the adapters without folding them in (the base weights are what they were before
// attach_adapters); all parameters trainable again.
void remove_adapters(ClipModel& model);

// OpenAI's parameter set (names in named_parameters() order, adapters excluded) with the adapters
// folded into their weights, detached; the model is not changed. Weights without an adapter share
// storage with the model. The basis for exporting an adapted model.
torch::OrderedDict<std::string, torch::Tensor> merged_state_dict(const ClipModel& model);

}  // namespace hnclip
