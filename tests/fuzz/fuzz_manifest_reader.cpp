// libFuzzer target: the manifest reader, each input read both as a JSON Lines and as a CSV
// manifest (the format is chosen by extension). The manifests sit beside img/a.png and img/b.png,
// so records naming those get past the image check and reach duplicate merging and the split
// lists. DataError is the documented refusal; anything else is a finding.

#include <cstdint>

#include "data/benchmark.h"
#include "data/manifest_benchmark.h"
#include "fuzz_image_stub.h"
#include "fuzz_scratch_dir.h"

namespace {
const hnclip::fuzz::FuzzScratchDir& scratch() {
  static const hnclip::fuzz::FuzzScratchDir dir;
  static const bool images = [] {
    for (const char* name : {"img/a.png", "img/b.png"}) {
      dir.write(name, hnclip::fuzz::kPngStub, sizeof(hnclip::fuzz::kPngStub));
    }
    return true;
  }();
  (void)images;
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& dir = scratch();
  for (const char* name : {"manifest.jsonl", "manifest.csv"}) {
    const std::string path = dir.write(name, data, size);
    try {
      const auto benchmark = hnclip::open_manifest_benchmark(path, "fuzz");
      for (const auto& split : benchmark->splits()) (void)benchmark->split(split);
    } catch (const hnclip::DataError&) {
    }
  }
  return 0;
}
