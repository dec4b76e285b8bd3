#include "model/clip_state_dict.h"

#include <torch/torch.h>

#include <cmath>
#include <map>
#include <set>

#include "numeric/non_finite_values.h"

namespace hnclip {

namespace {
constexpr int64_t kHeadWidth = 64;            // OpenAI: heads = width // 64 in both towers
constexpr int64_t kClipContextLength = 77;    // what Long-CLIP stretches from
constexpr int64_t kStretchFactor = 4;         // each old position becomes four
// Integer entries OpenAI's TorchScript checkpoints carry besides the weights (build_model drops them).
const std::set<std::string> kMetadataKeys = {"input_resolution", "context_length", "vocab_size"};

std::map<std::string, torch::Tensor> by_name(const StateDict& sd) {
  std::map<std::string, torch::Tensor> m;
  for (const auto& [k, v] : sd) m[k] = v;
  return m;
}

const torch::Tensor& need(const std::map<std::string, torch::Tensor>& m, const std::string& key,
                          int64_t dims, const std::string& source) {
  const auto it = m.find(key);
  if (it == m.end()) {
    throw StateDictError(source + ": not a CLIP ViT state dict (no '" + key + "')");
  }
  if (it->second.dim() != dims) {
    throw StateDictError(source + ": '" + key + "' has " + std::to_string(it->second.dim()) +
                         " dimensions, expected " + std::to_string(dims));
  }
  return it->second;
}

// Distinct N of keys "<prefix>N.…", as OpenAI counts layers.
int64_t count_blocks(const std::map<std::string, torch::Tensor>& m, const std::string& prefix) {
  std::set<std::string> ids;
  for (const auto& [k, v] : m) {
    if (k.compare(0, prefix.size(), prefix) != 0) continue;
    ids.insert(k.substr(prefix.size(), k.find('.', prefix.size()) - prefix.size()));
  }
  return static_cast<int64_t>(ids.size());
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

// Where each entry of `sd` goes: (the model's parameter, the entry's index in `sd`). Nothing is
// copied unless everything fits, so a bad file changes nothing; otherwise throws listing every
// missing key, unexpected key and shape mismatch.
std::vector<std::pair<torch::Tensor, size_t>> plan_copies(ClipModel& model, const StateDict& sd,
                                                          const std::string& source) {
  std::map<std::string, torch::Tensor> params;
  for (const auto& p : model->named_parameters()) params[p.key()] = p.value();
  std::vector<std::string> missing, unexpected, mismatched;
  std::set<std::string> seen;
  std::vector<std::pair<torch::Tensor, size_t>> copies;
  for (size_t i = 0; i < sd.size(); ++i) {
    const auto& [key, t] = sd[i];
    if (kMetadataKeys.count(key)) continue;
    seen.insert(key);
    const auto it = params.find(key);
    if (it == params.end()) {
      unexpected.push_back(key);
    } else if (t.sizes() != it->second.sizes()) {
      mismatched.push_back(key + " (file " + c10::str(t.sizes()) + ", model " +
                           c10::str(it->second.sizes()) + ")");
    } else if (!t.is_floating_point()) {
      mismatched.push_back(key + " (file dtype " + std::string(c10::toString(t.scalar_type())) +
                           ", not floating point)");
    } else {
      copies.emplace_back(it->second, i);
    }
  }
  for (const auto& [key, p] : params) {
    if (!seen.count(key)) missing.push_back(key);
  }
  if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
    std::string msg = source + " does not fit the CLIP model:";
    if (!missing.empty()) msg += " missing keys: " + joined(missing) + ";";
    if (!unexpected.empty()) msg += " unexpected keys: " + joined(unexpected) + ";";
    if (!mismatched.empty()) msg += " shape mismatches: " + joined(mismatched) + ";";
    throw StateDictError(msg);
  }
  return copies;
}

// fp16/bf16 checkpoints (OpenAI's TorchScript files are fp16) become the model's fp32 here.
void refuse_non_finite(const std::pair<std::string, torch::Tensor>& entry,
                       const std::string& source) {
  if (const auto bad = find_non_finite(entry.second)) {
    throw NonFiniteError(source + ": tensor " + entry.first + " holds " + describe(*bad) +
                         "; refusing non-finite weights (every score computed from them would be "
                         "meaningless)");
  }
}

void copy_into(const torch::Tensor& dst, const torch::Tensor& src) {
  dst.copy_(src.to(dst.device(), dst.scalar_type()));
}
}  // namespace

ClipConfig infer_clip_config(const StateDict& sd, const std::string& source) {
  const auto m = by_name(sd);
  // OpenAI's ModifiedResNet towers also have a visual.conv1 (their stem), so look for its stages.
  for (const auto& [k, v] : m) {
    if (k.rfind("visual.layer1.", 0) == 0) {
      throw StateDictError(source + ": ResNet CLIP not supported (only ViT image towers)");
    }
  }
  // Handles, not references: g++ 14's -Wdangling-reference takes the key's temporary string for
  // what the reference points into (it points into m).
  const torch::Tensor conv1 = need(m, "visual.conv1.weight", 4, source);
  const torch::Tensor vpos = need(m, "visual.positional_embedding", 2, source);
  const torch::Tensor tpos = need(m, "positional_embedding", 2, source);
  ClipConfig c;
  c.vision_width = conv1.size(0);
  c.vision_layers = count_blocks(m, "visual.transformer.resblocks.");
  c.patch_size = conv1.size(-1);
  const auto grid = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(vpos.size(0) - 1))));
  c.image_size = c.patch_size * grid;
  c.vision_heads = c.vision_width / kHeadWidth;
  c.embed_dim = need(m, "text_projection", 2, source).size(1);
  c.context_length = tpos.size(0);
  c.vocab_size = need(m, "token_embedding.weight", 2, source).size(0);
  c.text_width = need(m, "ln_final.weight", 1, source).size(0);
  c.text_heads = c.text_width / kHeadWidth;
  c.text_layers = count_blocks(m, "transformer.resblocks.");
  if (m.count("positional_embedding_res")) c.frozen_positions = kLongClipFrozenPositions;
  if (grid * grid + 1 != vpos.size(0)) {
    throw StateDictError(source + ": visual.positional_embedding has " +
                         std::to_string(vpos.size(0)) + " rows, not 1 + a square number of patches");
  }
  try {
    c.validate();
  } catch (const std::invalid_argument& e) {
    throw StateDictError(source + ": inferred shape is unusable: " + e.what());
  }
  return c;
}

