#include "model/state_dict_file.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>
#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "model/file_signature.h"
#include "model/torch_unpickler.h"
#include "model/zip_end_record.h"

namespace hnclip {

namespace {
constexpr const char* kPickleRecord = "data.pkl";
constexpr const char* kTorchScriptRecord = "constants.pkl";  // only TorchScript archives have it
constexpr size_t kMaxErrorDetail = 300;

std::string where(const std::string& path) { return "state dict file " + path + ": "; }

std::string short_what(const c10::Error& e) {
  std::string s = e.what_without_backtrace();
  if (const auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s.substr(0, kMaxErrorDetail);
}

// What the first bytes say the file is, before any zip reader sees it (its errors are cryptic).
void check_magic(const std::string& path) {
  const auto signature = read_file_signature(path);
  switch (signature) {
    case FileSignature::kZip:
      if (!has_zip_end_record(path)) throw StateDictError(where(path) + kCutShortZip);
      return;
    case FileSignature::kMissing:
      throw StateDictError(where(path) +
                           (std::filesystem::exists(path) ? "not a file" : "no such file"));
    case FileSignature::kUnreadable:
      throw StateDictError(where(path) + "cannot be opened");
    case FileSignature::kLegacyPickle:
      throw StateDictError(where(path) +
                           "legacy (non-zip) torch.save format, not supported; re-save it with a "
                           "current PyTorch (torch.save(torch.load(f), f))");
    // Two mistakes a user makes: a file left empty by a failed copy, and the run database passed
    // where a model goes (both sit next to the checkpoints). "not a zip archive" says neither.
    case FileSignature::kEmpty:
      throw StateDictError(where(path) + "the file is empty (0 bytes), not a model");
    case FileSignature::kSqlite:
      throw StateDictError(where(path) +
                           "an SQLite database (a run database goes to --db), not a model file");
    case FileSignature::kSafetensors:
    case FileSignature::kOther:
      break;
  }
  throw StateDictError(where(path) +
                       "not a zip archive (neither torch.save nor torch.jit.save output)");
}

std::pair<std::shared_ptr<const void>, size_t> record(caffe2::serialize::PyTorchStreamReader& reader,
                                                      const std::string& path, const std::string& name) {
  if (!reader.hasRecord(name)) throw StateDictError(where(path) + "missing record " + name);
  try {
    auto [data, size] = reader.getRecord(name);
    auto holder = std::make_shared<at::DataPtr>(std::move(data));
    return {std::shared_ptr<const void>(holder, holder->get()), size};
  } catch (const c10::Error& e) {
    throw StateDictError(where(path) + "cannot read record " + name + " (" + short_what(e) + ")");
  }
}

bool all_tensors(const PickleValue& dict) {
  for (size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    if (dict.items[i]->kind != PickleValue::Kind::String || dict.items[i + 1]->kind != PickleValue::Kind::Tensor) {
      return false;
    }
  }
  return true;
}

// The dict of tensors inside what data.pkl holds: the top level, or "state_dict" / "model" under it
// (training scripts often save {"epoch": ..., "state_dict": ...}).
const PickleValue& tensor_dict(const PickleValuePtr& top, const std::string& path,
                               std::string& nested_under) {
  if (top->kind != PickleValue::Kind::Dict) {
    throw StateDictError(where(path) + "holds a " + top->kind_name() + ", not a dict of tensors");
  }
  nested_under.clear();
  if (all_tensors(*top)) return *top;
  for (const char* key : {"state_dict", "model"}) {
    if (auto v = top->get(key); v && v->kind == PickleValue::Kind::Dict && all_tensors(*v)) {
      nested_under = key;
      return *v;
    }
  }
  std::string offender;
  for (size_t i = 0; i + 1 < top->items.size() && offender.empty(); i += 2) {
    if (top->items[i + 1]->kind != PickleValue::Kind::Tensor) {
      const auto& k = top->items[i];
      offender = (k->kind == PickleValue::Kind::String ? "'" + k->text + "'" : "a " + k->kind_name() + " key") +
                 " holds a " + top->items[i + 1]->kind_name();
    }
  }
  throw StateDictError(where(path) + "not a dict of tensors (" + offender +
                       ") and no 'state_dict' or 'model' dict of tensors under it");
}

StateDict read_pickled(caffe2::serialize::PyTorchStreamReader& reader, const std::string& path,
                       StateDictFileLayout& layout) {
  const auto [pkl, pkl_size] = record(reader, path, kPickleRecord);
  TorchUnpickler unpickler(pkl.get(), pkl_size,
                           [&](const std::string& key) { return record(reader, path, "data/" + key); });
  PickleValuePtr top;
  try {
    top = unpickler.load();
  } catch (const UnpicklingError& e) {
    throw StateDictError(where(path) + kPickleRecord + ": " + e.what());
  }
  const auto& dict = tensor_dict(top, path, layout.nested_under);
  for (size_t i = 0; i + 1 < top->items.size(); i += 2) {
    if (top->items[i]->kind == PickleValue::Kind::String) layout.top_level_keys.push_back(top->items[i]->text);
  }
  StateDict out;
  for (size_t i = 0; i + 1 < dict.items.size(); i += 2) out.emplace_back(dict.items[i]->text, dict.items[i + 1]->tensor);
  return out;
}

// Python's state_dict() order: a module's own parameters, its own buffers, then its children.
void collect_script_tensors(const torch::jit::Module& module, const std::string& prefix, StateDict& out) {
  for (const auto& p : module.named_parameters(false)) out.emplace_back(prefix + p.name, p.value.detach().contiguous());
  for (const auto& b : module.named_buffers(false)) out.emplace_back(prefix + b.name, b.value.detach().contiguous());
  for (const auto& child : module.named_children()) collect_script_tensors(child.value, prefix + child.name + ".", out);
}

StateDict read_torchscript(const std::string& path) {
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, torch::kCPU);
  } catch (const c10::Error& e) {
    throw StateDictError(where(path) + "cannot load TorchScript archive (" + short_what(e) + ")");
  }
  StateDict out;
  collect_script_tensors(module, "", out);
  return out;
}

const char* storage_type(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat: return "FloatStorage";
    case c10::kDouble: return "DoubleStorage";
    case c10::kHalf: return "HalfStorage";
    case c10::kBFloat16: return "BFloat16Storage";
    case c10::kLong: return "LongStorage";
    case c10::kInt: return "IntStorage";
    case c10::kShort: return "ShortStorage";
    case c10::kChar: return "CharStorage";
    case c10::kByte: return "ByteStorage";
    case c10::kBool: return "BoolStorage";
    case c10::kComplexFloat: return "ComplexFloatStorage";
    case c10::kComplexDouble: return "ComplexDoubleStorage";
    default: return nullptr;
  }
}

