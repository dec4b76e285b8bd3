#pragma once
// A double in an error message as the user would have typed it: std::to_string's six fixed
// decimals turned `--gamma -1` into "got -1.000000" and `--data-fraction 1e-9` into
// "got 0.000000", which reads as a value the check should have accepted. Pure function: any
// thread.

#include <string>

namespace hnclip {

// The shortest decimal text that reads back as the same double: "-1", "0.5", "1e-09", "0.1";
// "nan", "inf" and "-inf" for the values that have no digits.
std::string shortest_decimal(double value);

}  // namespace hnclip
