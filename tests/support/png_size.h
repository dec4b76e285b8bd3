#pragma once
// Width and height of a PNG file read from its IHDR chunk, for the end-to-end tests that check a
// screenshot the workbench saved (no image library needed in the test).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <utility>

namespace hnclip::test {

// {0, 0} when the file is missing or not a PNG. IHDR's width and height are big-endian at bytes
// 16..23.
inline std::pair<uint32_t, uint32_t> png_size(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  unsigned char h[24] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  if (!in || h[1] != 'P' || h[2] != 'N' || h[3] != 'G') return {0, 0};
  auto be = [&](int o) { return (uint32_t(h[o]) << 24) | (uint32_t(h[o + 1]) << 16) | (uint32_t(h[o + 2]) << 8) | h[o + 3]; };
  return {be(16), be(20)};
}

}  // namespace hnclip::test