// Emits the protocol-2 pickle that torch.save writes for an OrderedDict of tensors (without the
// memo, which unpicklers do not need).
class PickleWriter {
 public:
  void proto() { out_ += "\x80\x02"; }
  void global(const std::string& module, const std::string& name) { out_ += "c" + module + "\n" + name + "\n"; }
  void op(char c) { out_ += c; }
  void str(const std::string& s) {
    op('X');
    u32(static_cast<uint32_t>(s.size()));
    out_ += s;
  }
  void integer(int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      u32(static_cast<uint32_t>(static_cast<int32_t>(v)));
    } else {
      out_ += '\x8a';
      out_ += '\x08';
      for (int i = 0; i < 8; ++i) out_ += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
    }
  }
  void int_tuple(c10::IntArrayRef values) {
    op('(');
    for (auto v : values) integer(v);
    op('t');
  }
  void empty_ordered_dict() {
    global("collections", "OrderedDict");
    op(')');
    op('R');
  }
  const std::string& bytes() const { return out_; }

 private:
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  std::string out_;
};
}  // namespace

StateDict read_state_dict_file(const std::string& path, StateDictFileLayout* layout) {
  StateDictFileLayout found;
  if (layout == nullptr) layout = &found;
  *layout = StateDictFileLayout{};
  check_magic(path);
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
  try {
    reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(path);
  } catch (const c10::Error& e) {
    throw StateDictError(where(path) + "unreadable zip archive, truncated or corrupt (" + short_what(e) + ")");
  }
  if (reader->hasRecord(kTorchScriptRecord)) {
    reader.reset();
    layout->torchscript = true;
    return read_torchscript(path);
  }
  return read_pickled(*reader, path, *layout);
}

