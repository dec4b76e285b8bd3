#include "job/split_embeddings_file.h"

#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "store/little_endian_blob.h"
#include "text/fnv1a_hash.h"

namespace hnclip {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'H', 'N', 'S', 'P', 'L', 'E', 'M', 'B'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxStringBytes = 1u << 20;    // a path or key longer than this is corruption
constexpr int64_t kMaxCount = int64_t{1} << 32;   // images, captions or dim beyond this: corruption

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_string(std::string& out, const std::string& s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out += s;
}
// The vectors use the store's little-endian float32 encoding (store/little_endian_blob.h).
void put_floats(std::string& out, const std::vector<float>& v) {
  const auto blob = encode_float32_blob(v);
  out.append(reinterpret_cast<const char*>(blob.data()), blob.size());
}

// Reads from the file's bytes, naming the file and the field when they run out.
class Reader {
 public:
  Reader(const std::string& file, std::string bytes) : file_(file), bytes_(std::move(bytes)) {}
  uint64_t u64(const char* field) {
    need(8, field);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return v;
  }
  uint32_t u32(const char* field) {
    need(4, field);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return v;
  }
  std::string str(const char* field) {
    const uint32_t n = u32(field);
    if (n > kMaxStringBytes) fail(std::string(field) + " is " + std::to_string(n) + " bytes long (corrupt)");
    need(n, field);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<float> floats(int64_t count, const char* field) {
    const size_t n = static_cast<size_t>(count) * 4;
    need(n, field);  // a whole number of floats from here on: decoding cannot fail
    const auto* begin = reinterpret_cast<const unsigned char*>(bytes_.data()) + pos_;
    pos_ += n;
    return decode_float32_blob(std::vector<unsigned char>(begin, begin + n), file_);
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw EmbeddingCacheError("embedding cache " + file_ + ": " + what);
  }

 private:
  void need(size_t n, const char* field) const {
    if (bytes_.size() - pos_ < n) {
      fail(std::string("truncated at ") + field + " (" + std::to_string(bytes_.size()) + " bytes; delete the file to recompute)");
    }
  }
  std::string file_;
  std::string bytes_;
  size_t pos_ = 0;
};

std::string read_bytes(const std::string& file, size_t limit) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw EmbeddingCacheError("embedding cache " + file + ": cannot open");
  std::string bytes;
  if (limit == 0) {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    bytes.resize(limit);
    in.read(bytes.data(), static_cast<std::streamsize>(limit));
    bytes.resize(static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) throw EmbeddingCacheError("embedding cache " + file + ": I/O error while reading");
  return bytes;
}

// Header fields in file order; leaves the reader at the first float.
SplitEmbeddings read_header(Reader& r, const std::string& bytes_prefix) {
  if (bytes_prefix.size() < sizeof kMagic || std::memcmp(bytes_prefix.data(), kMagic, sizeof kMagic) != 0) {
    r.fail("not an embeddings cache file (bad magic; delete the file to recompute)");
  }
  r.u64("magic");
  const uint32_t version = r.u32("version");
  if (version != kVersion) {
    r.fail("format version " + std::to_string(version) + ", this program reads version " + std::to_string(kVersion));
  }
  SplitEmbeddings e;
  e.checkpoint.path = r.str("checkpoint path");
  e.dataset_key = r.str("dataset key");
  e.checkpoint.size = r.u64("checkpoint size");
  e.checkpoint.mtime_ns = static_cast<int64_t>(r.u64("checkpoint mtime"));
  e.num_images = static_cast<int64_t>(r.u64("image count"));
  e.num_captions = static_cast<int64_t>(r.u64("caption count"));
  e.dim = static_cast<int64_t>(r.u64("dimension"));
  for (const auto& [value, name] : {std::pair{e.num_images, "image count"}, std::pair{e.num_captions, "caption count"},
                                    std::pair{e.dim, "dimension"}}) {
    if (value < 0 || value > kMaxCount) r.fail(std::string(name) + " " + std::to_string(value) + " is out of range (corrupt)");
  }
  if (e.dim == 0 && e.num_images + e.num_captions > 0) r.fail("dimension 0 with vectors present (corrupt)");
  return e;
}

}  // namespace

CheckpointStamp CheckpointStamp::of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw EmbeddingCacheError("checkpoint " + path + ": no such file");
  CheckpointStamp s;
  std::error_code ec;
  const auto abs = fs::absolute(path, ec);
  s.path = ec ? path : abs.lexically_normal().string();
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return s;
}

std::string split_embeddings_path(const std::string& cache_dir, const std::string& checkpoint_path,
                                  const std::string& dataset_key) {
  std::error_code ec;
  const auto abs = fs::absolute(checkpoint_path, ec);
  const std::string key = (ec ? checkpoint_path : abs.lexically_normal().string()) + '\n' + dataset_key;
  return (fs::path(cache_dir) / "split-embeddings" / (Fnv1aHash().add(key).hex() + ".bin"))
      .string();
}

void write_split_embeddings(const std::string& file, const SplitEmbeddings& e) {
  if (e.images.size() != static_cast<size_t>(e.num_images * e.dim) ||
      e.captions.size() != static_cast<size_t>(e.num_captions * e.dim)) {
    throw std::invalid_argument("write_split_embeddings: vectors do not fit " + std::to_string(e.num_images) +
                                " images / " + std::to_string(e.num_captions) + " captions of dimension " +
                                std::to_string(e.dim));
  }
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, kVersion);
  put_string(out, e.checkpoint.path);
  put_string(out, e.dataset_key);
  put_u64(out, e.checkpoint.size);
  put_u64(out, static_cast<uint64_t>(e.checkpoint.mtime_ns));
  put_u64(out, static_cast<uint64_t>(e.num_images));
  put_u64(out, static_cast<uint64_t>(e.num_captions));
  put_u64(out, static_cast<uint64_t>(e.dim));
  put_floats(out, e.images);
  put_floats(out, e.captions);

  std::error_code ec;
  const fs::path target(file);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw EmbeddingCacheError("embedding cache " + file + ": cannot create its folder: " + ec.message());
  const std::string tmp = file + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    if (!o) throw EmbeddingCacheError("embedding cache " + file + ": cannot write " + tmp);
    o.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!o) throw EmbeddingCacheError("embedding cache " + file + ": write failed (disk full?)");
  }
  fs::rename(tmp, target, ec);
  if (ec) throw EmbeddingCacheError("embedding cache " + file + ": cannot rename " + tmp + ": " + ec.message());
}

SplitEmbeddings read_split_embeddings_header(const std::string& file) {
  // The header is at most a few kilobytes unless the strings are huge: read those bytes only.
  std::string bytes = read_bytes(file, 64 + 2 * (kMaxStringBytes + 4));
  const std::string prefix = bytes.substr(0, sizeof kMagic);
  Reader r(file, std::move(bytes));
  return read_header(r, prefix);
}

SplitEmbeddings read_split_embeddings(const std::string& file) {
  std::string bytes = read_bytes(file, 0);
  const std::string prefix = bytes.substr(0, sizeof kMagic);
  Reader r(file, std::move(bytes));
  SplitEmbeddings e = read_header(r, prefix);
  e.images = r.floats(e.num_images * e.dim, "image vectors");
  e.captions = r.floats(e.num_captions * e.dim, "caption vectors");
  if (r.remaining() != 0) {
    r.fail(std::to_string(r.remaining()) + " bytes after the last vector (header and size disagree; delete the file to recompute)");
  }
  return e;
}

}  // namespace hnclip
