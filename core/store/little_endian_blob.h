#pragma once
// Arrays stored as SQLite BLOBs in a fixed byte order (little-endian), written byte by byte so a
// database reads the same on any host: int64 ids and IEEE-754 float32 matrices.

#include <cstdint>
#include <string>
#include <vector>

namespace hnclip {

std::vector<unsigned char> encode_int64_blob(const std::vector<int64_t>& values);
std::vector<unsigned char> encode_float32_blob(const std::vector<float>& values);
// Throw StoreError (mentioning `context`) if the size is not a whole number of values.
std::vector<int64_t> decode_int64_blob(const std::vector<unsigned char>& blob, const std::string& context);
std::vector<float> decode_float32_blob(const std::vector<unsigned char>& blob, const std::string& context);

}  // namespace hnclip
