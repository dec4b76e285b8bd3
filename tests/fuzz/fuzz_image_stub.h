#pragma once
// The first bytes of a PNG file: what the benchmark readers' image check (data/image_file_check.h)
// reads of an image, so the fuzz targets' image files pass it without real pixels.

#include <cstdint>

namespace hnclip::fuzz {

constexpr uint8_t kPngStub[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                0,    0,   0,   13,  'I',  'H',  'D',  'R'};

}  // namespace hnclip::fuzz
