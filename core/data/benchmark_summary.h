#pragma once
// What a benchmark holds, split by split, as stored with a run (runs.data_summary_json) and
// printed when a run starts:
//   {"benchmark": "docci", "root": "/data/docci",
//    "splits": {"train": {"images": 9647, "captions": 9647, "fingerprint": "3f…"}, ...}}
// A split's fingerprint is FNV-1a over its samples in order: each image's path relative to the
// root and its captions. It tells a run's split from the one a rewritten manifest holds now (the
// same path, other captions or images), not an image file rewritten in place.
// Thread-safe (reads the benchmark's const methods only).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/benchmark.h"

namespace hnclip {

nlohmann::json benchmark_summary(const Benchmark& benchmark);

// One split's entry of that summary, from its samples and the benchmark's root:
// {"images": N, "captions": M, "fingerprint": "…"} (what SplitCatalog holders compare).
nlohmann::json split_summary(const std::vector<Sample>& samples, const std::string& root);

// One line for people: "docci at /data/docci: train 9647 images, 9647 captions; test ...".
std::string describe_benchmark_summary(const nlohmann::json& summary);

// How split `split` of summary `now` differs from the same split in `stored` (a run's summary),
// for a sentence: "holds 70 images, 70 captions, not the 142 images, 142 captions it held", or
// "holds other images or captions (the same counts)". Empty when they agree, and when `stored`
// cannot say (a summary of a run recorded before fingerprints is compared by its counts only; one
// without the split, by nothing).
std::string split_difference(const nlohmann::json& stored, const nlohmann::json& now,
                             const std::string& split);

// Image files a run's held-out split shares with another of its splits (a manifest may list one
// file under two), kept in the run's summary so that `show`, `runs` and the Runs tab say it long
// after the run started: summary["shared_images"][split][other split] = count of split's images
// that are also other split's. A count of 0 is not stored.
void set_shared_image_count(nlohmann::json& summary, const std::string& split,
                            const std::string& other, int64_t count);
// That count; 0 when the summary holds none (also for runs recorded before it was kept).
int64_t shared_image_count(const nlohmann::json& summary, const std::string& split,
                           const std::string& other);
// The number of images of split `split` in the summary; 0 when it has no such split.
int64_t split_image_count(const nlohmann::json& summary, const std::string& split);

}  // namespace hnclip
