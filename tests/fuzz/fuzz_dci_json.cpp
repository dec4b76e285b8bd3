// libFuzzer target: the DCI readers' JSON, each input tried as an annotation (its SAX reader, for
// both `dci` and `long-dci`) and as splits.json, the other file being a valid one. The data folder
// has photos/sa_1.png, so a valid annotation reaches the sample list. DataError is the documented
// refusal; anything else is a finding.

#include <cstdint>
#include <string>

#include "data/benchmark.h"
#include "data/dci_benchmark.h"
#include "fuzz_image_stub.h"
#include "fuzz_scratch_dir.h"

namespace {
constexpr const char* kValidAnnotation =
    R"({"image": "sa_1.png", "short_caption": "a cat", "extra_caption": "on a mat", "mask_data": {}})";
constexpr const char* kValidSplits = R"({"train": ["a.json"], "test": []})";

const hnclip::fuzz::FuzzScratchDir& scratch() {
  static const hnclip::fuzz::FuzzScratchDir dir;
  static const bool photos = [] {
    dir.write("photos/sa_1.png", hnclip::fuzz::kPngStub, sizeof(hnclip::fuzz::kPngStub));
    return true;
  }();
  (void)photos;
  return dir;
}

void open_both(const std::string& root) {
  try {
    const auto dci = hnclip::open_dci_benchmark(root);
    for (const auto& split : dci->splits()) (void)dci->split(split);
  } catch (const hnclip::DataError&) {
  }
  try {
    const auto long_dci = hnclip::open_long_dci_benchmark(root);
    for (const auto& split : long_dci->splits()) (void)long_dci->split(split);
  } catch (const hnclip::DataError&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& dir = scratch();
  const std::string root = dir.root().string();
  dir.write("annotations/a.json", data, size);
  dir.write("splits.json", kValidSplits);
  open_both(root);
  dir.write("annotations/a.json", kValidAnnotation);
  dir.write("splits.json", data, size);
  open_both(root);
  return 0;
}
