#include "text/fnv1a_hash.h"

namespace hnclip {

std::string Fnv1aHash::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15, shift = 0; i >= 0; --i, shift += 4)
    out[static_cast<size_t>(i)] = kDigits[(value_ >> shift) & 0xf];
  return out;
}

}  // namespace hnclip
