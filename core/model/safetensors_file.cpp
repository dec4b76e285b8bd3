#include "model/safetensors_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace hnclip {

// Tensor bytes are written and read as they lie in memory; safetensors is little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors I/O assumes a little-endian host");

namespace {
constexpr size_t kLengthBytes = 8;      // the u64 header length before the JSON
constexpr size_t kHeaderAlignment = 8;  // the reference writer pads the header to this
constexpr size_t kMinHeaderBytes = 2;   // "{}"
constexpr const char* kMetadataKey = "__metadata__";
constexpr const char* kHeaderLengthKey = "header length";  // what file-level errors name as the key
constexpr size_t kMaxShownChars = 120;  // of a JSON value quoted in an error message

struct Dtype {
  const char* name;
  c10::ScalarType type;
};
// The safetensors dtypes LibTorch 1.13 has a scalar type for (U16/U32/U64 and the F8 types have
// none).
constexpr Dtype kDtypes[] = {
    {"F64", c10::kDouble}, {"F32", c10::kFloat}, {"F16", c10::kHalf},  {"BF16", c10::kBFloat16},
    {"I64", c10::kLong},   {"I32", c10::kInt},   {"I16", c10::kShort}, {"I8", c10::kChar},
    {"U8", c10::kByte},    {"BOOL", c10::kBool},
};

std::string file_where(const std::string& path) { return "safetensors file " + path + ": "; }
std::string key_where(const std::string& path, const std::string& key) {
  return file_where(path) + "key '" + key + "': ";
}

const Dtype* dtype_by_name(const std::string& name) {
  for (const auto& d : kDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

const char* dtype_name(c10::ScalarType t) {
  for (const auto& d : kDtypes) {
    if (t == d.type) return d.name;
  }
  return nullptr;
}

std::string supported_dtypes() {
  std::string out;
  for (const auto& d : kDtypes) out += std::string(out.empty() ? "" : " ") + d.name;
  return out;
}

// A header value for an error message: short, and never a dump of a nested value (the serializer
// recurses once per level, and a crafted header nesting 500k arrays overflowed the stack).
std::string shown(const nlohmann::json& v) {
  bool flat = true;
  if (v.is_structured()) {
    for (const auto& item : v) flat = flat && item.is_primitive();
  }
  std::string s = flat ? v.dump()
                       : std::string("a JSON ") + v.type_name() + " holding nested values";
  if (s.size() > kMaxShownChars) s = s.substr(0, kMaxShownChars) + "...";
  return s;
}

uint64_t read_u64_le(const unsigned char* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < kLengthBytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// The whole file mapped private and copy-on-write; unmapped when the last tensor using it goes.
class Mapping {
 public:
  Mapping(void* base, size_t size) : base_(static_cast<unsigned char*>(base)), size_(size) {}
  ~Mapping() { ::munmap(base_, size_); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  unsigned char* base() const { return base_; }
  size_t size() const { return size_; }
  // Gives back the pages lying entirely inside [begin, end) (file offsets): only the tensor that
  // owned those bytes could use them, and it is gone. Pages shared with a neighbour stay until
  // the unmap. For a file-backed private mapping the kernel simply drops them (clean pages can be
  // re-read from the file; copy-on-write pages belonged to the dead tensor).
  void release(size_t begin, size_t end) const {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t first = (begin + page - 1) / page * page;
    const size_t last = end / page * page;
    if (last > first) ::madvise(base_ + first, last - first, MADV_DONTNEED);
  }

 private:
  unsigned char* base_;
  size_t size_;
};

// Closes the descriptor on every path out of the reader.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

struct Entry {
  std::string name;
  const Dtype* dtype = nullptr;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
  size_t header_index = 0;  // breaks ties between empty tensors at one offset
};

uint64_t unsigned_field(const nlohmann::json& v, const std::string& path, const std::string& key,
                        const std::string& what) {
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    throw StateDictError(key_where(path, key) + what + " is negative (" + shown(v) + ")");
  }
  if (!v.is_number_unsigned()) {
    throw StateDictError(key_where(path, key) + what + " is not a non-negative integer (" +
                         shown(v) + ")");
  }
  return v.get<uint64_t>();
}

Entry parse_entry(const std::string& key, const nlohmann::json& e, const std::string& path) {
  if (!e.is_object()) {
    throw StateDictError(key_where(path, key) + "is a JSON " + e.type_name() +
                         ", not an object with dtype, shape and data_offsets");
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!e.contains(field)) throw StateDictError(key_where(path, key) + "has no " + field);
  }
  Entry out;
  out.name = key;
  const auto& dtype = e.at("dtype");
  if (!dtype.is_string())
    throw StateDictError(key_where(path, key) + "dtype is not a string (" + shown(dtype) + ")");
  out.dtype = dtype_by_name(dtype.get<std::string>());
  if (out.dtype == nullptr) {
    throw StateDictError(key_where(path, key) + "unknown dtype " + dtype.get<std::string>() +
                         " (supported: " + supported_dtypes() + ")");
  }
  const auto& shape = e.at("shape");
  if (!shape.is_array())
    throw StateDictError(key_where(path, key) + "shape is not an array (" + shown(shape) + ")");
  // numel x element size must fit in the file, so anything that overflows 64 bits is refused.
  uint64_t bytes = c10::elementSize(out.dtype->type);
  bool overflow = false;
  for (const auto& d : shape) {
    const uint64_t n = unsigned_field(d, path, key, "a shape dimension");
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) overflow = true;
    if (n != 0 && bytes > std::numeric_limits<uint64_t>::max() / n) overflow = true;
    bytes *= n;
    out.shape.push_back(static_cast<int64_t>(n));
  }
  const auto& offsets = e.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2) {
    throw StateDictError(key_where(path, key) + "data_offsets is not [begin, end] (" +
                         shown(offsets) + ")");
  }
  out.begin = unsigned_field(offsets[0], path, key, "data_offsets begin");
  out.end = unsigned_field(offsets[1], path, key, "data_offsets end");
  if (out.begin > out.end) {
    throw StateDictError(key_where(path, key) + "data_offsets [" + std::to_string(out.begin) +
                         ", " + std::to_string(out.end) + "] end before they begin");
  }
  if (overflow || out.end - out.begin != bytes) {
    throw StateDictError(key_where(path, key) + "data_offsets [" + std::to_string(out.begin) +
                         ", " + std::to_string(out.end) + "] hold " +
                         std::to_string(out.end - out.begin) + " bytes, but shape " + shown(shape) +
                         " of " + out.dtype->name + " needs " +
                         (overflow ? std::string("more than 2^64") : std::to_string(bytes)));
  }
  return out;
}

std::map<std::string, std::string> parse_metadata(const nlohmann::json& m,
                                                  const std::string& path) {
  if (!m.is_object()) {
    throw StateDictError(key_where(path, kMetadataKey) + "is a JSON " + m.type_name() +
                         ", not a string-to-string map");
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : m.items()) {
    if (!v.is_string()) {
      throw StateDictError(key_where(path, kMetadataKey) + "the value of '" + k + "' is a JSON " +
                           v.type_name() + ", not a string");
    }
    out[k] = v.get<std::string>();
  }
  return out;
}

// The reference reader's rule (Metadata::validate, then the buffer-length check): sorted by offset,
// each tensor starts where the previous one ended, beginning at 0 and ending at the data region's
// end, so every byte belongs to exactly one tensor.
void check_coverage(std::vector<Entry>& entries, uint64_t data_bytes, const std::string& path) {
  for (const auto& e : entries) {
    if (e.end > data_bytes) {
      throw StateDictError(key_where(path, e.name) + "data_offsets [" + std::to_string(e.begin) +
                           ", " + std::to_string(e.end) + "] reach past the data region's " +
                           std::to_string(data_bytes) + " bytes");
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.header_index) < std::tie(b.begin, b.end, b.header_index);
  });
  uint64_t expected = 0;
  const Entry* previous = nullptr;
  for (const auto& e : entries) {
    if (e.begin != expected) {
      const std::string after =
          previous ? "'" + previous->name + "'" : "the start of the data region";
      throw StateDictError(
          key_where(path, e.name) + "data_offsets [" + std::to_string(e.begin) + ", " +
          std::to_string(e.end) + "] " +
          (e.begin < expected
               ? "overlap " + after + " (which ends at " + std::to_string(expected) + ")"
               : "leave a gap of " + std::to_string(e.begin - expected) + " bytes after " + after));
    }
    expected = e.end;
    previous = &e;
  }
  if (expected != data_bytes) {
    throw StateDictError(key_where(path, previous ? previous->name : std::string("data region")) +
                         "the tensors end at byte " + std::to_string(expected) +
                         " of a data region of " + std::to_string(data_bytes) +
                         " bytes (trailing bytes belong to no tensor)");
  }
}

