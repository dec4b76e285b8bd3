#include "data/image_file_check.h"

#include <array>
#include <cstring>
#include <fstream>

namespace hnclip {

namespace {

// Enough bytes for every signature below (WebP needs 12: "RIFF" <size> "WEBP").
constexpr size_t kHeaderBytes = 12;

bool starts_with(const std::array<char, kHeaderBytes>& h, size_t n, const char* sig, size_t len) {
  return n >= len && std::memcmp(h.data(), sig, len) == 0;
}

}  // namespace

std::string image_file_problem(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "no image file at " + path.string();
  std::ifstream in(path, std::ios::binary);
  std::array<char, kHeaderBytes> h{};
  in.read(h.data(), h.size());
  const size_t n = static_cast<size_t>(in.gcount());
  if (n == 0) return path.string() + ": empty file, not an image";
  const bool known = starts_with(h, n, "\xFF\xD8\xFF", 3) ||                  // JPEG
                     starts_with(h, n, "\x89PNG\r\n\x1A\n", 8) ||             // PNG
                     starts_with(h, n, "BM", 2) ||                            // BMP
                     (starts_with(h, n, "RIFF", 4) && n >= 12 &&
                      std::memcmp(h.data() + 8, "WEBP", 4) == 0) ||           // WebP
                     starts_with(h, n, "II*\0", 4) || starts_with(h, n, "MM\0*", 4);  // TIFF
  if (!known) return path.string() + ": not a JPEG/PNG/BMP/WebP/TIFF image (unknown file header)";
  return "";
}

}  // namespace hnclip
