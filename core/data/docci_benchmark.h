#pragma once
// DOCCI (Descriptions of Connected and Contrasting Images, google.github.io/docci) as released:
//
//   <root>/docci_descriptions.jsonlines   one JSON object per line:
//       {"example_id": "test_01234", "split": "test", "image_file": "test_01234.jpg",
//        "description": "..."}                       (other keys are ignored)
//   <root>/images/<image_file>
//
// `split` is one of train, test, qual_dev, qual_test. The benchmark's splits are
//   train     the records of split train
//   test      the records of splits test and qual_test (in file order), as the paper evaluates
//   qual_dev  the records of split qual_dev
// (a split with no records is not listed). One caption per image: the description.
//
// Everything is validated when the benchmark is opened, and every problem is reported (see
// DataProblems): a line that is not a JSON object ("<file>:<line>: malformed JSON ..."), a missing
// or non-string or empty key ("<file>:<line>: key \"split\": ..."), an unknown split value, a
// repeated example_id, and image files that are missing or are not images (only their first bytes
// are read). Immutable once opened; const methods may be called from any thread.

#include <memory>
#include <string>

#include "data/benchmark.h"
#include "data/image_file_check.h"

namespace hnclip {

// The descriptions file inside a DOCCI root.
constexpr const char* kDocciDescriptionsFile = "docci_descriptions.jsonlines";

// Reads <root>/docci_descriptions.jsonlines; name() is "docci". Throws DataError.
// Images are checked with `checks` (data/image_file_check.h) against the given root.
std::unique_ptr<Benchmark> open_docci_benchmark(const std::string& root,
                                                const ImageChecks& checks = {});

}  // namespace hnclip
