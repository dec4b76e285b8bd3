#include "train/checkpoint.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "fault/fault_point.h"
#include "model/peft.h"
#include "model/zip_end_record.h"
#include "numeric/non_finite_values.h"
#include "text/decimal_digits.h"

namespace hnclip {

namespace {
constexpr const char* kFormat = "hnclip-checkpoint";
constexpr int kFormatVersion = 1;
constexpr const char* kTemporaryInfix = ".tmp-";  // then the writer's pid

std::string list(const std::vector<std::string>& names) {
  std::string out;
  const size_t shown = std::min<size_t>(names.size(), 24);
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

torch::serialize::InputArchive open_archive(const std::string& path) {
  if (!std::filesystem::exists(path)) throw CheckpointError("checkpoint " + path + ": no such file");
  torch::serialize::InputArchive archive;
  try {
    // Read onto the CPU: the weights are written there, but the optimiser's state is written
    // where it lived, so without this a GPU run's checkpoint would not open on a machine that
    // has no GPU (load_checkpoint_weights puts the state back beside the model).
    archive.load_from(path, torch::Device(torch::kCPU));
  } catch (const c10::Error& e) {
    if (!has_zip_end_record(path))
      throw CheckpointError("checkpoint " + path + ": " + kCutShortZip);
    throw CheckpointError("checkpoint " + path + ": not a readable checkpoint archive (" +
                          std::string(e.what_without_backtrace()).substr(0, 200) + ")");
  }
  return archive;
}
// Through a file descriptor of our own: LibTorch's file writer throws from its destructor when a
// write fails (std::terminate on a full disk, or past ulimit -f), so the first failed write is
// kept here, LibTorch is told every byte was taken, and the error, naming the file, comes after.
void write_archive(torch::serialize::OutputArchive& archive, const std::string& tmp,
                   const std::string& path) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw CheckpointError("checkpoint " + path + ": cannot create " + tmp + ": " +
                          std::strerror(errno));
  }
  int error = 0;
  archive.save_to([fd, &error](const void* data, size_t n) -> size_t {
    const char* p = static_cast<const char*>(data);
    size_t left = n;
    while (error == 0 && left > 0) {
      const ssize_t written = ::write(fd, p, left);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        error = written < 0 ? errno : EIO;
        break;
      }
      p += written;
      left -= static_cast<size_t>(written);
    }
    return n;
  });
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    throw CheckpointError("checkpoint " + path + ": cannot write " + tmp + ": " +
                          std::strerror(error));
  }
}
// The optimiser's moments, read onto the CPU (open_archive), go to the device of the model they
// update: torch::optim steps them there, and a run saved on one device may resume on another.
void move_optimizer_state(torch::optim::Optimizer& optimizer, const c10::Device& device) {
  for (auto& entry : optimizer.state()) {
    if (auto* s = dynamic_cast<torch::optim::AdamWParamState*>(entry.second.get())) {
      s->exp_avg(s->exp_avg().to(device));
      s->exp_avg_sq(s->exp_avg_sq().to(device));
      if (s->max_exp_avg_sq().defined()) s->max_exp_avg_sq(s->max_exp_avg_sq().to(device));
    }
  }
}
}  // namespace

