#pragma once
// The compute devices this process can train on, as the --device values that select them
// ("cpu", "cuda:0", ...). A LibTorch-free header so the GUI can grey out what is missing.

#include <string>
#include <vector>

namespace hnclip {

// Always starts with "cpu"; one "cuda:N" per visible CUDA device of a CUDA-enabled build.
std::vector<std::string> available_devices();

}  // namespace hnclip
