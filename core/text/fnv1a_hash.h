#pragma once
// FNV-1a, 64 bits: a fast, stable fingerprint of bytes (not a cryptographic hash). Stable across
// builds and machines, so it can name cache files and be stored with a run: the split-embeddings
// cache's file names, and a data set split's fingerprint in a run's data summary.
// Feed pieces one after another to hash their concatenation.

#include <cstdint>
#include <string>
#include <string_view>

namespace hnclip {

class Fnv1aHash {
 public:
  Fnv1aHash& add(std::string_view bytes) {
    for (unsigned char c : bytes) value_ = (value_ ^ c) * kPrime;
    return *this;
  }
  uint64_t value() const { return value_; }
  // 16 lowercase hex digits.
  std::string hex() const;

 private:
  static constexpr uint64_t kOffset = 14695981039346656037ull;
  static constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t value_ = kOffset;
};

}  // namespace hnclip
