// shortest_decimal: a flag's value in an error message as typed, not std::to_string's six fixed
// decimals ("got -1.000000", and "got 0.000000" for 1e-9).

#include "text/shortest_decimal.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>

namespace hnclip {
namespace {

TEST(ShortestDecimal, WritesTheValueAsTyped) {
  EXPECT_EQ(shortest_decimal(-1.0), "-1");  // std::to_string: "-1.000000"
  EXPECT_EQ(shortest_decimal(0.5), "0.5");
  EXPECT_EQ(shortest_decimal(1.5), "1.5");
  EXPECT_EQ(shortest_decimal(0.1), "0.1");
  EXPECT_EQ(shortest_decimal(0.0), "0");
  EXPECT_EQ(shortest_decimal(1e-9), "1e-09");  // std::to_string: "0.000000"
  EXPECT_EQ(shortest_decimal(-2.5e-7), "-2.5e-07");
}

TEST(ShortestDecimal, ReadsBackAsTheSameDouble) {
  for (double v : {0.1, 1.0 / 3.0, 2.0 / 3.0, 1e300, 4.9e-324, 123456.789, -0.3}) {
    // strtod, not stod: stod throws on the subnormal, whose reading sets ERANGE.
    EXPECT_EQ(std::strtod(shortest_decimal(v).c_str(), nullptr), v) << shortest_decimal(v);
  }
}

TEST(ShortestDecimal, ValuesWithoutDigitsAreNamed) {
  EXPECT_EQ(shortest_decimal(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(shortest_decimal(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(shortest_decimal(-std::numeric_limits<double>::infinity()), "-inf");
}

}  // namespace
}  // namespace hnclip
