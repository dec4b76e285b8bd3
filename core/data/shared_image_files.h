#pragma once
// Images that two splits share: a test or validation image that is also a training image makes
// its recall a measure of memory, not of retrieval, and nothing else says so (a manifest that
// lists one file under two splits is accepted, as is one split serving as both). Plain C++; any
// thread.

#include <string>
#include <vector>

#include "data/sample.h"

namespace hnclip {

class SplitData;  // data/split_data.h (LibTorch): declared only, so the GUI may include this file

// The image file of each sample, in order (what shared_image_files compares).
std::vector<std::string> image_files(const std::vector<Sample>& samples);
// The same for a split opened for training or evaluation.
std::vector<std::string> image_files(const SplitData& data);

// The files of `split_images` that are also files of `other_images`, in `split_images`' order
// (each once). Compared as canonical paths, so "a/../b.png", "./b.png" and a symbolic link all
// name the file they point to; a path that cannot be resolved is compared as written.
std::vector<std::string> shared_image_files(const std::vector<std::string>& split_images,
                                            const std::vector<std::string>& other_images);

}  // namespace hnclip
