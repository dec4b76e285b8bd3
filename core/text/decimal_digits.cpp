#include "text/decimal_digits.h"

#include <algorithm>

namespace hnclip {

bool is_decimal_digits(const std::string& text, std::size_t max_digits) {
  return !text.empty() && text.size() <= max_digits &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace hnclip
