#pragma once
// Benchmark: a named data set whose splits can be listed and read. Readers validate everything up
// front and throw DataError naming the file and line (or JSON key) of a problem: the manifest
// reader stops at the first one; the real-data readers report them all (data/data_problems.h).

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/sample.h"

namespace hnclip {

class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;
  virtual std::string name() const = 0;
  virtual std::string root() const = 0;                 // folder the benchmark was read from
  virtual std::vector<std::string> splits() const = 0;  // in manifest order of first appearance
  // All samples of a split, in manifest order; throws DataError for an unknown split.
  virtual std::vector<Sample> split(const std::string& name) const = 0;
};

}  // namespace hnclip
