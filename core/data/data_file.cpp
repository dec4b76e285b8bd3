#include "data/data_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string_view>

#include "data/benchmark.h"

namespace hnclip {

namespace {
// Byte-order mark that spreadsheet programs put at the start of a UTF-8 export.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
}  // namespace

std::string read_data_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw DataError(path.string() + ": cannot read " + what + ": no such file");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in || in.bad()) throw DataError(path.string() + ": cannot read " + what + ": I/O error");
  std::string text = std::move(bytes).str();
  if (text.compare(0, kUtf8Bom.size(), kUtf8Bom) == 0) text.erase(0, kUtf8Bom.size());
  return text;
}

int line_at(const std::string& text, size_t offset) {
  const size_t end = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

std::vector<int> json_object_lines(const std::string& text) {
  std::vector<int> lines;
  int line = 1;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      lines.push_back(line);
    }
  }
  return lines;
}

bool is_blank_text(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

}  // namespace hnclip
