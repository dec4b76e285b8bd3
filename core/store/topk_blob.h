#pragma once
// The on-disk form of a query's top-k candidate ids: consecutive little-endian int64 values,
// best first. Written byte by byte so the file reads the same on any host.

#include <cstdint>
#include <string>
#include <vector>

namespace hnclip {

std::vector<unsigned char> encode_topk(const std::vector<int64_t>& ids);
// Throws StoreError (mentioning `context`) if the size is not a multiple of 8 bytes.
std::vector<int64_t> decode_topk(const std::vector<unsigned char>& blob, const std::string& context);

}  // namespace hnclip
