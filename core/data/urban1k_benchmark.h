#pragma once
// Urban-1K (the Long-CLIP authors' long-caption retrieval set, huggingface.co/datasets/
// BeichenZhang/Urban1k) as released:
//
//   <root>/image/<n>.jpg       1000 images
//   <root>/caption/<n>.txt     the caption of image <n>: its first line
//
// A test-only benchmark: one split, `test`, ordered by <n> (numerically where <n> is a number).
// Asking for any other split (e.g. to train on it) throws a DataError that says Urban-1K is
// evaluation-only. Image files are those with a .jpg/.jpeg/.png extension (hidden files are
// ignored, any other file is a problem).
//
// Everything is validated when opened and every problem reported (see DataProblems): an image
// without a caption file, a caption file without an image, an empty first line
// ("<file>:1: empty caption"), and image files that are not images (only their first bytes are
// read). Immutable once opened; const methods may be called from any thread.

#include <memory>
#include <string>

#include "data/benchmark.h"
#include "data/image_file_check.h"

namespace hnclip {

// name() is "urban1k". Throws DataError.
// Images are checked with `checks` (data/image_file_check.h) against the given root.
std::unique_ptr<Benchmark> open_urban1k_benchmark(const std::string& root,
                                                  const ImageChecks& checks = {});

}  // namespace hnclip
