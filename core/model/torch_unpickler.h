#pragma once
// TorchUnpickler: a small interpreter for the pickle programs `torch.save` writes into the
// `data.pkl` record of its zip archives (protocol 2, plus the few protocol-4 framing opcodes), so
// that state dicts load without Python. LibTorch's own unpickler cannot be used for this: it maps
// collections.OrderedDict (what `nn.Module.state_dict()` returns) to None.
//
// Only data is built, never code run: the accepted globals are collections.OrderedDict, the
// torch.*Storage types and torch._utils' tensor/parameter rebuild functions; anything else is
// rejected by name. Not thread-safe; one instance per load.

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

// A malformed or unsupported pickle program; the message names the opcode or global and the byte
// offset. Callers add the file name.
class UnpicklingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PickleValue;
using PickleValuePtr = std::shared_ptr<PickleValue>;

// One Python value. Containers are shared (the pickle memo refers to them and SETITEMS/APPENDS
// mutate them in place), so values are held by shared_ptr.
struct PickleValue {
  enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Global, Storage, Tensor };
  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0.0;
  std::string text;                   // String, Bytes, or "module.name" of a Global
  std::vector<PickleValuePtr> items;  // Tuple, List; Dict: keys and values alternating, in order
  at::Tensor tensor;                  // Storage (1-D, storage dtype) or Tensor

  // Dict lookup by string key; nullptr when absent (or not a dict).
  PickleValuePtr get(const std::string& key) const;
  // "dict", "tuple", "tensor", ... for error messages.
  std::string kind_name() const;
};

// Returns the bytes of the storage record `key` of the archive (the `data/<key>` record).
using StorageRecordLoader = std::function<std::pair<std::shared_ptr<const void>, size_t>(const std::string& key)>;

class TorchUnpickler {
 public:
  TorchUnpickler(const void* data, size_t size, StorageRecordLoader load_record);
  // Runs the program to its STOP and returns the value it leaves: a tree (shared sub-values
  // allowed) at most 1000 containers deep; a cyclic or deeper value is an UnpicklingError.
  PickleValuePtr load();

 private:
  PickleValuePtr run();
  PickleValuePtr make_container(PickleValue::Kind kind);
  // Checks that `top` is an acyclic tree of bounded depth and empties every container it does
  // not reach.
  void keep_only_tree(const PickleValuePtr& top);
  // Empties the containers created so far, except those `keep` names.
  void release_containers(const std::function<bool(const PickleValue*)>& keep);
  uint8_t read_u8();
  const char* read_bytes(size_t n);
  std::string read_line();
  PickleValuePtr pop();
  std::vector<PickleValuePtr> pop_to_mark();
  PickleValuePtr make_global(const std::string& module, const std::string& name);
  PickleValuePtr call(const PickleValuePtr& callable, const PickleValuePtr& args);
  PickleValuePtr persistent_load(const PickleValuePtr& pid);
  [[noreturn]] void fail(const std::string& what) const;

  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t op_pos_ = 0;
  StorageRecordLoader load_record_;
  std::vector<PickleValuePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, PickleValuePtr> memo_;
  std::unordered_map<std::string, PickleValuePtr> storages_;  // by record key: shared storages stay shared
  std::vector<std::weak_ptr<PickleValue>> containers_;        // every tuple, list and dict made
};

}  // namespace hnclip
