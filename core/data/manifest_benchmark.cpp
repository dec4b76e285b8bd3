#include "data/manifest_benchmark.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "data/data_file.h"
#include "data/listed_benchmark.h"

namespace hnclip {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Keys of a JSON Lines record; anything else is rejected so that a misspelt key is not ignored.
constexpr const char* kKeyImage = "image";
constexpr const char* kKeyCaption = "caption";
constexpr const char* kKeyCaptions = "captions";
constexpr const char* kKeySplit = "split";
constexpr const char* kKeyGroup = "group";

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

std::string trimmed(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Whole file as bytes, without a leading UTF-8 byte-order mark.
std::string read_manifest(const std::string& path) { return read_data_file(path, "manifest"); }

// Gathers the samples of one manifest split by split and does the checks that do not depend on
// the file format: image paths resolved and present, duplicates merged or rejected, non-empty
// captions. `field` is how the format names a value in messages: key "x" or column "x".
class SampleCollector {
 public:
  SampleCollector(std::string manifest_path, const std::string& field_kind, bool merge_duplicates,
                  const ImageChecks& checks)
      : path_(std::move(manifest_path)),
        base_dir_(fs::absolute(path_).lexically_normal().parent_path()),
        field_kind_(field_kind),
        merge_duplicates_(merge_duplicates),
        checks_(checks) {}

  [[noreturn]] void fail(int line, const std::string& field, const std::string& what) const {
    std::string message = path_ + ":" + std::to_string(line) + ": ";
    if (!field.empty()) message += field_kind_ + " \"" + field + "\": ";
    throw DataError(message + what);
  }

  // Adds one record: the image, its captions (a non-empty list, named `caption_field` in the
  // file), split and group ("" = none).
  void add(int line, const std::string& image, std::vector<std::string> captions,
           const std::string& caption_field, const std::string& split, const std::string& group) {
    if (image.empty()) fail(line, kKeyImage, "empty image path");
    if (split.empty()) fail(line, kKeySplit, "empty split name");
    for (const auto& c : captions) {
      if (is_blank(c)) fail(line, caption_field, "empty caption");
    }
    const std::string resolved = resolve_image(line, image);

    auto [split_it, new_split] = samples_.try_emplace(split);
    if (new_split) split_names_.push_back(split);
    std::vector<Sample>& list = split_it->second;
    const std::string key = split + '\n' + resolved;
    auto seen = first_seen_.find(key);
    if (seen == first_seen_.end()) {
      first_seen_.emplace(key, std::make_pair(list.size(), line));
      list.push_back(Sample{resolved, std::move(captions), split, group});
      return;
    }
    const auto [index, first_line] = seen->second;
    if (!merge_duplicates_) {
      fail(line, kKeyImage, "'" + image + "' is already listed in split '" + split + "' on line " +
                                std::to_string(first_line));
    }
    Sample& sample = list[index];
    if (!group.empty() && !sample.group.empty() && group != sample.group) {
      fail(line, kKeyGroup, "group '" + group + "' conflicts with group '" + sample.group +
                                "' given for the same image on line " + std::to_string(first_line));
    }
    if (sample.group.empty()) sample.group = group;
    for (auto& c : captions) sample.captions.push_back(std::move(c));
  }

  std::unique_ptr<Benchmark> finish(const std::string& name) {
    if (split_names_.empty()) throw DataError(path_ + ": the manifest lists no samples");
    return std::make_unique<ListedBenchmark>(name, base_dir_.string(), std::move(split_names_),
                                             std::move(samples_));
  }

 private:
  std::string resolve_image(int line, const std::string& image) {
    fs::path p(image);
    if (p.is_relative()) p = base_dir_ / p;
    std::string resolved = p.lexically_normal().string();
    // The header of every image is read here, before any run is recorded, as the DOCCI, DCI and
    // Urban-1K readers do: a zero-byte file or a text file named .png would otherwise fail a
    // run half-way. Each distinct path is checked once.
    auto cached = problem_of_.find(resolved);
    if (cached == problem_of_.end()) {
      cached = problem_of_.emplace(resolved, image_problem(base_dir_, resolved, checks_)).first;
    }
    if (!cached->second.empty()) fail(line, kKeyImage, cached->second);
    return resolved;
  }

  std::string path_;
  fs::path base_dir_;
  std::string field_kind_;
  bool merge_duplicates_;
  ImageChecks checks_;
  std::vector<std::string> split_names_;
  std::map<std::string, std::vector<Sample>> samples_;
  std::unordered_map<std::string, std::pair<size_t, int>> first_seen_;  // split+path -> (index, line)
  std::unordered_map<std::string, std::string> problem_of_;  // image path -> "" or its problem
};

// ---- JSON Lines -------------------------------------------------------------------------------

std::string string_value(const SampleCollector& c, int line, const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) c.fail(line, key, "missing");
  if (!it->is_string()) c.fail(line, key, std::string("must be a string, not ") + it->type_name());
  return it->get<std::string>();
}

std::unique_ptr<Benchmark> read_jsonl(const std::string& path, const std::string& name,
                                      const ImageChecks& checks) {
  const std::string text = read_manifest(path);
  SampleCollector collector(path, "key", /*merge_duplicates=*/false, checks);
  std::istringstream lines(text);
  std::string line_text;
  int line = 0;
  while (std::getline(lines, line_text)) {
    ++line;
    if (!line_text.empty() && line_text.back() == '\r') line_text.pop_back();
    if (is_blank(line_text)) continue;
    json obj;
    try {
      obj = json::parse(line_text);
    } catch (const json::exception& e) {
      // Not only parse_error: a number too large for a double ("1e999") is an out_of_range.
      collector.fail(line, "", std::string("malformed JSON: ") + e.what());
    }
    if (!obj.is_object()) {
      collector.fail(line, "", std::string("expected a JSON object, found ") + obj.type_name());
    }
    for (const auto& item : obj.items()) {
      const std::string& k = item.key();
      if (k != kKeyImage && k != kKeyCaption && k != kKeyCaptions && k != kKeySplit &&
          k != kKeyGroup) {
        collector.fail(line, k, "unknown key (expected image, caption or captions, split, group)");
      }
    }

    const std::string image = string_value(collector, line, obj, kKeyImage);
    std::vector<std::string> captions;
    const char* caption_key = kKeyCaptions;  // the key this record used, for messages
    const bool has_one = obj.contains(kKeyCaption);
    const bool has_many = obj.contains(kKeyCaptions);
    if (has_one && has_many) collector.fail(line, kKeyCaptions, "give either caption or captions");
    if (has_many) {
      const json& list = obj[kKeyCaptions];
      if (!list.is_array() || list.empty()) {
        collector.fail(line, kKeyCaptions, "must be a non-empty array of strings");
      }
      for (const auto& c : list) {
        if (!c.is_string()) {
          collector.fail(line, kKeyCaptions,
                         std::string("must hold strings only, found ") + c.type_name());
        }
        captions.push_back(c.get<std::string>());
      }
    } else if (has_one) {
      captions.push_back(string_value(collector, line, obj, kKeyCaption));
      caption_key = kKeyCaption;
    } else {
      collector.fail(line, kKeyCaptions, "missing (give caption or captions)");
    }
    const std::string split = string_value(collector, line, obj, kKeySplit);
    std::string group;
    if (auto it = obj.find(kKeyGroup); it != obj.end()) {
      // Family ids are often numbers in exported data; accept integers as their decimal text.
      if (it->is_string()) {
        group = it->get<std::string>();
      } else if (it->is_number_integer()) {
        group = std::to_string(it->get<long long>());
      } else {
        collector.fail(line, kKeyGroup,
                       std::string("must be a string or an integer, not ") + it->type_name());
      }
    }
    collector.add(line, image, std::move(captions), caption_key, split, group);
  }
  if (lines.bad()) throw DataError(path + ": cannot read manifest");
  return collector.finish(name);
}

// ---- CSV --------------------------------------------------------------------------------------

// Splits RFC 4180 text into records: comma-separated fields, fields in double quotes may hold
// commas, line breaks and doubled quotes; CRLF or LF line ends. Blank lines are skipped.
class CsvReader {
 public:
  CsvReader(const std::string& text, const SampleCollector& errors) : text_(text), errors_(errors) {}

