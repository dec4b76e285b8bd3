#include "model/zip_end_record.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string_view>
#include <vector>

namespace hnclip {

namespace {
constexpr std::string_view kEndSignature("PK\x05\x06", 4);
constexpr std::streamoff kEndRecordBytes = 22;
constexpr std::streamoff kMaxCommentBytes = 65535;
}  // namespace

bool has_zip_end_record(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const std::streamoff size = in.tellg();
  const std::streamoff tail = std::min<std::streamoff>(size, kEndRecordBytes + kMaxCommentBytes);
  if (tail < kEndRecordBytes) return false;
  std::vector<char> bytes(static_cast<size_t>(tail));
  in.seekg(size - tail);
  if (!in.read(bytes.data(), tail)) return false;
  return std::string_view(bytes.data(), bytes.size()).rfind(kEndSignature) !=
         std::string_view::npos;
}

}  // namespace hnclip
