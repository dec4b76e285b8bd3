#pragma once
// Sample: one image of a benchmark with its caption(s), as listed in a manifest.

#include <string>
#include <vector>

namespace hnclip {

struct Sample {
  std::string image;                  // absolute path of the image file
  std::vector<std::string> captions;  // at least one
  std::string split;                  // "train", "test", "pretrain", ...
  std::string group;                  // near-duplicate family id ("" = none); informational
};

}  // namespace hnclip
