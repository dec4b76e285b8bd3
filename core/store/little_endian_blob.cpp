#include "store/little_endian_blob.h"

#include <cstring>

#include "store/store_error.h"

namespace hnclip {

namespace {
template <typename Bits>
void put(std::vector<unsigned char>& blob, Bits bits) {
  for (std::size_t b = 0; b < sizeof(Bits); ++b)
    blob.push_back(static_cast<unsigned char>((bits >> (8 * b)) & 0xFFu));
}

template <typename Bits>
Bits get(const std::vector<unsigned char>& blob, std::size_t index) {
  Bits bits = 0;
  for (std::size_t b = 0; b < sizeof(Bits); ++b) {
    bits |= static_cast<Bits>(blob[index * sizeof(Bits) + b]) << (8 * b);
  }
  return bits;
}

void check_size(const std::vector<unsigned char>& blob, std::size_t width, const char* type,
                const std::string& context) {
  if (blob.size() % width != 0) {
    throw StoreError(context + ": blob of " + std::to_string(blob.size()) +
                     " bytes is not a whole number of " + type + " values");
  }
}
}  // namespace

std::vector<unsigned char> encode_int64_blob(const std::vector<int64_t>& values) {
  std::vector<unsigned char> blob;
  blob.reserve(values.size() * 8);
  for (const int64_t v : values) put(blob, static_cast<uint64_t>(v));
  return blob;
}

std::vector<unsigned char> encode_float32_blob(const std::vector<float>& values) {
  std::vector<unsigned char> blob;
  blob.reserve(values.size() * 4);
  for (const float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    put(blob, bits);
  }
  return blob;
}

std::vector<int64_t> decode_int64_blob(const std::vector<unsigned char>& blob,
                                       const std::string& context) {
  check_size(blob, 8, "int64", context);
  std::vector<int64_t> values(blob.size() / 8);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<int64_t>(get<uint64_t>(blob, i));
  return values;
}

std::vector<float> decode_float32_blob(const std::vector<unsigned char>& blob,
                                       const std::string& context) {
  check_size(blob, 4, "float32", context);
  std::vector<float> values(blob.size() / 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = get<uint32_t>(blob, i);
    std::memcpy(&values[i], &bits, sizeof bits);
  }
  return values;
}

}  // namespace hnclip
