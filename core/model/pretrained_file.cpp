#include "model/pretrained_file.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "model/clip_image_normalisation.h"
#include "model/clip_state_dict.h"
#include "model/hf_clip_layout.h"
#include "model/open_clip_layout.h"
#include "model/safetensors_file.h"

namespace hnclip {

namespace fs = std::filesystem;

namespace {
constexpr const char* kHfWeightFiles[] = {"model.safetensors", "pytorch_model.bin"};
constexpr const char* kOpenClipWeightFiles[] = {"open_clip_model.safetensors",
                                                "open_clip_pytorch_model.bin"};
constexpr const char* kShardIndexFiles[] = {"model.safetensors.index.json",
                                            "pytorch_model.bin.index.json"};
constexpr const char* kActivationFlag = "--activation";
constexpr const char* kHfPreprocessorFile = "preprocessor_config.json";
// A model trained with another image normalisation than the pipeline's would get wrong features
// with no error, so a config that names another is refused.
constexpr double kNormalisationTolerance = 1e-6;

// `obj[key]`, when present, must be OpenAI's mean (or std): refused naming `file` and the key.
void check_normalisation(const nlohmann::json& obj, const std::string& key, const double (&want)[3],
                         const std::string& file, const std::string& key_path) {
  if (!obj.is_object() || !obj.contains(key) || obj.at(key).is_null()) return;
  const auto& v = obj.at(key);
  bool same = v.is_array() && v.size() == 3;
  for (size_t i = 0; same && i < 3; ++i) {
    same = v[i].is_number() && std::abs(v[i].get<double>() - want[i]) <= kNormalisationTolerance;
  }
  if (!same) {
    throw StateDictError(file + ": key " + key_path + " is " + v.dump() +
                         ", not OpenAI CLIP's image normalisation, which is the only one the "
                         "workbench applies");
  }
}

struct WeightsRead {
  StateDict tensors;
  StateDictFileLayout layout;
  bool safetensors = false;
  std::map<std::string, std::string> metadata;
};

WeightsRead read_weights(const std::string& path) {
  WeightsRead r;
  r.safetensors = is_safetensors_file(path);
  r.tensors = r.safetensors ? read_safetensors_file(path, &r.metadata)
                            : read_state_dict_file(path, &r.layout);
  return r;
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StateDictError(path + ": cannot open the file");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw StateDictError(path + ": not JSON (" + std::string(e.what()) + ")");
  }
}

bool has_hf_names(const StateDict& sd) {
  return std::any_of(sd.begin(), sd.end(), [](const auto& kv) {
    return kv.first.rfind("text_model.", 0) == 0 || kv.first.rfind("vision_model.", 0) == 0;
  });
}

std::string first_existing(const fs::path& folder, const char* const* names, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (fs::is_regular_file(folder / names[i])) return (folder / names[i]).string();
  }
  return {};
}

// The activation when no config names it: --activation, else QuickGELU with a note; or refused
// when the file may hold either kind (`why_unknown` non-empty).
void decide_undeclared_activation(PretrainedFile& f, const std::string& activation,
                                  const std::string& why_unknown, const std::string& flag,
                                  bool describe_only) {
  if (!activation.empty()) {
    f.shape.activation = parse_activation(activation, kActivationFlag);
    f.activation_from = kActivationFlag;
    return;
  }
  if (!why_unknown.empty()) {
    if (describe_only) {
      f.activation_known = false;
      f.activation_from = "unknown: " + why_unknown + "; " + kActivationFlag + " says which";
      return;
    }
    throw StateDictError(flag + " " + f.path + ": " + why_unknown + ", and it may hold either " +
                         "QuickGELU (OpenAI) or exact GELU (LAION) weights under the same names: " +
                         "give " + kActivationFlag + " quick_gelu or " + kActivationFlag + " gelu");
  }
  f.shape.activation = MlpActivation::QuickGelu;
  f.activation_from = "assumed (nothing in the file records it)";
  f.notes.push_back(flag + " " + f.path + ": no activation recorded; QuickGELU assumed, as in the " +
                    "weights OpenAI and Long-CLIP released (" + kActivationFlag +
                    " gelu for open_clip's LAION models)");
}

