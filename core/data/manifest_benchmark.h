#pragma once
// Manifest benchmark: a user's own data set described by one manifest file, either
//
//   JSON Lines (.jsonl), one object per line:
//     {"image": "img/0001.png", "captions": ["...", "..."], "split": "train", "group": "g7"}
//     ("caption": "..." instead of "captions"; "group" optional; no other keys)
//   CSV (.csv, RFC 4180 quoting, header row):
//     image,caption,split[,group]     columns in any order, no others; rows with the same image
//                                     and split add captions to that image
//
// Image paths are relative to the manifest's folder (the data root); a path that leaves it
// (`../`, or absolute elsewhere) is refused unless ImageChecks::allow_outside_root. Everything is
// validated when the manifest is opened — every image's header is read (exists, is an image by
// its content, a size under the pixel limit; never decoded): the first problem throws a
// DataError "<manifest>:<line>: <key or column>: <what>". Blank lines are skipped. The benchmark
// holds the sample list only (paths and captions), never pixels; it is immutable once opened, so
// its const methods may be called from any thread.

#include <memory>
#include <string>

#include "data/benchmark.h"
#include "data/image_file_check.h"

namespace hnclip {

// Reads and validates a .jsonl or .csv manifest (chosen by extension); `name` is what name()
// returns. Throws DataError on any problem, including an unknown extension.
std::unique_ptr<Benchmark> open_manifest_benchmark(const std::string& manifest_path,
                                                   const std::string& name,
                                                   const ImageChecks& checks = {});

}  // namespace hnclip
