#pragma once
// ListedBenchmark: a benchmark whose samples were all read and validated when it was opened; it
// only hands out copies of its split lists. Every file-based reader (manifest, DOCCI, DCI,
// Long-DCI, Urban-1K) builds one. Immutable after construction, so its const methods may be
// called from any thread.

#include <map>
#include <string>
#include <vector>

#include "data/benchmark.h"

namespace hnclip {

class ListedBenchmark : public Benchmark {
 public:
  // `split_names` in the order splits() lists them; each must be a key of `samples`.
  // `missing_split_hint`, if not empty, ends the message of an unknown split (e.g. why a
  // test-only benchmark has no training split).
  ListedBenchmark(std::string name, std::string root, std::vector<std::string> split_names,
                  std::map<std::string, std::vector<Sample>> samples,
                  std::string missing_split_hint = "");

  std::string name() const override { return name_; }
  std::string root() const override { return root_; }
  std::vector<std::string> splits() const override { return split_names_; }
  // Throws DataError "benchmark '<name>': unknown split '<x>' (it has: ...)[; hint]".
  std::vector<Sample> split(const std::string& name) const override;

 private:
  std::string name_;
  std::string root_;
  std::vector<std::string> split_names_;
  std::map<std::string, std::vector<Sample>> samples_;
  std::string missing_split_hint_;
};

}  // namespace hnclip