void check_declared_activation(const PretrainedFile& f, const std::string& activation) {
  if (activation.empty()) return;
  const auto wanted = parse_activation(activation, kActivationFlag);
  if (wanted != f.shape.activation) {
    throw StateDictError(std::string(kActivationFlag) + " " + activation + " contradicts " +
                         f.activation_from + " (" + activation_name(f.shape.activation) + ") of " +
                         f.path);
  }
}

// `given`: the weight file the user named, already read (else the folder's is found and read).
void read_hf(PretrainedFile& f, const fs::path& folder, const std::string& activation,
             WeightsRead* given = nullptr) {
  f.format = PretrainedFormat::HuggingFaceClip;
  f.config_path = (folder / kHfConfigFile).string();
  if (const auto shard = first_existing(folder, kShardIndexFiles, std::size(kShardIndexFiles));
      !shard.empty()) {
    throw StateDictError(shard + ": sharded weights are not supported (save with one weight file)");
  }
  if (given == nullptr) f.weights_path = first_existing(folder, kHfWeightFiles, std::size(kHfWeightFiles));
  if (f.weights_path.empty()) {
    throw StateDictError(folder.string() + ": a Hugging Face folder (config.json) without " +
                         "model.safetensors or pytorch_model.bin");
  }
  const auto hf = hf_clip_config_from_json(read_json_file(f.config_path), f.config_path);
  for (const auto& n : hf.notes) f.notes.push_back(f.config_path + ": " + n);
  WeightsRead own;
  if (given == nullptr) own = read_weights(f.weights_path);
  WeightsRead& read = given ? *given : own;
  if (!has_hf_names(read.tensors)) {
    throw StateDictError(f.weights_path + ": no text_model.* / vision_model.* tensors: not " +
                         "Hugging Face CLIPModel weights");
  }
  f.weights = clip_state_dict_from_hf(std::move(read.tensors), f.weights_path);
  check_representable_clip(f.weights, f.weights_path);
  check_config_fits_weights(hf.shape, f.weights, f.weights_path, f.config_path);
  f.shape = hf.shape;
  f.activation_from = f.config_path + " text_config.hidden_act";
  check_declared_activation(f, activation);
  if (fs::is_regular_file(folder / kHfPreprocessorFile)) {
    const auto path = (folder / kHfPreprocessorFile).string();
    const auto pre = read_json_file(path);
    check_normalisation(pre, "image_mean", kClipImageMean, path, "image_mean");
    check_normalisation(pre, "image_std", kClipImageStd, path, "image_std");
  }
  if (fs::is_regular_file(folder / kWorkbenchTokenizerFile)) {
    f.workbench_tokenizer = read_json_file((folder / kWorkbenchTokenizerFile).string());
  } else if (fs::is_regular_file(folder / "vocab.json") && fs::is_regular_file(folder / "merges.txt")) {
    f.hf_vocab_json = (folder / "vocab.json").string();
    f.hf_merges_txt = (folder / "merges.txt").string();
  }
}

void read_open_clip_hub(PretrainedFile& f, const fs::path& folder, const std::string& weights,
                        const std::string& activation) {
  f.format = PretrainedFormat::OpenClipHub;
  f.config_path = (folder / kOpenClipConfigFile).string();
  f.weights_path = weights;
  if (f.weights_path.empty()) {
    throw StateDictError(folder.string() + ": an open_clip folder (open_clip_config.json) without " +
                         "open_clip_model.safetensors or open_clip_pytorch_model.bin");
  }
  const auto config = read_json_file(f.config_path);
  if (config.contains("preprocess_cfg")) {
    const auto& pre = config.at("preprocess_cfg");
    check_normalisation(pre, "mean", kClipImageMean, f.config_path, "preprocess_cfg.mean");
    check_normalisation(pre, "std", kClipImageStd, f.config_path, "preprocess_cfg.std");
  }
  auto read = read_weights(f.weights_path);
  f.weights = strip_open_clip_prefixes(std::move(read.tensors));
  f.shape = open_clip_shape(config, f.weights, f.config_path);
  f.activation_from = f.config_path + " model_cfg.quick_gelu";
  check_declared_activation(f, activation);
}

