#include "job/model_file_report.h"

#include <torch/torch.h>

#include <filesystem>
#include <sstream>

#include "job/model_source.h"
#include "model/pretrained_file.h"
#include "model/state_dict_file.h"
#include "train/checkpoint.h"

namespace hnclip {

namespace {
void count(ModelFileReport& r, const StateDict& sd) {
  r.tensors = static_cast<int64_t>(sd.size());
  for (const auto& [name, t] : sd) {
    r.parameters += t.numel();
    ++r.dtypes[std::string(c10::toString(t.scalar_type()))];
  }
}

std::string describe_tokenizer(const nlohmann::json& t) {
  if (t.is_null()) return "none recorded";
  const std::string kind = t.value("kind", std::string("?"));
  if (kind == "clip-bpe") return "CLIP BPE, " + t.value("vocab_path", std::string("?"));
  return kind + " (" + std::to_string(t.value("context_length", 0)) + " positions)";
}
}  // namespace

ModelFileReport inspect_model_file(const std::string& path, const std::string& activation) {
  ModelFileReport r;
  r.path = path;
  if (is_workbench_model_file(path)) {
    // A workbench checkpoint's header says everything; its tensors are counted by name.
    const auto meta = read_checkpoint_meta(path);
    r.kind = "workbench";
    r.weights_path = path;
    r.shape = meta.model;
    r.activation_from = "the checkpoint's model config";
    r.tokenizer = describe_tokenizer(meta.tokenizer);
    count(r, read_state_dict_file(path));
    if (!activation.empty()) r.notes.push_back("--activation is ignored: the checkpoint records it");
    return r;
  }
  auto file = inspect_pretrained_file(path, activation, "inspect");
  r.kind = pretrained_format_name(file.format);
  r.weights_path = file.weights_path;
  r.config_path = file.config_path;
  r.shape = file.shape;
  r.activation_known = file.activation_known;
  r.activation_from = file.activation_from;
  r.notes = file.notes;
  count(r, file.weights);
  if (!file.workbench_tokenizer.is_null()) {
    r.tokenizer = describe_tokenizer(file.workbench_tokenizer) +
                  (file.format == PretrainedFormat::Safetensors
                       ? std::string(" (__metadata__ ") + kWorkbenchTokenizerKey + ")"
                       : std::string(" (") + kWorkbenchTokenizerFile + ")");
  } else if (!file.hf_vocab_json.empty()) {
    r.tokenizer = "vocab.json + merges.txt (checked against CLIP's BPE when loaded)";
  } else {
    r.tokenizer = "CLIP BPE (the shipped vocabulary unless --vocab)";
  }
  return r;
}

nlohmann::json to_json(const ModelFileReport& r) {
  return {{"path", r.path},
          {"kind", r.kind},
          {"weights", r.weights_path},
          {"config", r.config_path.empty() ? nlohmann::json() : nlohmann::json(r.config_path)},
          {"model", r.shape},
          {"activation", r.activation_known ? nlohmann::json(activation_name(r.shape.activation))
                                            : nlohmann::json()},
          {"activation_from", r.activation_from},
          {"tensors", r.tensors},
          {"parameters", r.parameters},
          {"dtypes", r.dtypes},
          {"tokenizer", r.tokenizer},
          {"notes", r.notes}};
}

std::string to_text(const ModelFileReport& r) {
  std::ostringstream out;
  const auto& c = r.shape;
  out << "path:        " << r.path << "\n"
      << "kind:        " << r.kind << "\n"
      << "weights:     " << r.weights_path << "\n";
  if (!r.config_path.empty()) out << "config:      " << r.config_path << "\n";
  out << "image tower: ViT " << c.vision_layers << " layers, width " << c.vision_width << ", "
      << c.vision_heads << " heads, patch " << c.patch_size << ", image " << c.image_size << "\n"
      << "text tower:  " << c.text_layers << " layers, width " << c.text_width << ", "
      << c.text_heads << " heads, " << c.context_length << " positions, vocabulary "
      << c.vocab_size << (c.frozen_positions > 0 ? ", Long-CLIP (first " +
                                                       std::to_string(c.frozen_positions) +
                                                       " positions frozen)"
                                                 : std::string())
      << "\n"
      << "embedding:   " << c.embed_dim << "\n"
      << "activation:  "
      << (r.activation_known ? activation_name(c.activation) + " (" + r.activation_from + ")"
                             : r.activation_from)
      << "\n"
      << "parameters:  " << r.parameters << " in " << r.tensors << " tensors (";
  bool first = true;
  for (const auto& [dtype, n] : r.dtypes) {
    out << (first ? "" : ", ") << dtype << " " << n;
    first = false;
  }
  out << ")\n"
      << "tokenizer:   " << r.tokenizer << "\n";
  for (const auto& n : r.notes) out << "note:        " << n << "\n";
  return out.str();
}

}  // namespace hnclip
