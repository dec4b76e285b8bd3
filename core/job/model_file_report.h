#pragma once
// ModelFileReport: what a model file or folder is, for `hnclip inspect`: its kind (recognised by
// content, as train --init and encode --checkpoint recognise it), architecture, parameter count,
// dtypes and activation (and where the activation comes from), without building a model.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"

namespace hnclip {

struct ModelFileReport {
  std::string path;
  std::string kind;          // "workbench" or pretrained_format_name()
  std::string weights_path;  // the file holding the tensors
  std::string config_path;   // "" when the kind has none
  ClipConfig shape;
  bool activation_known = true;
  std::string activation_from;
  int64_t tensors = 0;
  int64_t parameters = 0;
  std::map<std::string, int64_t> dtypes;  // dtype name -> number of tensors
  std::string tokenizer;                  // what text would be tokenized with
  std::vector<std::string> notes;
};

// Throws (CheckpointError / StateDictError / ConfigError) naming the file and the key for
// anything the workbench could not load. `activation` is --activation ("" = none).
ModelFileReport inspect_model_file(const std::string& path, const std::string& activation);

nlohmann::json to_json(const ModelFileReport& r);
// Aligned "key: value" lines for a terminal.
std::string to_text(const ModelFileReport& r);

}  // namespace hnclip