void save_checkpoint(const std::string& path, ClipModel& model, const CheckpointMeta& meta,
                     torch::optim::Optimizer* optimizer) {
  nlohmann::json header{{"format", kFormat},      {"version", kFormatVersion},
                        {"model", meta.model},    {"tokenizer", meta.tokenizer},
                        {"epoch", meta.epoch},    {"step", meta.step},
                        {"run_id", meta.run_id},  {"train_config", meta.train_config}};
  if (const auto spec = adapter_spec(model)) header["adapters"] = *spec;
  torch::serialize::OutputArchive archive;
  archive.write("meta", c10::IValue(header.dump()));
  torch::serialize::OutputArchive weights;
  for (const auto& p : model->named_parameters()) weights.write(p.key(), p.value().detach().cpu());
  archive.write("model", weights);
  if (optimizer != nullptr) {
    torch::serialize::OutputArchive opt;
    optimizer->save(opt);
    archive.write("optimizer", opt);
  }
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  const std::string tmp = path + kTemporaryInfix + std::to_string(::getpid());
  try {
    write_archive(archive, tmp, path);
    fault_point("checkpoint.write");
    std::filesystem::rename(tmp, path);  // atomic on one file system
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

int64_t checkpoint_temporary_writer(const std::string& file_name) {
  const auto at = file_name.rfind(kTemporaryInfix);
  if (at == std::string::npos || at == 0) return 0;
  const std::string digits = file_name.substr(at + std::strlen(kTemporaryInfix));
  return is_decimal_digits(digits, kInt64Digits) ? std::stoll(digits) : 0;
}

CheckpointMeta read_checkpoint_meta(const std::string& path) {
  auto archive = open_archive(path);
  c10::IValue v;
  if (!archive.try_read("meta", v) || !v.isString()) {
    throw CheckpointError("checkpoint " + path + ": no 'meta' header (not a workbench checkpoint)");
  }
  CheckpointMeta meta;
  try {
    const auto header = nlohmann::json::parse(v.toStringRef());
    if (header.value("format", "") != kFormat) throw CheckpointError("unknown format");
    if (header.value("version", 0) > kFormatVersion) {
      throw CheckpointError("format version " + std::to_string(header.value("version", 0)) +
                            " is newer than this program's " + std::to_string(kFormatVersion));
    }
    meta.model = header.at("model").get<ClipConfig>();
    meta.tokenizer = header.at("tokenizer");
    meta.epoch = header.at("epoch").get<int>();
    meta.step = header.at("step").get<int64_t>();
    meta.run_id = header.value("run_id", int64_t{0});
    meta.train_config = header.value("train_config", nlohmann::json());
    meta.adapters = header.value("adapters", nlohmann::json());
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + path + ": bad header: " + e.what());
  }
  return meta;
}

bool is_workbench_checkpoint(const std::string& path) {
  if (!std::filesystem::exists(path)) throw CheckpointError("checkpoint " + path + ": no such file");
  try {
    // torch.save never writes constants.pkl; TorchScript archives (ours included) always do. The
    // zip directory alone decides this, without reading a tensor.
    caffe2::serialize::PyTorchStreamReader reader(path);
    if (!reader.hasRecord("constants.pkl")) return false;
  } catch (const c10::Error& e) {
    if (!has_zip_end_record(path))
      throw CheckpointError("checkpoint " + path + ": " + kCutShortZip);
    throw CheckpointError("checkpoint " + path + ": not a PyTorch archive (" +
                          std::string(e.what_without_backtrace()).substr(0, 200) + ")");
  }
  auto archive = open_archive(path);
  c10::IValue v;
  return archive.try_read("meta", v) && v.isString();
}

void load_checkpoint_weights(const std::string& path, ClipModel& model,
                             torch::optim::Optimizer* optimizer) {
  auto archive = open_archive(path);
  torch::serialize::InputArchive weights;
  if (!archive.try_read("model", weights)) {
    throw CheckpointError("checkpoint " + path + ": no 'model' weights");
  }
  // Adapter weights for a model without adapters: attach what the header describes first (the
  // values are overwritten below), and take them off again if the file does not fit after all.
  bool attached = false;
  std::vector<bool> trainable_before;
  bool file_has_adapters = false;
  for (const auto& key : weights.keys()) file_has_adapters = file_has_adapters || is_adapter_parameter(key);
  if (file_has_adapters && !has_adapters(model)) {
    c10::IValue v;
    AdapterSpec spec;
    try {
      if (!archive.try_read("meta", v) || !v.isString()) throw std::runtime_error("no 'meta' header");
      nlohmann::json::parse(v.toStringRef()).at("adapters").get_to(spec);
    } catch (const std::exception& e) {
      throw CheckpointError("checkpoint " + path + " has adapter weights but no usable adapter spec in its header (" +
                            e.what() + ")");
    }
    for (const auto& p : model->parameters()) trainable_before.push_back(p.requires_grad());
    attach_adapters(model, spec, 0);
    attached = true;
  }
  std::vector<std::string> missing, mismatched, unexpected;
  std::set<std::string> expected;
  torch::NoGradGuard no_grad;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;
  std::vector<std::string> copy_names;  // copies[i] is the parameter copy_names[i]
  for (auto& p : model->named_parameters()) {
    expected.insert(p.key());
    torch::Tensor t;
    if (!weights.try_read(p.key(), t)) {
      missing.push_back(p.key());
    } else if (t.sizes() != p.value().sizes()) {
      mismatched.push_back(p.key() + " (checkpoint " + c10::str(t.sizes()) + ", model " +
                           c10::str(p.value().sizes()) + ")");
    } else {
      copies.emplace_back(p.value(), t);
      copy_names.push_back(p.key());
    }
  }
  for (const auto& key : weights.keys()) {
    if (!expected.count(key)) unexpected.push_back(key);
  }
  // A refused file leaves the model as it was, adapters included.
  const auto undo_attach = [&] {
    if (!attached) return;
    remove_adapters(model);
    auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].set_requires_grad(trainable_before[i]);
  };
  if (!missing.empty() || !mismatched.empty() || !unexpected.empty()) {
    std::string msg = "checkpoint " + path + " does not fit the model:";
    if (!missing.empty()) msg += " missing keys: " + list(missing) + ";";
    if (!unexpected.empty()) msg += " unexpected keys: " + list(unexpected) + ";";
    if (!mismatched.empty()) msg += " shape mismatches: " + list(mismatched) + ";";
    undo_attach();
    throw CheckpointError(msg);
  }
  // A checkpoint written from a diverged run (or tampered with) must not become a model that
  // scores: NaN ranks first against everything.
  for (size_t i = 0; i < copies.size(); ++i) {
    if (const auto bad = find_non_finite(copies[i].second)) {
      undo_attach();
      throw NonFiniteError("checkpoint " + path + ": tensor " + copy_names[i] + " holds " + describe(*bad) +
                           "; refusing non-finite weights");
    }
  }
  // Only now, with everything checked, touch the model: a bad file changes nothing.
  for (auto& [dst, src] : copies) dst.copy_(src.to(dst.device(), dst.dtype()));
  if (optimizer != nullptr) {
    torch::serialize::InputArchive opt;
    if (archive.try_read("optimizer", opt)) {
      optimizer->load(opt);
      move_optimizer_state(*optimizer, model->logit_scale.device());
    }
  }
}

}  // namespace hnclip
