#include "text/caption_lines_file.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hnclip {

namespace {
constexpr const char* kKeyDescription = "description";  // DOCCI
constexpr const char* kKeyCaption = "caption";          // workbench manifests, one caption
constexpr const char* kKeyCaptions = "captions";        // ... or several for one image

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::vector<std::string> read_caption_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("caption file " + path + ": cannot open the file");
  const bool json_lines = ends_with(path, ".jsonl") || ends_with(path, ".jsonlines");
  std::vector<std::string> captions;
  std::string line;
  for (int64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files: the line ends there
    if (line.empty()) continue;
    if (!json_lines) {
      captions.push_back(line);
      continue;
    }
    const auto where = "caption file " + path + ": line " + std::to_string(line_no);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      // Not only parse_error: a number too large for a double ("1e999") is an out_of_range.
      throw std::runtime_error(where + ": not JSON (" + e.what() + ")");
    }
    if (!j.is_object()) throw std::runtime_error(where + ": expected a JSON object");
    const auto many = j.find(kKeyCaptions);
    if (many != j.end() && many->is_array()) {
      for (const auto& c : *many) {
        if (!c.is_string()) {
          throw std::runtime_error(where + ": key \"" + kKeyCaptions + "\" must hold strings");
        }
        captions.push_back(c.get<std::string>());
      }
      continue;
    }
    const char* key = j.contains(kKeyDescription) ? kKeyDescription : kKeyCaption;
    const auto it = j.find(key);
    if (it == j.end() || !it->is_string()) {
      throw std::runtime_error(where + ": key \"" + kKeyDescription + "\", \"" + kKeyCaption +
                               "\" or \"" + kKeyCaptions + "\" must hold the caption(s)");
    }
    captions.push_back(it->get<std::string>());
  }
  if (in.bad()) throw std::runtime_error("caption file " + path + ": read error");
  return captions;
}

}  // namespace hnclip
