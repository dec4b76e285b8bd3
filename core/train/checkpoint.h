#pragma once
// The workbench's own checkpoint: model weights, optionally the optimiser state, and a JSON
// header (model shape, tokenizer, epoch, step, run config) so a checkpoint alone rebuilds the
// model and its tokenizer. Written atomically (temporary file + rename): a crash mid-write never
// leaves a truncated checkpoint under the final name.

#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/clip_model.h"

namespace torch::optim {
class Optimizer;
}

namespace hnclip {

// Unreadable file, or weights that do not fit the model; the message names the file and lists
// missing keys, unexpected keys and shape mismatches by name.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CheckpointMeta {
  ClipConfig model;
  nlohmann::json tokenizer;     // Tokenizer::to_json()
  int epoch = 0;                // epochs completed when written
  int64_t step = 0;             // optimiser steps completed when written
  int64_t run_id = 0;           // 0 = not from a run (e.g. the committed pretrained checkpoint)
  nlohmann::json train_config;  // the run's TrainConfig, or null
  nlohmann::json adapters = nullptr;  // read only: the model's AdapterSpec (model/peft.h) when saved, or null
};

void save_checkpoint(const std::string& path, ClipModel& model, const CheckpointMeta& meta,
                     torch::optim::Optimizer* optimizer = nullptr);

// The pid in the name of save_checkpoint's temporary file ("<final name>.tmp-<pid>"), or 0 when
// `file_name` is not one. A process killed mid-write leaves that file behind; whoever sweeps for
// it (job/stale_checkpoint_files.h) must recognise exactly the names written here.
int64_t checkpoint_temporary_writer(const std::string& file_name);

CheckpointMeta read_checkpoint_meta(const std::string& path);

// True for a workbench checkpoint (a LibTorch archive with a 'meta' header), false for anything
// else PyTorch wrote (torch.save zip, TorchScript archive without that header: an OpenAI or
// Long-CLIP state dict). Throws CheckpointError naming the file when it is missing or no PyTorch
// zip archive at all.
bool is_workbench_checkpoint(const std::string& path);

// Copies the checkpoint's weights into `model` (same names and shapes required), and its
// optimiser state into `optimizer` when both exist. A checkpoint of an adapted model (LoRA/DoRA)
// into a model without adapters first attaches the adapters its header describes, so any reader
// (evaluation, caption geometry, resume) gets the model that was trained; on any error the model
// is left as it was.
void load_checkpoint_weights(const std::string& path, ClipModel& model,
                             torch::optim::Optimizer* optimizer = nullptr);

}  // namespace hnclip
