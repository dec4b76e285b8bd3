#include "store/topk_blob.h"

#include "store/little_endian_blob.h"

namespace hnclip {

std::vector<unsigned char> encode_topk(const std::vector<int64_t>& ids) { return encode_int64_blob(ids); }

std::vector<int64_t> decode_topk(const std::vector<unsigned char>& blob, const std::string& context) {
  return decode_int64_blob(blob, context + " (top-k)");
}

}  // namespace hnclip
