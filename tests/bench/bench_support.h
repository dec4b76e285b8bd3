#pragma once
// What the benchmark programs of tests/bench share: running a peer (a Python script, or the
// program itself as a child) and collecting its output, and the median and mean of repeated
// timings.
// Header-only: each benchmark is one .cpp linked with one core library (tests/CMakeLists.txt).

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip::bench {

// `s` as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `cmd` with the shell and returns its standard output and error; throws, with that output,
// when it exits non-zero (a peer that failed is never read as a result).
inline std::string command_output(const std::string& cmd) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  if (::pclose(p) != 0) throw std::runtime_error(cmd + " failed:\n" + out);
  return out;
}

// Mean of the middle two for an even count; NaN-free input, at least one value.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The arithmetic mean; at least one value. (Where a rare costly step must count — one probed
// step in five — the median would hide it.)
inline double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace hnclip::bench