// BOOL bytes other than 0 and 1 are not valid C++ bools; refuse them rather than hand them on.
void check_bools(const Entry& e, const unsigned char* data, const std::string& path) {
  for (uint64_t i = 0; i < e.end - e.begin; ++i) {
    if (data[i] > 1) {
      throw StateDictError(key_where(path, e.name) + "BOOL element " + std::to_string(i) + " is " +
                           std::to_string(data[i]) + ", not 0 or 1");
    }
  }
}

at::Tensor make_tensor(const Entry& e, const std::shared_ptr<Mapping>& map, size_t data_start) {
  const auto options = torch::TensorOptions().dtype(e.dtype->type);
  if (e.begin == e.end) return torch::empty(e.shape, options);
  const size_t begin = data_start + e.begin, end = data_start + e.end;
  void* data = map->base() + begin;
  auto view = torch::from_blob(
      data, e.shape, [map, begin, end](void*) { map->release(begin, end); }, options);
  // A misaligned element pointer is undefined behaviour for the kernels that read it.
  if (reinterpret_cast<uintptr_t>(data) % c10::elementSize(e.dtype->type) != 0) return view.clone();
  return view;
}

void write_all(std::ofstream& out, const void* data, size_t n) {
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}
}  // namespace

bool is_safetensors_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  unsigned char head[kLengthBytes + 1] = {};
  in.read(reinterpret_cast<char*>(head), sizeof(head));
  if (static_cast<size_t>(in.gcount()) != sizeof(head)) return false;
  // A header length past the end of the file still says safetensors: a download cut short is
  // then refused as such ("… the file is cut short"), not as "not a zip archive".
  const uint64_t n = read_u64_le(head);
  return n >= kMinHeaderBytes && n <= kSafetensorsMaxHeaderBytes && head[kLengthBytes] == '{';
}

