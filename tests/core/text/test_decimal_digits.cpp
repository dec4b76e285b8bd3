// is_decimal_digits: the one check that says whether a run id, an epoch or a file stem is a
// number. A typo must not read as one, and a number it accepts must convert without throwing.

#include "text/decimal_digits.h"

#include <gtest/gtest.h>

#include <string>

namespace hnclip {
namespace {

TEST(DecimalDigits, OnlyPlainDigitsAreANumber) {
  EXPECT_TRUE(is_decimal_digits("0", kIntDigits));
  EXPECT_TRUE(is_decimal_digits("12", kIntDigits));
  EXPECT_TRUE(is_decimal_digits("007", kIntDigits));  // a file stem "007" is numbered
  for (const char* typo : {"", "2x", "x2", "-1", "+1", " 2", "2 ", "1.5", "1e3", "٣"})
    EXPECT_FALSE(is_decimal_digits(typo, kIntDigits)) << "'" << typo << "'";
}

TEST(DecimalDigits, WhatItAcceptsConvertsWithoutThrowing) {
  const std::string int_max_digits(kIntDigits, '9');
  EXPECT_TRUE(is_decimal_digits(int_max_digits, kIntDigits));
  EXPECT_NO_THROW((void)std::stoi(int_max_digits));
  EXPECT_FALSE(is_decimal_digits(int_max_digits + "9", kIntDigits));  // std::stoi would throw

  const std::string int64_max_digits(kInt64Digits, '9');
  EXPECT_TRUE(is_decimal_digits(int64_max_digits, kInt64Digits));
  EXPECT_NO_THROW((void)std::stoll(int64_max_digits));
  EXPECT_FALSE(is_decimal_digits(int64_max_digits + "9", kInt64Digits));
}

}  // namespace
}  // namespace hnclip
