#include "data/jpeg_decoder.h"

#include <csetjmp>
#include <cstdio>
#include <memory>
#include <vector>

// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>

#include "data/benchmark.h"

namespace hnclip {

namespace {

// libjpeg reports through these callbacks; error_exit must not return, so it jumps back to
// decode_jpeg_file (the C library cannot unwind a C++ exception).
struct CapturingErrors {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  std::string first_message;  // the first warning or the fatal error, formatted by libjpeg
};

void keep_message(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<CapturingErrors*>(cinfo->err);
  if (!errors->first_message.empty()) return;
  char buffer[JMSG_LENGTH_MAX] = {};
  (*cinfo->err->format_message)(cinfo, buffer);
  errors->first_message = buffer;
}

[[noreturn]] void jump_out(j_common_ptr cinfo) {
  keep_message(cinfo);
  std::longjmp(reinterpret_cast<CapturingErrors*>(cinfo->err)->jump, 1);
}

void on_message(j_common_ptr cinfo, int level) {
  // level -1: a warning (corrupt or truncated data); >= 0: trace output, which is never printed.
  if (level < 0) {
    keep_message(cinfo);
    cinfo->err->num_warnings++;
  }
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// CMYK (as Adobe stores it, inverted) to BGR with the integer rounding cv::imread applies, so
// both decoders give the same pixels: channel = k - ((255 - channel) * k >> 8).
void cmyk_to_bgr(const uint8_t* cmyk, uint8_t* bgr, int width) {
  for (int x = 0; x < width; ++x, cmyk += 4, bgr += 3) {
    const int k = cmyk[3];
    for (int ch = 0; ch < 3; ++ch) {
      bgr[2 - ch] = static_cast<uint8_t>(k - (((255 - cmyk[ch]) * k) >> 8));
    }
  }
}

}  // namespace

cv::Mat decode_jpeg_file(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw DataError(path + ": cannot open image file");

  jpeg_decompress_struct cinfo{};
  CapturingErrors errors{};
  cinfo.err = jpeg_std_error(&errors.pub);
  errors.pub.error_exit = jump_out;
  errors.pub.emit_message = on_message;
  errors.pub.output_message = keep_message;
  cv::Mat image;
  std::vector<uint8_t> cmyk_row;
  // Nothing with a destructor may be created between setjmp and the jump: longjmp skips them.
  if (setjmp(errors.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    throw DataError(path + ": corrupt JPEG: " + errors.first_message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file.get());
  jpeg_read_header(&cinfo, TRUE);
  const bool cmyk = cinfo.num_components == 4;
  cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_BGR;
  jpeg_start_decompress(&cinfo);
  image.create(static_cast<int>(cinfo.output_height), static_cast<int>(cinfo.output_width), CV_8UC3);
  if (cmyk) cmyk_row.resize(static_cast<size_t>(cinfo.output_width) * 4);
  while (cinfo.output_scanline < cinfo.output_height) {
    uint8_t* target = image.ptr<uint8_t>(static_cast<int>(cinfo.output_scanline));
    JSAMPROW row = cmyk ? cmyk_row.data() : target;
    jpeg_read_scanlines(&cinfo, &row, 1);
    if (cmyk) cmyk_to_bgr(cmyk_row.data(), target, static_cast<int>(cinfo.output_width));
  }
  jpeg_finish_decompress(&cinfo);
  const bool warned = errors.pub.num_warnings > 0;
  jpeg_destroy_decompress(&cinfo);
  // A warning means the picture is partly grey fill or garbage: refused, never trained on.
  if (warned) throw DataError(path + ": corrupt JPEG: " + errors.first_message);
  return image;
}

}  // namespace hnclip
