// three_significant_digits: a progress line's numbers keep three digits ("%.3g" printed 19.0 as
// "19" beside "19.5").

#include "text/significant_digits.h"

#include <gtest/gtest.h>

#include <limits>

namespace hnclip {
namespace {

TEST(SignificantDigits, ThreeDigitsShowWhateverTheValue) {
  EXPECT_EQ(three_significant_digits(19.0), "19.0");  // "%.3g": "19"
  EXPECT_EQ(three_significant_digits(20.0), "20.0");
  EXPECT_EQ(three_significant_digits(19.5), "19.5");
  EXPECT_EQ(three_significant_digits(2.0), "2.00");
  EXPECT_EQ(three_significant_digits(123.4), "123");  // "%#.3g": "123."
  EXPECT_EQ(three_significant_digits(0.1), "0.100");
  EXPECT_EQ(three_significant_digits(0.00344), "0.00344");
  EXPECT_EQ(three_significant_digits(1234.0), "1.23e+03");
  EXPECT_EQ(three_significant_digits(1.5e-5), "1.50e-05");
  EXPECT_EQ(three_significant_digits(0.0), "0.00");
  EXPECT_EQ(three_significant_digits(-19.0), "-19.0");
  EXPECT_EQ(three_significant_digits(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(three_significant_digits(std::numeric_limits<double>::infinity()), "inf");
}

}  // namespace
}  // namespace hnclip