void check_config_fits_weights(const ClipConfig& declared, const StateDict& sd,
                               const std::string& source, const std::string& declared_by) {
  ClipConfig weights = infer_clip_config(sd, source);
  weights.vision_heads = declared.vision_heads;
  weights.text_heads = declared.text_heads;
  weights.activation = declared.activation;
  const auto diff = describe_differences(declared, weights);
  if (!diff.empty()) {
    throw StateDictError(source + ": " + declared_by + " contradicts the weights: " + diff +
                         " (" + declared_by + " vs weights)");
  }
}

void load_clip_state_dict(ClipModel& model, const StateDict& sd, const std::string& source) {
  const auto copies = plan_copies(model, sd, source);
  for (const auto& [dst, i] : copies) refuse_non_finite(sd[i], source);
  torch::NoGradGuard no_grad;
  for (const auto& [dst, i] : copies) copy_into(dst, sd[i].second);
}

void load_clip_state_dict(ClipModel& model, StateDict&& sd, const std::string& source) {
  const auto copies = plan_copies(model, sd, source);
  torch::NoGradGuard no_grad;
  for (const auto& [dst, i] : copies) {
    // Checked as it is copied, not in a pass before: a first pass would fault in every page of a
    // mapped file at once and double the peak this overload exists to avoid.
    refuse_non_finite(sd[i], source);
    copy_into(dst, sd[i].second);
    // Dropping the reference as soon as it is copied lets a memory-mapped file give its pages back
    // (model/safetensors_file.h), so the peak is the model plus one tensor, not model plus file.
    sd[i].second.reset();
  }
}

torch::Tensor long_clip_stretch_positions(const torch::Tensor& p77) {
  TORCH_CHECK(p77.dim() == 2 && p77.size(0) == kClipContextLength,
              "long_clip_stretch_positions: expected [77, W], got ", p77.sizes());
  const int64_t keep = kLongClipFrozenPositions, n = kClipContextLength, k = kStretchFactor;
  const auto p = p77.to(torch::kFloat);
  const auto cur = p.slice(0, keep, n - 1);      // P[i], i = 20..75
  const auto next = p.slice(0, keep + 1, n);     // P[i+1]
  std::vector<torch::Tensor> steps;
  for (int64_t s = 0; s < k; ++s) {
    // Same operation order as Long-CLIP's load_from_clip: a*P[i]/4 + b*P[i+1]/4.
    steps.push_back(static_cast<double>(k - s) * cur / static_cast<double>(k) +
                    static_cast<double>(s) * next / static_cast<double>(k));
  }
  // [56, 4, W] -> [224, W]: old row i becomes rows 20 + 4(i-20) .. +3.
  const auto middle = torch::stack(steps, 1).reshape({-1, p.size(1)});
  const auto last = p[n - 1], step = (p[n - 1] - p[n - 2]);
  std::vector<torch::Tensor> tail;
  for (int64_t s = 0; s < k; ++s) tail.push_back(last + static_cast<double>(s) * step / static_cast<double>(k));
  return torch::cat({p.slice(0, 0, keep), middle, torch::stack(tail)}).to(p77.scalar_type());
}

StateDict long_clip_from_clip_state_dict(const StateDict& sd, const std::string& source) {
  StateDict out;
  bool found = false;
  for (const auto& [key, t] : sd) {
    if (key == "positional_embedding_res") {
      throw StateDictError(source + ": already a Long-CLIP state dict (has positional_embedding_res)");
    }
    if (key != "positional_embedding") {
      out.emplace_back(key, t);
      continue;
    }
    if (t.dim() != 2 || t.size(0) != kClipContextLength) {
      throw StateDictError(source + ": positional_embedding is " + c10::str(t.sizes()) +
                           ", Long-CLIP stretches a 77-row table");
    }
    const auto stretched = long_clip_stretch_positions(t);
    out.emplace_back(key, stretched);
    out.emplace_back("positional_embedding_res", stretched.clone());
    found = true;
  }
  if (!found) throw StateDictError(source + ": not a CLIP state dict (no 'positional_embedding')");
  return out;
}

ClipModel load_clip_model_file(const std::string& path, bool stretch_to_long_clip) {
  StateDict sd = read_state_dict_file(path);
  if (stretch_to_long_clip) sd = long_clip_from_clip_state_dict(sd, path);
  ClipModel model(infer_clip_config(sd, path));
  load_clip_state_dict(model, std::move(sd), path);
  return model;
}

}  // namespace hnclip
