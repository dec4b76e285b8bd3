#pragma once
// Run ids, epochs and numbered file stems are typed or stored as text. One check says whether such
// text is a number, so that "2x", "-1", " 2" or "" is a typo to report rather than the number 2, 0
// or an exception from std::stoll. Pure function: any thread.

#include <cstddef>
#include <string>

namespace hnclip {

// Digits that fit an int64_t (at most 18 of them: std::stoll of such text cannot throw).
constexpr std::size_t kInt64Digits = 18;
// Digits that fit an int (at most 9: std::stoi of such text cannot throw).
constexpr std::size_t kIntDigits = 9;

// Whether `text` is 1 to `max_digits` ASCII digits and nothing else.
bool is_decimal_digits(const std::string& text, std::size_t max_digits);

}  // namespace hnclip