StateDict read_safetensors_file(const std::string& path,
                                std::map<std::string, std::string>* metadata) {
  FileDescriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) {
    throw StateDictError(file_where(path) +
                         (std::filesystem::exists(path) ? "cannot be opened" : "no such file"));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0)
    throw StateDictError(file_where(path) + "cannot be read (fstat failed)");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < kLengthBytes) {
    throw StateDictError(key_where(path, kHeaderLengthKey) + "the file has " +
                         std::to_string(size) + " bytes, fewer than the 8 of the header length");
  }
  // PROT_WRITE with MAP_PRIVATE: tensors stay writable (copy-on-write, the file never changes).
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd, 0);
  if (base == MAP_FAILED) {
    throw StateDictError(file_where(path) + "cannot be mapped (" + std::strerror(errno) + ")");
  }
  auto map = std::make_shared<Mapping>(base, size);

  const uint64_t n = read_u64_le(map->base());
  if (n > kSafetensorsMaxHeaderBytes) {
    throw StateDictError(key_where(path, kHeaderLengthKey) + std::to_string(n) +
                         " bytes exceeds the limit of " +
                         std::to_string(kSafetensorsMaxHeaderBytes));
  }
  if (n > size - kLengthBytes) {
    throw StateDictError(key_where(path, kHeaderLengthKey) + std::to_string(n) +
                         " bytes exceeds the " + std::to_string(size - kLengthBytes) +
                         " bytes after the length field: the file is cut short (an interrupted "
                         "download or copy?)");
  }
  // Top-level keys in header order, and the first repeated one (a JSON object silently keeps
  // only the last of duplicates).
  std::vector<std::string> order;
  std::set<std::string> seen;
  std::string duplicate;
  const auto note_key = [&](int depth, nlohmann::json::parse_event_t event,
                            nlohmann::json& parsed) {
    if (depth == 1 && event == nlohmann::json::parse_event_t::key) {
      auto k = parsed.get<std::string>();
      if (!seen.insert(k).second && duplicate.empty()) duplicate = k;
      order.push_back(std::move(k));
    }
    return true;
  };
  const char* text = reinterpret_cast<const char*>(map->base() + kLengthBytes);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, text + n, note_key);
  } catch (const nlohmann::json::exception& e) {
    throw StateDictError(key_where(path, "header") + "not valid JSON (" + e.what() + ")");
  }
  if (!header.is_object()) {
    throw StateDictError(key_where(path, "header") + "is a JSON " +
                         std::string(header.type_name()) + ", not an object");
  }
  if (!duplicate.empty())
    throw StateDictError(key_where(path, duplicate) + "appears more than once in the header");

  std::vector<Entry> entries;
  std::map<std::string, std::string> meta;
  for (const auto& key : order) {
    if (key == kMetadataKey) {
      meta = parse_metadata(header.at(key), path);
      continue;
    }
    entries.push_back(parse_entry(key, header.at(key), path));
    entries.back().header_index = entries.size() - 1;
  }
  const size_t data_start = kLengthBytes + n;
  check_coverage(entries, size - data_start, path);
  for (const auto& e : entries) {
    if (e.dtype->type == c10::kBool) check_bools(e, map->base() + data_start + e.begin, path);
  }

  StateDict out;
  out.reserve(entries.size());
  for (const auto& e : entries) out.emplace_back(e.name, make_tensor(e, map, data_start));
  if (metadata) *metadata = std::move(meta);
  return out;
}

