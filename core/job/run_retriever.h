#pragma once
// RunRetriever: one stored run's evaluated checkpoint, ready to answer retrieval queries on its
// test split — the model loaded once and kept, the split's image and caption embeddings read from
// the cache file (job/split_embeddings_file.h) or computed and cached. It answers ad-hoc text
// queries (a typed caption encoded with the checkpoint, scored against the cached image
// embeddings) and the top-k with scores of a stored query (beyond the 10 ids the store keeps).
// Plain C++ header (no LibTorch, no Qt): the Retrieval tab holds it.
// Threading: open() is slow (seconds to minutes) and belongs on a worker thread; afterwards every
// method may be called from any thread (ad-hoc encoding is serialised internally).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "job/split_embeddings_file.h"

namespace hnclip {

// open() was cancelled through its flag.
class RetrievalCancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunRetrieverOptions {
  std::string database;
  std::string cache_dir;       // benchmark cache and the split-embeddings folder
  int64_t run_id = 0;
  // -1: the run's best epoch (else its last checkpoint); 0: its starting model (its --init, or
  // its seed's random weights), which has no checkpoint of its own.
  int epoch = -1;
  std::string device = "cpu";  // auto | cpu | cuda[:N]
  int64_t batch_size = 128;    // images/captions encoded at once when the cache is cold
  int loader_workers = 1;
};

// done/total counts encoded images + captions; message says what is happening.
using RetrievalProgress = std::function<void(int64_t done, int64_t total, const std::string& message)>;

struct ScoredCandidate {
  int64_t id = 0;     // image index (t2i, ad-hoc) or caption index (i2t) in the split
  float score = 0;    // cosine similarity
};

class RunRetriever {
 public:
  // Throws ConfigError for an unknown run or a missing checkpoint (naming them), the data/model
  // errors of the run's assets, EmbeddingCacheError naming the cache file when an existing cache
  // file is corrupt or contradicts the split (the user deletes it, nothing is overwritten
  // silently), RetrievalCancelled when *cancel turned true (checked between batches).
  static std::unique_ptr<RunRetriever> open(const RunRetrieverOptions& options,
                                            const RetrievalProgress& progress = {},
                                            const std::atomic<bool>* cancel = nullptr);
  ~RunRetriever();
  RunRetriever(const RunRetriever&) = delete;
  RunRetriever& operator=(const RunRetriever&) = delete;

  int64_t run_id() const;
  int epoch() const;
  const std::string& checkpoint_path() const;
  const std::string& cache_file() const;
  bool embeddings_from_cache() const;  // false: computed by open() (and written)
  const SplitEmbeddings& embeddings() const;

  // The checkpoint's L2-normalised text embedding of `text` (dim values).
  std::vector<float> encode_text(const std::string& text) const;
  // The words of `text` the checkpoint's word vocabulary lacks (each encodes as the one unknown
  // token), in order; none for a byte-level BPE tokenizer, which encodes any text.
  std::vector<std::string> unknown_words(const std::string& text) const;
  // Best k images for a typed caption, best first (ties: lower index first).
  std::vector<ScoredCandidate> query_text(const std::string& text, int64_t k) const;
  // Best k candidates of stored query `query` in `direction` ("t2i": caption query against
  // images, "i2t": image query against captions), from the cached embeddings. Throws
  // std::out_of_range for a query index outside the split, std::invalid_argument for another
  // direction.
  std::vector<ScoredCandidate> query_topk(const std::string& direction, int64_t query, int64_t k) const;
  // The k nearest other captions of caption `caption` under this checkpoint (near-twin marks).
  std::vector<ScoredCandidate> caption_neighbors(int64_t caption, int64_t k) const;

 private:
  struct Impl;
  explicit RunRetriever(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Best k rows of `candidates` (n × dim, row-major) by dot product with `query` (dim values),
// best first, ties broken by lower index; `skip` (>= 0) is left out. Plain loops: the reference
// the tests compare against and what the small per-query scorings use.
std::vector<ScoredCandidate> top_k_by_dot(const float* query, const float* candidates, int64_t n, int64_t dim,
                                          int64_t k, int64_t skip = -1);

}  // namespace hnclip
