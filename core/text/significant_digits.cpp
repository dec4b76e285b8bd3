#include "text/significant_digits.h"

#include <cmath>
#include <cstdio>

namespace hnclip {

std::string three_significant_digits(double value) {
  char buf[32];
  const double a = std::fabs(value);
  // From 1 up to 1000, fixed decimals: "%#.3g" would keep the zeros but print 123 as "123.".
  // Rounding may carry into a fourth digit (9.996 -> "10.00"), which is still the right number.
  if (std::isfinite(value) && a >= 1 && a < 1000) {
    std::snprintf(buf, sizeof buf, a < 10 ? "%.2f" : a < 100 ? "%.1f" : "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%#.3g", value);  // '#' keeps the trailing zeros
  }
  return buf;
}

}  // namespace hnclip
