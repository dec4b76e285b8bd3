#include "model/torch_unpickler.h"

#include <torch/torch.h>

#include <cstring>
#include <sstream>
#include <unordered_map>

namespace hnclip {

namespace {
// Pickle opcodes (CPython's Lib/pickletools.py names). Protocol 2 is what torch.save writes;
// FRAME/MEMOIZE/STACK_GLOBAL/BINUNICODE8 let protocol-4 programs through as well.
constexpr uint8_t kMark = '(', kStop = '.', kPop = '0', kPopMark = '1', kDup = '2';
constexpr uint8_t kBinFloat = 'G', kBinInt = 'J', kBinInt1 = 'K', kBinInt2 = 'M', kNone = 'N';
constexpr uint8_t kBinPersId = 'Q', kReduce = 'R', kBinString = 'T', kShortBinString = 'U';
constexpr uint8_t kBinUnicode = 'X', kAppend = 'a', kBuild = 'b', kGlobal = 'c', kAppends = 'e';
constexpr uint8_t kBinGet = 'h', kLongBinGet = 'j', kEmptyList = ']', kBinPut = 'q', kLongBinPut = 'r';
constexpr uint8_t kSetItem = 's', kTuple = 't', kEmptyTuple = ')', kSetItems = 'u', kEmptyDict = '}';
constexpr uint8_t kBinBytes = 'B', kShortBinBytes = 'C';
constexpr uint8_t kProto = 0x80, kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87, kNewTrue = 0x88;
constexpr uint8_t kNewFalse = 0x89, kLong1 = 0x8a, kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d;
constexpr uint8_t kBinBytes8 = 0x8e, kStackGlobal = 0x93, kMemoize = 0x94, kFrame = 0x95;

// Deepest nesting of containers accepted: a state dict is 2-4 deep (an open_clip checkpoint's
// optimizer state the most); deeper values would be freed by recursive destructors.
constexpr size_t kMaxNesting = 1000;

constexpr const char* kOrderedDict = "collections.OrderedDict";
constexpr const char* kRebuildTensorV2 = "torch._utils._rebuild_tensor_v2";
constexpr const char* kRebuildParameter = "torch._utils._rebuild_parameter";
constexpr const char* kRebuildParameterWithState = "torch._utils._rebuild_parameter_with_state";

// torch.<Name>Storage → element type of the storage record.
const std::vector<std::pair<std::string, c10::ScalarType>>& storage_types() {
  static const std::vector<std::pair<std::string, c10::ScalarType>> types{
      {"torch.FloatStorage", c10::kFloat},          {"torch.DoubleStorage", c10::kDouble},
      {"torch.HalfStorage", c10::kHalf},            {"torch.BFloat16Storage", c10::kBFloat16},
      {"torch.LongStorage", c10::kLong},            {"torch.IntStorage", c10::kInt},
      {"torch.ShortStorage", c10::kShort},          {"torch.CharStorage", c10::kChar},
      {"torch.ByteStorage", c10::kByte},            {"torch.BoolStorage", c10::kBool},
      {"torch.ComplexFloatStorage", c10::kComplexFloat},
      {"torch.ComplexDoubleStorage", c10::kComplexDouble}};
  return types;
}

PickleValuePtr make(PickleValue::Kind kind) {
  auto v = std::make_shared<PickleValue>();
  v->kind = kind;
  return v;
}

template <typename T>
T read_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // the pickle format and every supported host are little-endian
  return v;
}

std::vector<int64_t> int_tuple(const PickleValuePtr& v, const char* what) {
  if (v->kind != PickleValue::Kind::Tuple) {
    throw UnpicklingError(std::string(what) + " is a " + v->kind_name() + ", not a tuple");
  }
  std::vector<int64_t> out;
  for (const auto& item : v->items) {
    if (item->kind != PickleValue::Kind::Int) {
      throw UnpicklingError(std::string(what) + " holds a " + item->kind_name() + ", not an int");
    }
    out.push_back(item->integer);
  }
  return out;
}
}  // namespace

PickleValuePtr PickleValue::get(const std::string& key) const {
  if (kind != Kind::Dict) return nullptr;
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i]->kind == Kind::String && items[i]->text == key) return items[i + 1];
  }
  return nullptr;
}

