#pragma once
// JPEG decoding through libjpeg directly, with its messages kept. OpenCV's JPEG reader lets
// libjpeg print its warnings ("Premature end of JPEG file", "Corrupt JPEG data: N extraneous
// bytes") to stderr, naming no file, and returns the half-decoded picture as if nothing happened
// — so a truncated download was trained on silently. Here every libjpeg warning or error is
// captured and becomes a DataError naming the file. The pixels are the ones cv::imread produces
// (the same library with the same settings: islow DCT, fancy upsampling, BGR output).

#include <string>

#include <opencv2/core/mat.hpp>

namespace hnclip {

// 8-bit BGR, EXIF orientation ignored (as cv::IMREAD_IGNORE_ORIENTATION). Throws DataError
// "<path>: corrupt JPEG: <libjpeg's message>" for any warning or error, and for files libjpeg
// cannot read. CMYK / YCCK files are converted as OpenCV converts them.
cv::Mat decode_jpeg_file(const std::string& path);

}  // namespace hnclip
