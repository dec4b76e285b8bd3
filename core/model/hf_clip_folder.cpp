#include "model/hf_clip_folder.h"

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "model/clip_image_normalisation.h"
#include "model/hf_clip_layout.h"
#include "model/pretrained_file.h"
#include "model/safetensors_file.h"
#include "text/clip_bpe_tokenizer.h"
#include "text/hf_clip_tokenizer_files.h"
#include "text/tokenizer.h"

namespace hnclip {

namespace fs = std::filesystem;

namespace {
void write_json(const fs::path& path, const nlohmann::json& j) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << j.dump(2) << "\n";
  out.close();
  if (!out) throw StateDictError(path.string() + ": cannot write the file");
}
}  // namespace

void write_hf_clip_folder(const std::string& folder, const ClipConfig& shape,
                          const StateDict& weights, const nlohmann::json& tokenizer_json) {
  if (shape.frozen_positions > 0) {
    throw StateDictError(folder + ": a Long-CLIP model (its first " +
                         std::to_string(shape.frozen_positions) +
                         " text positions frozen, the rest in positional_embedding_res) has no "
                         "Hugging Face CLIPModel equivalent; export it as a state dict instead");
  }
  const fs::path target(folder);
  std::error_code ec;
  if (fs::exists(target) && !(fs::is_directory(target) && fs::is_empty(target, ec))) {
    throw StateDictError(folder + ": exists and is not an empty folder (nothing was written)");
  }
  const auto tokenizer = tokenizer_from_json(tokenizer_json);
  const auto hf_weights = hf_state_dict_from_clip(weights);

  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const fs::path staging =
      parent / ("." + target.filename().string() + ".partial-" + std::to_string(std::random_device{}()));
  fs::create_directories(staging);
  try {
    write_json(staging / kHfConfigFile,
               hf_clip_config_json(shape, tokenizer->start_id(), tokenizer->end_id()));
    write_safetensors_file((staging / kHfWeightsFileWritten).string(), hf_weights, {{"format", "pt"}});
    // What CLIPProcessor needs for images: the normalisation and size the workbench uses.
    write_json(staging / "preprocessor_config.json",
               {{"image_processor_type", "CLIPImageProcessor"},
                {"do_resize", true},
                {"size", {{"shortest_edge", shape.image_size}}},
                {"resample", 3},
                {"do_center_crop", true},
                {"crop_size", {{"height", shape.image_size}, {"width", shape.image_size}}},
                {"do_normalize", true},
                {"image_mean", kClipImageMean},
                {"image_std", kClipImageStd}});
    if (tokenizer->kind() == "clip-bpe") {
      write_hf_clip_tokenizer_files(staging.string(),
                                    *ClipBpeTokenizer::from_json(tokenizer_json));
    } else {
      write_json(staging / kWorkbenchTokenizerFile, tokenizer_json);
    }
    if (fs::exists(target)) fs::remove(target);  // the empty folder checked above
    fs::rename(staging, target);
  } catch (const std::exception& e) {
    fs::remove_all(staging, ec);
    throw StateDictError(folder + ": " + e.what());
  }
}

}  // namespace hnclip
