#include "data/image_file_check.h"

#include <array>
#include <cstring>
#include <fstream>
#include <vector>

namespace hnclip {

namespace {

namespace fs = std::filesystem;

// Enough bytes for every signature and the fixed-place fields (PNG's IHDR ends at byte 24, a
// lossy WebP's frame size at byte 30, a BMP's compression field at byte 34).
constexpr size_t kHeaderBytes = 36;
// How far a JPEG's markers are walked looking for the frame header (SOFn): EXIF thumbnails and
// ICC profiles come first and can be large, but never this large in a real photograph.
constexpr int64_t kJpegScanLimit = int64_t{16} << 20;
// Where the end of a PNG is looked for: the IEND chunk is the last 12 bytes, some writers add a
// little padding after it.
constexpr int64_t kPngTailBytes = 4096;

uint32_t be16(const unsigned char* p) { return (uint32_t{p[0]} << 8) | p[1]; }
uint32_t be32(const unsigned char* p) { return (be16(p) << 16) | be16(p + 2); }
uint32_t le16(const unsigned char* p) { return (uint32_t{p[1]} << 8) | p[0]; }
uint32_t le24(const unsigned char* p) { return (uint32_t{p[2]} << 16) | le16(p); }
uint32_t le32(const unsigned char* p) { return (uint32_t{p[3]} << 24) | le24(p); }

bool starts_with(const unsigned char* h, size_t n, const char* sig, size_t len) {
  return n >= len && std::memcmp(h, sig, len) == 0;
}

std::vector<unsigned char> read_at(std::ifstream& in, int64_t offset, size_t length) {
  std::vector<unsigned char> out(length);
  in.clear();
  in.seekg(offset);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(length));
  out.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

// Walks the marker segments to the first frame header; false when the file ends first.
bool jpeg_size(std::ifstream& in, int64_t file_size, ImageHeader& h) {
  int64_t at = 2;
  while (at + 4 <= file_size && at < kJpegScanLimit) {
    const auto m = read_at(in, at, 4);
    if (m.size() < 4) return false;
    if (m[0] != 0xFF) return false;
    const unsigned marker = m[1];
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // no length field
      at += 2;
      continue;
    }
    const bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
                       marker != 0xCC;
    if (frame) {
      const auto f = read_at(in, at + 4, 5);  // precision, height, width
      if (f.size() < 5) return false;
      h.height = be16(f.data() + 1);
      h.width = be16(f.data() + 3);
      return true;
    }
    if (marker == 0xD9 || marker == 0xDA) return false;  // end, or scan data before any frame
    at += 2 + be16(m.data() + 2);
  }
  return false;
}

bool png_has_end(std::ifstream& in, int64_t file_size) {
  const int64_t start = std::max<int64_t>(0, file_size - kPngTailBytes);
  const auto tail = read_at(in, start, static_cast<size_t>(file_size - start));
  static const unsigned char kIend[] = {'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
  for (size_t i = 0; i + sizeof(kIend) <= tail.size(); ++i) {
    if (std::memcmp(tail.data() + i, kIend, sizeof(kIend)) == 0) return true;
  }
  return false;
}

// The size from the first directory, and whether every strip (or tile) it lists lies inside the
// file: OpenCV reads a truncated TIFF only to fail inside libtiff, printing on stderr.
enum class TiffRead { kOk, kNoSize, kTruncated };
TiffRead tiff_header(std::ifstream& in, bool little, int64_t file_size, ImageHeader& h) {
  auto u16 = [&](const unsigned char* p) { return little ? le16(p) : be16(p); };
  auto u32 = [&](const unsigned char* p) { return little ? le32(p) : be32(p); };
  const auto head = read_at(in, 4, 4);
  if (head.size() < 4) return TiffRead::kNoSize;
  const int64_t ifd = u32(head.data());
  // libtiff writes the directory after the image data, so a cut file loses it first.
  if (ifd + 2 > file_size) return TiffRead::kTruncated;
  const auto count_bytes = read_at(in, ifd, 2);
  if (count_bytes.size() < 2) return TiffRead::kNoSize;
  const uint32_t count = u16(count_bytes.data());
  if (ifd + 2 + int64_t{count} * 12 > file_size) return TiffRead::kTruncated;
  const auto entries = read_at(in, ifd + 2, static_cast<size_t>(count) * 12);
  // Tag -> its values (SHORT or LONG; inline when they fit in four bytes, else at an offset).
  auto values = [&](const unsigned char* p) {
    const uint32_t type = u16(p + 2), n = u32(p + 4);
    const size_t width = type == 3 ? 2 : 4;
    std::vector<unsigned char> raw;
    if (n * width <= 4) {
      raw.assign(p + 8, p + 8 + n * width);
    } else if (n <= (uint32_t{1} << 20)) {
      raw = read_at(in, u32(p + 8), n * width);
    }
    std::vector<int64_t> out;
    for (size_t k = 0; k + width <= raw.size(); k += width) {
      out.push_back(width == 2 ? u16(raw.data() + k) : u32(raw.data() + k));
    }
    return out;
  };
  std::vector<int64_t> offsets, counts;
  for (size_t e = 0; e + 12 <= entries.size(); e += 12) {
    const unsigned char* p = entries.data() + e;
    const uint32_t tag = u16(p);
    const auto v = values(p);
    if (v.empty()) continue;
    if (tag == 256) h.width = v[0];
    if (tag == 257) h.height = v[0];
    if (tag == 273 || tag == 324) offsets = v;  // StripOffsets / TileOffsets
    if (tag == 279 || tag == 325) counts = v;   // StripByteCounts / TileByteCounts
  }
  if (h.width <= 0 || h.height <= 0) return TiffRead::kNoSize;
  for (size_t i = 0; i < offsets.size() && i < counts.size(); ++i) {
    if (offsets[i] + counts[i] > file_size) return TiffRead::kTruncated;
  }
  return TiffRead::kOk;
}

std::string format_of_signature(const unsigned char* b, size_t n) {
  if (starts_with(b, n, "\xFF\xD8\xFF", 3)) return "JPEG";
  if (starts_with(b, n, "\x89PNG\r\n\x1A\n", 8)) return "PNG";
  if (starts_with(b, n, "BM", 2)) return "BMP";
  if (starts_with(b, n, "RIFF", 4) && n >= 12 && std::memcmp(b + 8, "WEBP", 4) == 0) return "WebP";
  if (starts_with(b, n, "II*\0", 4) || starts_with(b, n, "MM\0*", 4)) return "TIFF";
  return "";
}

}  // namespace

ImageHeader read_image_header(const fs::path& path, std::string* problem) {
  ImageHeader h;
  const std::string name = path.string();
  auto fail = [&](const std::string& what) {
    *problem = what;
    return ImageHeader{};
  };
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return fail("no image file at " + name);
  const auto size = static_cast<int64_t>(fs::file_size(path, ec));
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) return fail(name + ": cannot read the file");
  const auto head = read_at(in, 0, kHeaderBytes);
  const unsigned char* b = head.data();
  const size_t n = head.size();
  if (n == 0) return fail(name + ": empty file, not an image");
  problem->clear();
  h.format = format_of_signature(b, n);
  if (h.format == "JPEG") {
    if (!jpeg_size(in, size, h)) return fail(name + ": JPEG without a frame header (truncated or not a JPEG)");
  } else if (h.format == "PNG") {
    if (n < 24 || std::memcmp(b + 12, "IHDR", 4) != 0) return fail(name + ": truncated PNG header");
    h.width = be32(b + 16);
    h.height = be32(b + 20);
    if (!png_has_end(in, size)) return fail(name + ": PNG without its IEND chunk (truncated file)");
  } else if (h.format == "BMP") {
    if (n < 26) return fail(name + ": truncated BMP header");
    h.width = static_cast<int32_t>(le32(b + 18));
    const int64_t height = static_cast<int32_t>(le32(b + 22));  // negative: stored top-down
    h.height = height < 0 ? -height : height;
    // Uncompressed (BI_RGB) rows are padded to 4 bytes and start at bfOffBits: a shorter file is
    // truncated (OpenCV would fail mid-read, printing on stderr).
    const uint32_t data_offset = le32(b + 10);
    if (n >= 34 && le32(b + 30) == 0 && h.width > 0) {
      const int64_t bits = le16(b + 28);
      const int64_t row = ((h.width * bits + 31) / 32) * 4;
      if (data_offset + row * h.height > size) {
        return fail(name + ": BMP whose pixel rows run past the end of the file (truncated)");
      }
    }
  } else if (h.format == "WebP") {
    if (n < 30) return fail(name + ": truncated WebP header");
    // The RIFF header states the file's length: a shorter file is truncated.
    if (int64_t{le32(b + 4)} + 8 > size) return fail(name + ": WebP shorter than its RIFF header says (truncated)");
    if (std::memcmp(b + 12, "VP8 ", 4) == 0) {
      h.width = le16(b + 26) & 0x3FFF;
      h.height = le16(b + 28) & 0x3FFF;
    } else if (std::memcmp(b + 12, "VP8L", 4) == 0) {
      const uint32_t bits = le32(b + 21);
      h.width = (bits & 0x3FFF) + 1;
      h.height = ((bits >> 14) & 0x3FFF) + 1;
    } else if (std::memcmp(b + 12, "VP8X", 4) == 0) {
      h.width = le24(b + 24) + 1;
      h.height = le24(b + 27) + 1;
    } else {
      return fail(name + ": WebP with an unknown first chunk");
    }
  } else if (h.format == "TIFF") {
    const TiffRead read = tiff_header(in, b[0] == 'I', size, h);
    if (read == TiffRead::kNoSize) return fail(name + ": TIFF without a readable size");
    if (read == TiffRead::kTruncated) {
      return fail(name + ": TIFF whose directory or image data lies past the end of the file (truncated)");
    }
  } else {
    return fail(name + ": not a JPEG/PNG/BMP/WebP/TIFF image (unknown file header)");
  }
  return h;
}