void write_safetensors_file(const std::string& path, const StateDict& tensors,
                            const std::map<std::string, std::string>& metadata) {
  // The header is spelled by hand (not dumped from a JSON object, which would sort the keys) so
  // that it lists the tensors in the order their bytes follow, as the reference writer does.
  std::string header = "{";
  try {
    if (!metadata.empty())
      header += std::string("\"") + kMetadataKey + "\":" + nlohmann::json(metadata).dump();
  } catch (const nlohmann::json::exception& e) {
    throw StateDictError(key_where(path, kMetadataKey) + "cannot be written as JSON (" + e.what() +
                         ")");
  }
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name == kMetadataKey)
      throw StateDictError(key_where(path, name) + "is reserved for the metadata");
    if (!seen.insert(name).second) throw StateDictError(key_where(path, name) + "duplicate key");
    if (!tensor.defined()) throw StateDictError(key_where(path, name) + "holds no tensor");
    const char* dtype = dtype_name(tensor.scalar_type());
    if (dtype == nullptr) {
      throw StateDictError(key_where(path, name) + "dtype " +
                           std::string(c10::toString(tensor.scalar_type())) +
                           " has no safetensors name here (supported: " + supported_dtypes() + ")");
    }
    const uint64_t bytes = static_cast<uint64_t>(tensor.numel()) * tensor.element_size();
    std::string quoted;
    try {
      quoted = nlohmann::json(name).dump();
    } catch (const nlohmann::json::exception& e) {
      throw StateDictError(key_where(path, name) + "cannot be written as JSON (" + e.what() + ")");
    }
    header += (header.size() > 1 ? "," : "") + quoted + ":{\"dtype\":\"" + dtype +
              "\",\"shape\":" + nlohmann::json(tensor.sizes().vec()).dump() +
              ",\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  header.append((kHeaderAlignment - header.size() % kHeaderAlignment) % kHeaderAlignment, ' ');

  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw StateDictError(file_where(path) + "cannot create " + tmp);
      unsigned char length[kLengthBytes];
      for (size_t i = 0; i < kLengthBytes; ++i)
        length[i] = static_cast<unsigned char>(header.size() >> (8 * i));
      write_all(out, length, kLengthBytes);
      write_all(out, header.data(), header.size());
      for (const auto& [name, tensor] : tensors) {
        if (tensor.numel() == 0) continue;
        // One tensor at a time, so writing costs at most one tensor's copy (for GPU or strided
        // ones).
        const auto t = tensor.detach().to(torch::kCPU).contiguous();
        write_all(out, t.data_ptr(), static_cast<size_t>(t.numel()) * t.element_size());
        if (!out) throw StateDictError(key_where(path, name) + "write failed (" + tmp + ")");
      }
      out.close();
      if (!out) throw StateDictError(file_where(path) + "write failed (" + tmp + ")");
    }
    std::filesystem::rename(tmp, path);  // atomic on one file system
  } catch (const std::filesystem::filesystem_error& e) {
    std::filesystem::remove(tmp, ec);
    throw StateDictError(file_where(path) + "write failed (" + e.what() + ")");
  } catch (...) {
    std::filesystem::remove(tmp, ec);
    throw;
  }
}

}  // namespace hnclip
