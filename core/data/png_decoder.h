#pragma once
// PNG decoding through libpng directly, with its messages kept — the PNG twin of jpeg_decoder.h.
// OpenCV's PNG reader lets libpng print "libpng error: ..." / "libpng warning: ..." on stderr,
// naming no file. Here an error (a truncated file, a bad CRC, broken compressed data) becomes a
// DataError naming the file; a warning while the pixels are read (their data is damaged) does
// too. Warnings about metadata read before the pixels (an iCCP profile libpng dislikes, an
// unknown ancillary chunk) do not touch the pixels and are dropped, never printed. The pixels are
// the ones cv::imread(IMREAD_COLOR) produces: the same transformations in the same order
// (16 -> 8 bits by stripping, alpha stripped, palette and 1/2/4-bit grey expanded, BGR order).

#include <string>

#include <opencv2/core/mat.hpp>

namespace hnclip {

// 8-bit BGR. Throws DataError "<path>: corrupt PNG: <libpng's message>".
cv::Mat decode_png_file(const std::string& path);

}  // namespace hnclip