std::string PickleValue::kind_name() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::String: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Global: return "global " + text;
    case Kind::Storage: return "storage";
    case Kind::Tensor: return "tensor";
  }
  return "?";
}

TorchUnpickler::TorchUnpickler(const void* data, size_t size, StorageRecordLoader load_record)
    : data_(static_cast<const char*>(data)), size_(size), load_record_(std::move(load_record)) {}

void TorchUnpickler::fail(const std::string& what) const {
  throw UnpicklingError("pickle at byte " + std::to_string(op_pos_) + ": " + what);
}

uint8_t TorchUnpickler::read_u8() { return static_cast<uint8_t>(*read_bytes(1)); }

const char* TorchUnpickler::read_bytes(size_t n) {
  if (n > size_ - pos_) fail("truncated (needs " + std::to_string(n) + " more bytes)");
  const char* p = data_ + pos_;
  pos_ += n;
  return p;
}

std::string TorchUnpickler::read_line() {
  const void* nl = std::memchr(data_ + pos_, '\n', size_ - pos_);
  if (nl == nullptr) fail("truncated (unterminated GLOBAL name)");
  const size_t n = static_cast<const char*>(nl) - (data_ + pos_);
  std::string line(data_ + pos_, n);
  pos_ += n + 1;
  return line;
}

PickleValuePtr TorchUnpickler::pop() {
  if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) fail("stack underflow");
  auto v = stack_.back();
  stack_.pop_back();
  return v;
}

std::vector<PickleValuePtr> TorchUnpickler::pop_to_mark() {
  if (marks_.empty()) fail("no MARK to pop to");
  const size_t mark = marks_.back();
  marks_.pop_back();
  std::vector<PickleValuePtr> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
  stack_.resize(mark);
  return items;
}

PickleValuePtr TorchUnpickler::make_global(const std::string& module, const std::string& name) {
  const std::string full = module + "." + name;
  bool known = full == kOrderedDict || full == kRebuildTensorV2 || full == kRebuildParameter ||
               full == kRebuildParameterWithState;
  for (const auto& [type, dtype] : storage_types()) known = known || full == type;
  if (!known) fail("unsupported global " + full + " (only tensors, storages and dicts are read)");
  auto v = make(PickleValue::Kind::Global);
  v->text = full;
  return v;
}

PickleValuePtr TorchUnpickler::persistent_load(const PickleValuePtr& pid) {
  // torch.save's persistent id: ('storage', storage_type, key, location, numel).
  if (pid->kind != PickleValue::Kind::Tuple || pid->items.size() < 5 ||
      pid->items[0]->kind != PickleValue::Kind::String || pid->items[0]->text != "storage") {
    fail("persistent id is not a ('storage', type, key, location, numel) tuple");
  }
  const auto& type = pid->items[1];
  const auto& key = pid->items[2];
  if (type->kind != PickleValue::Kind::Global || key->kind != PickleValue::Kind::String) {
    fail("persistent id has no storage type or key");
  }
  c10::ScalarType dtype = c10::kFloat;
  bool found = false;
  for (const auto& [name, t] : storage_types()) {
    if (name == type->text) {
      dtype = t;
      found = true;
    }
  }
  if (!found) fail("unsupported storage type " + type->text);
  if (auto it = storages_.find(key->text); it != storages_.end()) return it->second;

  const auto [bytes, nbytes] = load_record_(key->text);
  const size_t item = c10::elementSize(dtype);
  if (nbytes % item != 0) {
    fail("record data/" + key->text + " has " + std::to_string(nbytes) + " bytes, not a whole number of " +
         type->text + " elements");
  }
  auto storage = torch::empty({static_cast<int64_t>(nbytes / item)}, torch::TensorOptions().dtype(dtype));
  if (nbytes > 0) std::memcpy(storage.data_ptr(), bytes.get(), nbytes);
  auto v = make(PickleValue::Kind::Storage);
  v->tensor = storage;
  storages_[key->text] = v;
  return v;
}

