#pragma once
// Caption geometry of a benchmark split under a text encoder (`hnclip stats` / `neighbors`):
// resolves the encoder (a run's best checkpoint, a checkpoint file, or the pretrained starting
// point), checks that its tokenizer fits the benchmark, encodes the split's captions, computes
// the chunked geometry (eval/caption_geometry.h) with each neighbour pair's shared content words,
// and stores it per (dataset key, encoder key), replacing an earlier result. Nothing is stored
// before the inputs have been validated. Threading: one call per thread (it opens its own store).

#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/benchmark_registry.h"
#include "job/training_job.h"
#include "store/caption_geometry_record.h"

namespace hnclip {

struct CaptionGeometryRequest {
  BenchmarkSpec benchmark;     // cache_dir is taken from JobPaths when empty
  std::string split = "test";
  std::string encoder;         // run:ID | ckpt:PATH | init:PATH | "" (= init:pretrained)
  int64_t batch_size = 128;    // B of the in-batch negatives' composition
  int64_t neighbors = 5;       // at least this many neighbours per caption (computed: >= 5)
  bool recompute = false;      // ignore a stored result
  std::string device = "auto";
  int threads = 2;
  // The workbench runs this off the GUI thread: `progress` receives the fraction done (0..1;
  // encoding is the first half, the geometry the second), and `cancel`, when it becomes true, is
  // noticed between encode batches and geometry row chunks (well within a second for small chunks)
  // and ends the call with CaptionGeometryCancelled. Nothing is stored for a cancelled request.
  std::function<void(double)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

// Thrown by caption_geometry_for when request.cancel became true; the store is left unchanged.
class CaptionGeometryCancelled : public std::runtime_error {
 public:
  explicit CaptionGeometryCancelled(const std::string& dataset_label)
      : std::runtime_error("caption geometry of " + dataset_label + ": cancelled, nothing stored") {
  }
};

struct ResolvedEncoder {
  std::string key;         // run:ID@epoch | ckpt:PATH | init:PATH (absolute paths)
  std::string checkpoint;  // the file its weights and tokenizer come from
  // For output: "run 5 (its name), epoch 3", "checkpoint PATH", "starting checkpoint PATH".
  std::string label;
};

struct CaptionGeometryOutcome {
  std::string dataset_key;
  std::string dataset_label;  // caption_dataset_label
  ResolvedEncoder encoder;
  CaptionGeometryRecord record;
  bool computed = false;   // false: read back from the store
};

// benchmark + size + seed + split for the built-in benchmark, manifest path + split otherwise.
std::string caption_dataset_key(const BenchmarkSpec& spec, const std::string& split);
// The same as a person names it: "synthetic default (seed 1) / test".
std::string caption_dataset_label(const BenchmarkSpec& spec, const std::string& split);

// Throws ConfigError naming the flag: an unknown form, a run id that does not exist (or has no
// checkpoint, or no database file at `database`: nothing is created), a checkpoint file that does
// not exist.
ResolvedEncoder resolve_caption_encoder(const std::string& encoder, const std::string& database);

// The stored geometry for the request, computed and stored first when there is none (or when
// request.recompute, or fewer neighbours are stored than asked for). Throws ConfigError when the
// encoder's word tokenizer does not know more than 5% of the split's caption words, naming the
// percentage and the checkpoint. The database file is created only to store a computed result: a
// request refused or cancelled before that leaves none behind.
CaptionGeometryOutcome caption_geometry_for(const CaptionGeometryRequest& request, const JobPaths& paths,
                                            const JobLog& log = {});

}  // namespace hnclip
