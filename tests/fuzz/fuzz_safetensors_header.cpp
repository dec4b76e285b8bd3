// libFuzzer target: the safetensors reader (length prefix, JSON header checks, coverage of the
// data region, the mmap'd tensor views) on arbitrary files. StateDictError is the documented
// refusal; anything else (a crash, a sanitizer report, std::bad_alloc) is a finding.

#include <cstdint>

#include "fuzz_scratch_dir.h"
#include "model/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const hnclip::fuzz::FuzzScratchDir dir;
  const std::string path = dir.write("model.safetensors", data, size);
  (void)hnclip::is_safetensors_file(path);
  try {
    std::map<std::string, std::string> metadata;
    const auto tensors = hnclip::read_safetensors_file(path, &metadata);
    // Touch every byte of every view: they must lie inside the mapping.
    for (const auto& [name, t] : tensors) (void)t.sum();
  } catch (const hnclip::StateDictError&) {
  }
  return 0;
}