  // The next record and the line it starts on; false at the end of the text.
  bool next(std::vector<std::string>& fields, int& line) {
    skip_blank_lines();
    if (pos_ >= text_.size()) return false;
    line = line_;
    fields.clear();
    while (true) {
      std::string field;
      bool end_of_record = false;
      if (text_[pos_] == '"') {
        read_quoted(field);
      } else {
        read_unquoted(field);
      }
      if (pos_ >= text_.size()) {
        end_of_record = true;
      } else if (text_[pos_] == ',') {
        ++pos_;
      } else if (text_[pos_] == '\n') {
        ++pos_;
        ++line_;
        end_of_record = true;
      } else if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++line_;
        end_of_record = true;
      } else {
        errors_.fail(line_, "", "malformed CSV: text after a closing quote");
      }
      fields.push_back(std::move(field));
      if (end_of_record) return true;
      if (pos_ >= text_.size()) {  // a trailing comma ends the record with an empty field
        fields.emplace_back();
        return true;
      }
    }
  }

 private:
  void skip_blank_lines() {
    while (pos_ < text_.size()) {
      size_t eol = text_.find('\n', pos_);
      size_t end = eol == std::string::npos ? text_.size() : eol;
      if (!is_blank(std::string_view(text_).substr(pos_, end - pos_))) return;
      pos_ = eol == std::string::npos ? text_.size() : eol + 1;
      if (eol != std::string::npos) ++line_;
    }
  }

