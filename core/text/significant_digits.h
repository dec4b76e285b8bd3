#pragma once
// Numbers in progress lines keep their width: "%.3g" printed a gradient norm of 19.0 as "19"
// beside "19.5" and "20" beside "17.6", so one line of the README's demo read as if it had lost a
// digit. Pure function: any thread.

#include <string>

namespace hnclip {

// `value` with three significant digits that all show: "19.0", "19.5", "2.00", "0.100",
// "0.00344", "123", "1.23e+03", "1.50e-05"; "nan" and "inf" as printf writes them.
std::string three_significant_digits(double value);

}  // namespace hnclip
