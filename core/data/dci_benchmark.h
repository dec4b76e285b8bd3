#pragma once
// DCI (Densely Captioned Images, github.com/facebookresearch/DCI) as its download script unpacks
// it, and Long-DCI, a retrieval benchmark built from the same files:
//
//   <root>/annotations/<name>.json   one per image, keys (among others, e.g. mask_data):
//       "image": "sa_1234.jpg", "short_caption": "...", "extra_caption": "..."
//   <root>/photos/<image>
//   <root>/splits.json               {"train": ["<name>.json", ...], "valid": [...], "test": [...]}
//
// <root> may also be the folder above it (DCI's data dir, holding densely_captioned_images/). If
// annotations/ is absent, complete/ (what DCI's own loader reads) is used instead.
//
// `dci`: the splits of splits.json, in file order, plus `all` = every listed image in that order
// (the long-caption retrieval protocol that evaluates on all DCI images). One caption per image:
// short_caption + "\n" + extra_caption, as DCI's get_extended_caption() builds it (just
// short_caption when extra_caption is blank).
//
// `long-dci`: TULIP's Long-DCI (the dci_long.csv constructor): every annotations/*.json in file
// name order whose extra_caption is not empty, with extra_caption alone as the caption; a single
// split `test` (it is an evaluation set, so there is no `train`). splits.json is not read.
//
// Everything is validated when opened and every problem reported (see DataProblems): malformed
// JSON ("<file>:<line>: malformed JSON ..."), missing or non-string keys ("<file>: key \"image\":
// ..."), splits.json naming an annotation that does not exist or listing it twice, and images that
// are missing or not images (only their first bytes are read; annotations are parsed without
// building their mask data). Immutable once opened; const methods may be called from any thread.

#include <functional>
#include <memory>
#include <string>

#include "data/benchmark.h"
#include "data/image_file_check.h"

namespace hnclip {

// name() is "dci". Throws DataError.
// Images are checked with `checks` (data/image_file_check.h) against the given root.
std::unique_ptr<Benchmark> open_dci_benchmark(const std::string& root,
                                              const ImageChecks& checks = {});

// name() is "long-dci". `progress`, if set, is told how many annotations were left out for an
// empty extra_caption. Throws DataError.
std::unique_ptr<Benchmark> open_long_dci_benchmark(const std::string& root,
                                                   const std::function<void(const std::string&)>& progress = {},
                                                   const ImageChecks& checks = {});

}  // namespace hnclip