void write_state_dict_file(const std::string& path, const StateDict& tensors) {
  std::set<std::string> seen;
  std::vector<at::Tensor> storages;
  PickleWriter pkl;
  pkl.proto();
  pkl.empty_ordered_dict();
  pkl.op('(');
  for (const auto& [name, tensor] : tensors) {
    if (!seen.insert(name).second) throw StateDictError(where(path) + "duplicate key " + name);
    if (!tensor.defined()) throw StateDictError(where(path) + "key " + name + " holds no tensor");
    const char* type = storage_type(tensor.scalar_type());
    if (type == nullptr) {
      throw StateDictError(where(path) + "key " + name + ": dtype " + std::string(c10::toString(tensor.scalar_type())) +
                           " has no torch.save storage type");
    }
    auto t = tensor.detach().to(torch::kCPU).contiguous();
    const std::string key = std::to_string(storages.size());
    pkl.str(name);
    pkl.global("torch._utils", "_rebuild_tensor_v2");
    pkl.op('(');
    pkl.op('(');  // persistent id ('storage', type, key, location, numel)
    pkl.str("storage");
    pkl.global("torch", type);
    pkl.str(key);
    pkl.str("cpu");
    pkl.integer(t.numel());
    pkl.op('t');
    pkl.op('Q');
    pkl.integer(0);  // storage offset
    pkl.int_tuple(t.sizes());
    pkl.int_tuple(t.strides());
    pkl.op('\x89');  // requires_grad = False
    pkl.empty_ordered_dict();  // backward hooks
    pkl.op('t');
    pkl.op('R');
    storages.push_back(t);
  }
  pkl.op('u');
  pkl.op('.');

  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw StateDictError(where(path) + "cannot create " + tmp);
      // The function-writer constructor names the archive folder "archive", as torch.save does.
      caffe2::serialize::PyTorchStreamWriter writer([&out](const void* buf, size_t n) -> size_t {
        out.write(static_cast<const char*>(buf), static_cast<std::streamsize>(n));
        return out ? n : 0;
      });
      writer.writeRecord(kPickleRecord, pkl.bytes().data(), pkl.bytes().size());
      for (size_t i = 0; i < storages.size(); ++i) {
        const auto& t = storages[i];
        static const char kEmpty = 0;
        const void* data = t.numel() > 0 ? t.data_ptr() : &kEmpty;
        writer.writeRecord("data/" + std::to_string(i), data, t.numel() * t.element_size());
      }
      writer.writeEndOfFile();
      out.close();
      if (!out) throw StateDictError(where(path) + "write failed (" + tmp + ")");
    }
    std::filesystem::rename(tmp, path);  // atomic on one file system
  } catch (const c10::Error& e) {
    std::filesystem::remove(tmp, ec);
    throw StateDictError(where(path) + "write failed (" + short_what(e) + ")");
  } catch (const std::filesystem::filesystem_error& e) {
    std::filesystem::remove(tmp, ec);
    throw StateDictError(where(path) + "write failed (" + e.what() + ")");
  } catch (...) {
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

}  // namespace hnclip