PickleValuePtr TorchUnpickler::call(const PickleValuePtr& callable, const PickleValuePtr& args) {
  if (callable->kind != PickleValue::Kind::Global) fail("REDUCE on a " + callable->kind_name());
  if (args->kind != PickleValue::Kind::Tuple) fail("REDUCE with " + args->kind_name() + " arguments");
  const std::string& fn = callable->text;
  const auto& a = args->items;
  if (fn == kOrderedDict) {
    if (!a.empty()) fail("collections.OrderedDict called with arguments");
    return make_container(PickleValue::Kind::Dict);
  }
  if (fn == kRebuildTensorV2) {
    // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
    if (a.size() < 6 || a[0]->kind != PickleValue::Kind::Storage || a[1]->kind != PickleValue::Kind::Int) {
      fail(fn + " called with unexpected arguments");
    }
    std::vector<int64_t> size, stride;
    try {
      size = int_tuple(a[2], "tensor size");
      stride = int_tuple(a[3], "tensor stride");
    } catch (const UnpicklingError& e) {
      fail(e.what());
    }
    const int64_t offset = a[1]->integer;
    const auto& storage = a[0]->tensor;
    if (size.size() != stride.size()) fail("tensor size and stride differ in length");
    // The view must stay inside its storage record: a corrupt file must not read out of bounds.
    // Checked arithmetic: a wrapped element count or end offset would pass the bounds check.
    int64_t last = offset, numel = 1;
    bool overflow = false;
    for (size_t d = 0; d < size.size(); ++d) {
      if (size[d] < 0 || stride[d] < 0) fail("negative tensor size or stride");
      int64_t reach = 0;
      overflow = overflow || __builtin_mul_overflow(numel, size[d], &numel) ||
                 (size[d] > 0 && (__builtin_mul_overflow(size[d] - 1, stride[d], &reach) ||
                                  __builtin_add_overflow(last, reach, &last)));
    }
    if (overflow) fail("tensor size and stride overflow 64 bits (a corrupt size or stride)");
    if (offset < 0 || (numel > 0 && last >= storage.numel())) {
      fail("tensor view (offset " + std::to_string(offset) + ") reaches past its storage of " +
           std::to_string(storage.numel()) + " elements");
    }
    // More elements than the storage holds means zero strides (a broadcast view); its contiguous
    // copy would be sized by the file's claim alone (terabytes), so it is refused before allocating.
    if (numel > storage.numel()) {
      fail("tensor of " + std::to_string(numel) + " elements is a broadcast view of a storage of " +
           std::to_string(storage.numel()) + " (zero strides), not supported");
    }
    auto view = storage.as_strided(size, stride, offset);
    const bool whole = offset == 0 && numel == storage.numel() && view.is_contiguous();
    auto v = make(PickleValue::Kind::Tensor);
    v->tensor = whole ? view : view.clone(at::MemoryFormat::Contiguous);
    return v;
  }
  if (fn == kRebuildParameter || fn == kRebuildParameterWithState) {
    // (data, requires_grad, backward_hooks[, state]): the parameter's data is the tensor.
    if (a.empty() || a[0]->kind != PickleValue::Kind::Tensor) fail(fn + " called without a tensor");
    return a[0];
  }
  fail("cannot call " + fn);
}

PickleValuePtr TorchUnpickler::make_container(PickleValue::Kind kind) {
  auto v = make(kind);
  containers_.push_back(v);
  return v;
}

PickleValuePtr TorchUnpickler::load() {
  try {
    auto top = run();
    keep_only_tree(top);
    return top;
  } catch (...) {
    release_containers([](const PickleValue*) { return false; });
    throw;
  }
}

void TorchUnpickler::keep_only_tree(const PickleValuePtr& top) {
  // Depth-first from the result, iteratively: a value on the current path seen again is a cycle.
  enum : uint8_t { kOnPath = 1, kDone = 2 };
  std::unordered_map<const PickleValue*, uint8_t> state;
  std::vector<std::pair<const PickleValue*, size_t>> path{{top.get(), 0}};  // value, next item
  state[top.get()] = kOnPath;
  while (!path.empty()) {
    auto& [v, next] = path.back();
    if (next == v->items.size()) {
      state[v] = kDone;
      path.pop_back();
      continue;
    }
    const PickleValue* item = v->items[next++].get();
    if (item->items.empty()) continue;
    auto [it, fresh] = state.emplace(item, kOnPath);
    if (!fresh && it->second == kOnPath) fail("the value holds itself (a cyclic structure; torch.save writes none)");
    if (!fresh) continue;
    if (path.size() >= kMaxNesting) fail("values nested deeper than " + std::to_string(kMaxNesting));
    path.emplace_back(item, 0);
  }
  // Containers the result does not reach are garbage, possibly cyclic (a list appended to
  // itself and popped): emptied, so that they are freed.
  release_containers([&](const PickleValue* v) { return state.count(v) != 0; });
}

