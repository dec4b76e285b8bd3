#include "store/topk_blob.h"

#include "store/run_store.h"

namespace hnclip {

namespace {
constexpr std::size_t kBytesPerId = 8;
}

std::vector<unsigned char> encode_topk(const std::vector<int64_t>& ids) {
  std::vector<unsigned char> blob;
  blob.reserve(ids.size() * kBytesPerId);
  for (const int64_t id : ids) {
    const auto bits = static_cast<uint64_t>(id);
    for (std::size_t b = 0; b < kBytesPerId; ++b) {
      blob.push_back(static_cast<unsigned char>((bits >> (8 * b)) & 0xFFu));
    }
  }
  return blob;
}

std::vector<int64_t> decode_topk(const std::vector<unsigned char>& blob,
                                 const std::string& context) {
  if (blob.size() % kBytesPerId != 0) {
    throw StoreError(context + ": top-k blob of " + std::to_string(blob.size()) +
                     " bytes is not a whole number of int64 ids");
  }
  std::vector<int64_t> ids(blob.size() / kBytesPerId);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    uint64_t bits = 0;
    for (std::size_t b = 0; b < kBytesPerId; ++b) {
      bits |= static_cast<uint64_t>(blob[i * kBytesPerId + b]) << (8 * b);
    }
    ids[i] = static_cast<int64_t>(bits);
  }
  return ids;
}

}  // namespace hnclip