PretrainedFile read_any(const std::string& path, const std::string& activation,
                        const std::string& flag, bool describe_only) {
  PretrainedFile f;
  f.path = path;
  const fs::path p(path);
  if (!fs::exists(p)) throw StateDictError(flag + " " + path + ": no such file or folder");
  if (fs::is_directory(p)) {
    if (fs::is_regular_file(p / kHfConfigFile)) {
      read_hf(f, p, activation);
    } else if (fs::is_regular_file(p / kOpenClipConfigFile)) {
      read_open_clip_hub(f, p, first_existing(p, kOpenClipWeightFiles, std::size(kOpenClipWeightFiles)),
                         activation);
    } else {
      throw StateDictError(flag + " " + path + ": a folder with neither config.json (Hugging Face " +
                           "CLIPModel) nor open_clip_config.json (open_clip)");
    }
    return f;
  }
  const fs::path folder = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const std::string name = p.filename().string();
  const bool open_clip_name = name.rfind("open_clip_", 0) == 0;
  if (open_clip_name && fs::is_regular_file(folder / kOpenClipConfigFile)) {
    read_open_clip_hub(f, folder, path, activation);
    return f;
  }
  auto read = read_weights(path);
  f.weights_path = path;
  if (has_hf_names(read.tensors)) {
    if (fs::is_regular_file(folder / kHfConfigFile)) {
      read_hf(f, folder, activation, &read);
      return f;
    }
    throw StateDictError(flag + " " + path + ": Hugging Face CLIPModel weights need the " +
                         "config.json they came with beside them (give the folder)");
  }
  const bool training = read.layout.nested_under == "state_dict" &&
                        std::any_of(read.layout.top_level_keys.begin(), read.layout.top_level_keys.end(),
                                    [](const std::string& k) { return k == "optimizer" || k == "epoch"; });
  f.format = read.safetensors            ? PretrainedFormat::Safetensors
             : read.layout.torchscript ? PretrainedFormat::TorchScript
             : training                ? PretrainedFormat::TrainingCheckpoint
                                       : PretrainedFormat::StateDict;
  f.weights = strip_open_clip_prefixes(std::move(read.tensors));
  check_representable_clip(f.weights, path);
  f.shape = infer_clip_config(f.weights, path);
  if (const auto it = read.metadata.find(kWorkbenchModelKey); it != read.metadata.end()) {
    // The workbench's own export: its model config, activation and heads included.
    ClipConfig declared;
    try {
      from_json(nlohmann::json::parse(it->second), declared);
    } catch (const std::exception& e) {
      throw StateDictError(path + ": __metadata__ key " + kWorkbenchModelKey + ": " + e.what());
    }
    check_config_fits_weights(declared, f.weights, path, std::string("__metadata__ ") + kWorkbenchModelKey);
    f.shape = declared;
    if (const auto t = read.metadata.find(kWorkbenchTokenizerKey); t != read.metadata.end()) {
      f.workbench_tokenizer = nlohmann::json::parse(t->second, nullptr, false);
      if (!f.workbench_tokenizer.is_object())
        throw StateDictError(path + ": __metadata__ key " + kWorkbenchTokenizerKey +
                             ": not a JSON object");
    }
    f.activation_from = std::string("__metadata__ ") + kWorkbenchModelKey;
    check_declared_activation(f, activation);
    return f;
  }
  std::string why_unknown;
  if (training) why_unknown = "a training checkpoint records no architecture";
  if (open_clip_name) why_unknown = "an open_clip weight file without its open_clip_config.json";
  decide_undeclared_activation(f, activation, why_unknown, flag, describe_only);
  return f;
}
}  // namespace

std::string pretrained_format_name(PretrainedFormat f) {
  switch (f) {
    case PretrainedFormat::TorchScript: return "torchscript";
    case PretrainedFormat::StateDict: return "state-dict";
    case PretrainedFormat::TrainingCheckpoint: return "training-checkpoint";
    case PretrainedFormat::Safetensors: return "safetensors";
    case PretrainedFormat::HuggingFaceClip: return "hf-clip";
    case PretrainedFormat::OpenClipHub: return "open_clip";
  }
  return "unknown";
}

PretrainedFile read_pretrained_file(const std::string& path, const std::string& activation,
                                    const std::string& flag) {
  return read_any(path, activation, flag, false);
}

PretrainedFile inspect_pretrained_file(const std::string& path, const std::string& activation,
                                       const std::string& flag) {
  return read_any(path, activation, flag, true);
}

}  // namespace hnclip
