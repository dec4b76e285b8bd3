#include "text/shortest_decimal.h"

#include <charconv>
#include <cmath>

namespace hnclip {

std::string shortest_decimal(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;  // shortest round trip
  return std::string(buf, end);
}

}  // namespace hnclip
