// libFuzzer target: the data.pkl interpreter of torch.save archives on arbitrary pickle programs.
// Storage records come from a fixed in-memory buffer (keys "0".."9"; any other key is refused the
// way a missing record is), so tensor rebuilding with fuzzed offsets, sizes and strides is reached
// without a zip around it. UnpicklingError is the documented refusal; anything else is a finding.

#include <cstdint>
#include <memory>
#include <string>

#include "model/torch_unpickler.h"

namespace {
// Bytes of the storage records "0".."7": a whole number of elements of every dtype (the seeds'
// tensors fit); "8" and "9" have one and two bytes more, so that odd-sized records occur too.
constexpr size_t kRecordBytes = 48;
constexpr size_t kRecordKeys = 10;
constexpr int kFirstOddKey = 8;

std::pair<std::shared_ptr<const void>, size_t> record(const std::string& key) {
  static const auto bytes = std::shared_ptr<const char[]>(new char[kRecordBytes + kRecordKeys]());
  if (key.size() != 1 || key[0] < '0' || key[0] >= static_cast<char>('0' + kRecordKeys)) {
    throw hnclip::UnpicklingError("missing record data/" + key);
  }
  const int k = key[0] - '0';
  return {std::shared_ptr<const void>(bytes, bytes.get()),
          kRecordBytes + static_cast<size_t>(k < kFirstOddKey ? 0 : k - kFirstOddKey + 1)};
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    hnclip::TorchUnpickler unpickler(data, size, record);
    (void)unpickler.load();
  } catch (const hnclip::UnpicklingError&) {
  }
  return 0;
}
