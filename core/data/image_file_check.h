#pragma once
// A cheap check that a benchmark's image file is usable, for readers that validate thousands of
// images up front: it must be a regular file whose first bytes are the signature of a format the
// image pipeline decodes (JPEG, PNG, BMP, WebP, TIFF). Only those bytes are read, never the pixels,
// so a 15k-image data set is checked in well under a second. Thread-safe.

#include <filesystem>
#include <string>

namespace hnclip {

// "" when the file looks like an image, else what is wrong with it, naming the path
// ("no image file at <path>", "<path>: empty file", "<path>: not a JPEG/PNG/BMP/WebP/TIFF image").
std::string image_file_problem(const std::filesystem::path& path);

}  // namespace hnclip
