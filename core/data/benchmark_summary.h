#pragma once
// What a benchmark holds, split by split, as stored with a run (runs.data_summary_json) and
// printed when a run starts:
//   {"benchmark": "docci", "root": "/data/docci",
//    "splits": {"train": {"images": 9647, "captions": 9647}, "test": {...}, ...}}
// Thread-safe (reads the benchmark's const methods only).

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "data/benchmark.h"

namespace hnclip {

nlohmann::json benchmark_summary(const Benchmark& benchmark);

// One line for people: "docci at /data/docci: train 9647 images, 9647 captions; test ...".
std::string describe_benchmark_summary(const nlohmann::json& summary);

}  // namespace hnclip
