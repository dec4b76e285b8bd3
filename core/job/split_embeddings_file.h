#pragma once
// SplitEmbeddings: the L2-normalised image and caption embeddings of one benchmark split under one
// checkpoint, kept as a small binary file in the cache folder so the Retrieval tab encodes a
// split once per checkpoint. The file records the checkpoint it came from (path, size, mtime):
// a checkpoint rewritten in place no longer matches, so the cache is recomputed instead of
// silently serving the old weights' embeddings. (A manifest written again after the file is
// RunRetriever's check: the data set is named here by its path only.)
//
// Layout (all little-endian): magic "HNSPLEMB", u32 version, then length-prefixed (u32) strings
// checkpoint path and dataset key, u64 checkpoint size, i64 checkpoint mtime (ns), i64 images,
// i64 captions, i64 dim, then images×dim and captions×dim float32, row-major.
// Plain C++ (no LibTorch): the GUI reads these values. Threading: free functions, any thread.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip {

// A cache file that cannot be used: missing, truncated, not an embeddings file, a newer version,
// or values that contradict its header. The message names the file.
class EmbeddingCacheError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Identity of a checkpoint file as the cache sees it.
struct CheckpointStamp {
  std::string path;       // absolute
  uint64_t size = 0;
  int64_t mtime_ns = 0;

  // Throws EmbeddingCacheError naming the path when the file does not exist.
  static CheckpointStamp of(const std::string& path);
  bool operator==(const CheckpointStamp& o) const {
    return path == o.path && size == o.size && mtime_ns == o.mtime_ns;
  }
  bool operator!=(const CheckpointStamp& o) const { return !(*this == o); }
};

struct SplitEmbeddings {
  CheckpointStamp checkpoint;
  std::string dataset_key;     // caption_dataset_key(spec, split)
  int64_t num_images = 0;
  int64_t num_captions = 0;
  int64_t dim = 0;
  std::vector<float> images;    // num_images × dim, rows L2-normalised
  std::vector<float> captions;  // num_captions × dim, rows L2-normalised

  const float* image_row(int64_t i) const { return images.data() + i * dim; }
  const float* caption_row(int64_t c) const { return captions.data() + c * dim; }
};

// Where the embeddings of (checkpoint, dataset) live: <cache_dir>/split-embeddings/<hash>.bin,
// the hash taken over the checkpoint's absolute path and the dataset key.
std::string split_embeddings_path(const std::string& cache_dir, const std::string& checkpoint_path,
                                  const std::string& dataset_key);

// Writes atomically (temporary file + rename); creates the folder. Throws EmbeddingCacheError
// naming the file on I/O failure, std::invalid_argument when the vectors do not fit the counts.
void write_split_embeddings(const std::string& file, const SplitEmbeddings& e);

// Throws EmbeddingCacheError naming the file and what is wrong with it.
SplitEmbeddings read_split_embeddings(const std::string& file);

// Only the header (no vectors): whether a cached file still belongs to a checkpoint is decided
// without reading megabytes of floats. Same errors as read_split_embeddings for the header part.
SplitEmbeddings read_split_embeddings_header(const std::string& file);

}  // namespace hnclip
