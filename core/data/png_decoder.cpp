#include "data/png_decoder.h"

#include <png.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "data/benchmark.h"

namespace hnclip {

namespace {

struct Messages {
  std::string first;        // the first error, or the first warning while reading pixels
  bool reading_pixels = false;
  bool pixels_warned = false;
};

[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  auto* m = static_cast<Messages*>(png_get_error_ptr(png));
  if (m->first.empty()) m->first = message;
  png_longjmp(png, 1);
}

void on_warning(png_structp png, png_const_charp message) {
  auto* m = static_cast<Messages*>(png_get_error_ptr(png));
  if (!m->reading_pixels) return;  // metadata only: the pixels are unaffected
  if (!m->pixels_warned) m->first = message;
  m->pixels_warned = true;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

cv::Mat decode_png_file(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw DataError(path + ": cannot open image file");
  Messages messages;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &messages, on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    throw DataError(path + ": cannot decode PNG (out of memory)");
  }
  cv::Mat image;
  std::vector<png_bytep> rows;
  // Nothing with a destructor may be created between setjmp and the jump: longjmp skips them.
  if (setjmp(png_jmpbuf(png)) != 0) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw DataError(path + ": corrupt PNG: " + messages.first);
  }
  png_init_io(png, file.get());
  png_read_info(png, info);
  const int color_type = png_get_color_type(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  if (bit_depth == 16) png_set_strip_16(png);
  png_set_strip_alpha(png);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if ((color_type & PNG_COLOR_MASK_COLOR) == 0 && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (color_type & PNG_COLOR_MASK_COLOR) {
    png_set_bgr(png);
  } else {
    png_set_gray_to_rgb(png);
  }
  png_set_interlace_handling(png);  // Adam7 files: libpng de-interlaces (as it does for OpenCV)
  png_read_update_info(png, info);
  image.create(static_cast<int>(png_get_image_height(png, info)),
               static_cast<int>(png_get_image_width(png, info)), CV_8UC3);
  rows.resize(static_cast<size_t>(image.rows));
  for (int y = 0; y < image.rows; ++y) rows[static_cast<size_t>(y)] = image.ptr<png_byte>(y);
  messages.reading_pixels = true;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  if (messages.pixels_warned) throw DataError(path + ": corrupt PNG: " + messages.first);
  return image;
}

}  // namespace hnclip