  void read_quoted(std::string& field) {
    const int start_line = line_;
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= text_.size()) {
        errors_.fail(start_line, "", "malformed CSV: quoted field is never closed");
      }
      const char c = text_[pos_];
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          field += '"';
          pos_ += 2;
          continue;
        }
        ++pos_;
        return;
      }
      if (c == '\n') ++line_;
      field += c;
      ++pos_;
    }
  }

  void read_unquoted(std::string& field) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ',' || c == '\n') break;
      if (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') break;
      if (c == '"') errors_.fail(line_, "", "malformed CSV: quote inside an unquoted field");
      field += c;
      ++pos_;
    }
  }

  const std::string& text_;
  const SampleCollector& errors_;
  size_t pos_ = 0;
  int line_ = 1;
};

std::unique_ptr<Benchmark> read_csv(const std::string& path, const std::string& name,
                                    const ImageChecks& checks) {
  const std::string text = read_manifest(path);
  SampleCollector collector(path, "column", /*merge_duplicates=*/true, checks);
  CsvReader reader(text, collector);
  std::vector<std::string> fields;
  int line = 0;
  if (!reader.next(fields, line)) collector.fail(1, "", "no header row (image,caption,split[,group])");

  // Column name -> field index; -1 when absent (only "group" may be).
  std::map<std::string, int> column = {
      {kKeyImage, -1}, {kKeyCaption, -1}, {kKeySplit, -1}, {kKeyGroup, -1}};
  const int header_line = line;
  const size_t num_columns = fields.size();
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string col = lowercase(trimmed(fields[i]));
    auto it = column.find(col);
    if (it == column.end()) {
      collector.fail(header_line, fields[i], "unknown column (expected image, caption, split, group)");
    }
    if (it->second >= 0) collector.fail(header_line, col, "column given twice");
    it->second = static_cast<int>(i);
  }
  for (const char* required : {kKeyImage, kKeyCaption, kKeySplit}) {
    if (column[required] < 0) collector.fail(header_line, required, "missing from the header row");
  }

  while (reader.next(fields, line)) {
    if (fields.size() != num_columns) {
      collector.fail(line, "", "expected " + std::to_string(num_columns) + " fields, found " +
                                   std::to_string(fields.size()));
    }
    // Spaces after the separating commas are common in hand-written files and never meaningful.
    auto value = [&](const char* col) {
      const int i = column[col];
      return i < 0 ? std::string() : trimmed(fields[static_cast<size_t>(i)]);
    };
    collector.add(line, value(kKeyImage), {value(kKeyCaption)}, kKeyCaption, value(kKeySplit),
                  value(kKeyGroup));
  }
  return collector.finish(name);
}

}  // namespace

std::unique_ptr<Benchmark> open_manifest_benchmark(const std::string& manifest_path,
                                                   const std::string& name,
                                                   const ImageChecks& checks) {
  const std::string ext = lowercase(fs::path(manifest_path).extension().string());
  if (ext == ".jsonl") return read_jsonl(manifest_path, name, checks);
  if (ext == ".csv") return read_csv(manifest_path, name, checks);
  throw DataError(manifest_path + ": unknown manifest format '" + ext +
                  "' (expected .jsonl or .csv)");
}

}  // namespace hnclip