std::string image_file_problem(const fs::path& path, int64_t max_pixels) {
  std::string problem;
  const ImageHeader h = read_image_header(path, &problem);
  if (!problem.empty()) return problem;
  if (h.width <= 0 || h.height <= 0) {
    return path.string() + ": " + h.format + " header declares a size of " +
           std::to_string(h.width) + " x " + std::to_string(h.height) + " pixels";
  }
  const int64_t pixels = h.width * h.height;
  if (pixels > max_pixels) {
    return path.string() + ": " + std::to_string(h.width) + " x " + std::to_string(h.height) +
           " = " + std::to_string(pixels) + " pixels is over the limit of " +
           std::to_string(max_pixels) +
           " (--max-image-pixels; a decompression bomb or a mislabelled file)";
  }
  return "";
}

std::string image_path_problem(const fs::path& root, const fs::path& image,
                               bool allow_outside_root) {
  if (allow_outside_root) return "";
  const fs::path r = fs::absolute(root).lexically_normal();
  const fs::path i = fs::absolute(image).lexically_normal();
  auto ri = r.begin(), ii = i.begin();
  for (; ri != r.end() && !ri->empty(); ++ri, ++ii) {
    if (ii == i.end() || *ri != *ii) {
      return i.string() + " is outside the data root " + r.string() +
             " (refused unless --allow-outside-root)";
    }
  }
  return "";
}

std::string image_problem(const fs::path& root, const fs::path& image, const ImageChecks& checks) {
  std::string problem = image_path_problem(root, image, checks.allow_outside_root);
  return problem.empty() ? image_file_problem(image, checks.max_pixels) : problem;
}

std::string image_format(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char b[12] = {};
  in.read(reinterpret_cast<char*>(b), sizeof b);
  return format_of_signature(b, static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
}

}  // namespace hnclip