void TorchUnpickler::release_containers(const std::function<bool(const PickleValue*)>& keep) {
  // All held first, then emptied, then let go: no container is destroyed while it still holds
  // items, so neither a cycle nor a deep chain (recursive destructors) survives.
  std::vector<PickleValuePtr> held;
  for (const auto& weak : containers_) {
    if (auto v = weak.lock(); v && !keep(v.get())) held.push_back(std::move(v));
  }
  for (const auto& v : held) v->items.clear();
  containers_.clear();
}

PickleValuePtr TorchUnpickler::run() {
  while (true) {
    op_pos_ = pos_;
    const uint8_t op = read_u8();
    switch (op) {
      case kProto: read_u8(); break;
      case kFrame: read_bytes(8); break;
      case kStop: {
        if (stack_.size() != 1 || !marks_.empty()) fail("STOP with " + std::to_string(stack_.size()) + " values left");
        return stack_.back();
      }
      case kMark: marks_.push_back(stack_.size()); break;
      case kPop: pop(); break;
      case kPopMark: pop_to_mark(); break;
      case kDup: {
        auto v = pop();
        stack_.push_back(v);
        stack_.push_back(v);
        break;
      }
      case kNone: stack_.push_back(make(PickleValue::Kind::None)); break;
      case kNewTrue:
      case kNewFalse: {
        auto v = make(PickleValue::Kind::Bool);
        v->boolean = op == kNewTrue;
        stack_.push_back(v);
        break;
      }
      case kBinInt:
      case kBinInt1:
      case kBinInt2: {
        auto v = make(PickleValue::Kind::Int);
        if (op == kBinInt) v->integer = read_le<int32_t>(read_bytes(4));
        if (op == kBinInt1) v->integer = read_u8();
        if (op == kBinInt2) v->integer = read_le<uint16_t>(read_bytes(2));
        stack_.push_back(v);
        break;
      }
      case kLong1: {
        const size_t n = read_u8();
        if (n > 8) fail("integer of " + std::to_string(n) + " bytes does not fit 64 bits");
        const char* p = read_bytes(n);
        uint64_t u = 0;
        for (size_t i = 0; i < n; ++i) u |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
        if (n > 0 && n < 8 && (static_cast<uint8_t>(p[n - 1]) & 0x80)) u |= ~uint64_t{0} << (8 * n);  // sign-extend
        auto v = make(PickleValue::Kind::Int);
        v->integer = static_cast<int64_t>(u);
        stack_.push_back(v);
        break;
      }
      case kBinFloat: {
        const char* p = read_bytes(8);
        uint64_t u = 0;
        for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<uint8_t>(p[i]);  // big-endian
        auto v = make(PickleValue::Kind::Float);
        std::memcpy(&v->real, &u, 8);
        stack_.push_back(v);
        break;
      }
      case kBinUnicode:
      case kShortBinUnicode:
      case kBinUnicode8:
      case kBinString:
      case kShortBinString:
      case kBinBytes:
      case kShortBinBytes:
      case kBinBytes8: {
        uint64_t n = 0;
        if (op == kShortBinUnicode || op == kShortBinString || op == kShortBinBytes) n = read_u8();
        else if (op == kBinUnicode8 || op == kBinBytes8) n = read_le<uint64_t>(read_bytes(8));
        else n = read_le<uint32_t>(read_bytes(4));
        if (n > size_) fail("string longer than the pickle");
        const bool bytes = op == kBinBytes || op == kShortBinBytes || op == kBinBytes8;
        auto v = make(bytes ? PickleValue::Kind::Bytes : PickleValue::Kind::String);
        v->text.assign(read_bytes(n), n);
        stack_.push_back(v);
        break;
      }
      case kEmptyTuple: stack_.push_back(make_container(PickleValue::Kind::Tuple)); break;
      case kEmptyList: stack_.push_back(make_container(PickleValue::Kind::List)); break;
      case kEmptyDict: stack_.push_back(make_container(PickleValue::Kind::Dict)); break;
      case kTuple:
      case kTuple1:
      case kTuple2:
      case kTuple3: {
        auto v = make_container(PickleValue::Kind::Tuple);
        if (op == kTuple) {
          v->items = pop_to_mark();
        } else {
          const size_t n = op - kTuple1 + 1;
          v->items.resize(n);
          for (size_t i = n; i-- > 0;) v->items[i] = pop();
        }
        stack_.push_back(v);
        break;
      }
      case kAppend:
      case kAppends: {
        std::vector<PickleValuePtr> items;
        if (op == kAppend) items.push_back(pop());
        else items = pop_to_mark();
        auto list = pop();
        if (list->kind != PickleValue::Kind::List) fail("APPEND to a " + list->kind_name());
        list->items.insert(list->items.end(), items.begin(), items.end());
        stack_.push_back(list);
        break;
      }
      case kSetItem:
      case kSetItems: {
        std::vector<PickleValuePtr> items;
        if (op == kSetItem) {
          auto value = pop();
          items = {pop(), value};
        } else {
          items = pop_to_mark();
        }
        if (items.size() % 2 != 0) fail("SETITEMS with an odd number of values");
        auto dict = pop();
        if (dict->kind != PickleValue::Kind::Dict) fail("SETITEM on a " + dict->kind_name());
        for (size_t i = 0; i < items.size(); i += 2) {
          bool replaced = false;
          if (items[i]->kind == PickleValue::Kind::String) {
            for (size_t j = 0; j + 1 < dict->items.size() && !replaced; j += 2) {
              if (dict->items[j]->kind == PickleValue::Kind::String && dict->items[j]->text == items[i]->text) {
                dict->items[j + 1] = items[i + 1];  // Python keeps the first position, the last value
                replaced = true;
              }
            }
          }
          if (!replaced) {
            dict->items.push_back(items[i]);
            dict->items.push_back(items[i + 1]);
          }
        }
        stack_.push_back(dict);
        break;
      }
      case kBinPut:
      case kLongBinPut:
      case kMemoize: {
        if (stack_.empty()) fail("memo store with an empty stack");
        uint32_t idx = static_cast<uint32_t>(memo_.size());
        if (op == kBinPut) idx = read_u8();
        if (op == kLongBinPut) idx = read_le<uint32_t>(read_bytes(4));
        memo_[idx] = stack_.back();
        break;
      }
      case kBinGet:
      case kLongBinGet: {
        const uint32_t idx = op == kBinGet ? read_u8() : read_le<uint32_t>(read_bytes(4));
        auto it = memo_.find(idx);
        if (it == memo_.end()) fail("memo entry " + std::to_string(idx) + " was never stored");
        stack_.push_back(it->second);
        break;
      }
      case kGlobal: {
        const std::string module = read_line();
        const std::string name = read_line();
        stack_.push_back(make_global(module, name));
        break;
      }
      case kStackGlobal: {
        auto name = pop();
        auto module = pop();
        if (name->kind != PickleValue::Kind::String || module->kind != PickleValue::Kind::String) {
          fail("STACK_GLOBAL without module and name strings");
        }
        stack_.push_back(make_global(module->text, name->text));
        break;
      }
      case kReduce: {
        auto args = pop();
        auto callable = pop();
        stack_.push_back(call(callable, args));
        break;
      }
      case kBinPersId: stack_.push_back(persistent_load(pop())); break;
      case kBuild: {
        // OrderedDict state (state_dict()'s `_metadata` attribute) carries no tensors: dropped.
        pop();
        if (stack_.empty()) fail("BUILD with nothing to build");
        const auto& target = stack_.back();
        if (target->kind != PickleValue::Kind::Dict && target->kind != PickleValue::Kind::Tensor) {
          fail("BUILD on a " + target->kind_name());
        }
        break;
      }
      default: {
        std::ostringstream hex;
        hex << "0x" << std::hex << static_cast<int>(op);
        fail("unsupported pickle opcode " + hex.str());
      }
    }
  }
}

}  // namespace hnclip
