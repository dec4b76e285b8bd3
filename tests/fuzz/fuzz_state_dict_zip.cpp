// libFuzzer target: reading torch.save archives (magic check, LibTorch's zip reader, the data.pkl
// unpickler over the archive's records) on arbitrary files. StateDictError is the documented
// refusal; anything else is a finding.

#include <cstdint>

#include "fuzz_scratch_dir.h"
#include "model/state_dict_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const hnclip::fuzz::FuzzScratchDir dir;
  const std::string path = dir.write("model.pt", data, size);
  try {
    hnclip::StateDictFileLayout layout;
    const auto tensors = hnclip::read_state_dict_file(path, &layout);
    for (const auto& [name, t] : tensors) (void)t.sum();
  } catch (const hnclip::StateDictError&) {
  }
  return 0;
}
