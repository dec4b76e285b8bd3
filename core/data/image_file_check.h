#pragma once
// Cheap checks that a benchmark's image file is usable, for readers that validate thousands of
// images before anything is recorded: it must be a regular file inside the data root whose first
// bytes are the signature of a format the image pipeline decodes (JPEG, PNG, BMP, WebP, TIFF) and
// whose header declares a size under the pixel limit. Only the header is read, never the pixels,
// so a 15k-image data set is checked in well under a second. Thread-safe.

#include <cstdint>
#include <filesystem>
#include <string>

namespace hnclip {

// Pillow's decompression-bomb threshold (DecompressionBombError above 2 x MAX_IMAGE_PIXELS =
// 2 x 89,478,485), what CLIP's own preprocessing would refuse.
constexpr int64_t kDefaultMaxImagePixels = 178956970;

// What the readers check besides the file's header (TrainConfig keys max_image_pixels and
// allow_outside_root; flags --max-image-pixels and --allow-outside-root).
struct ImageChecks {
  int64_t max_pixels = kDefaultMaxImagePixels;
  bool allow_outside_root = false;
};

struct ImageHeader {
  std::string format;  // "JPEG", "PNG", "BMP", "WebP", "TIFF"
  int64_t width = 0;
  int64_t height = 0;
};

// The format and size a file's header declares. "" in `problem` when it reads, else what is
// wrong, naming the path: "no image file at <path>", "<path>: empty file, not an image",
// "<path>: not a JPEG/PNG/BMP/WebP/TIFF image (unknown file header)", "<path>: truncated PNG
// header", "<path>: PNG without its IEND chunk (truncated file)", ...
ImageHeader read_image_header(const std::filesystem::path& path, std::string* problem);

// "" when the file looks like a decodable image of at most `max_pixels` pixels, else what is
// wrong with it, naming the path (read_image_header's problems, a zero size, or "<path>: 60000 x
// 60000 = 3600000000 pixels is over the limit of 178956970 (--max-image-pixels) ...").
std::string image_file_problem(const std::filesystem::path& path,
                               int64_t max_pixels = kDefaultMaxImagePixels);

// "" when `image` (absolute, lexically normal) lies inside `root` or `allow_outside_root` is set,
// else "<image> is outside the data root <root> (refused unless --allow-outside-root)". Lexical,
// like the paths a manifest writes: a symbolic link inside the root is followed, not refused.
std::string image_path_problem(const std::filesystem::path& root,
                               const std::filesystem::path& image, bool allow_outside_root);

// image_path_problem, then image_file_problem: what every reader asks of an image it lists.
std::string image_problem(const std::filesystem::path& root, const std::filesystem::path& image,
                          const ImageChecks& checks);

// "JPEG", "PNG", "BMP", "WebP", "TIFF" by the file's first bytes alone, "" for anything else:
// the cheap question a decoder asks per image (read_image_header reads further).
std::string image_format(const std::string& path);

}  // namespace hnclip
