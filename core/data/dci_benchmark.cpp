#include "data/dci_benchmark.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/data_file.h"
#include "data/data_problems.h"
#include "data/image_file_check.h"
#include "data/listed_benchmark.h"

namespace hnclip {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The data folder's parts, as DCI's config.py names them.
constexpr const char* kDataFolder = "densely_captioned_images";
constexpr const char* kAnnotationsDir = "annotations";
constexpr const char* kCompleteDir = "complete";  // DCI's own loader reads this name
constexpr const char* kPhotosDir = "photos";
constexpr const char* kSplitsFile = "splits.json";

// Keys of an annotation the readers use.
constexpr const char* kKeyImage = "image";
constexpr const char* kKeyShort = "short_caption";
constexpr const char* kKeyExtra = "extra_caption";

// Threads that parse annotation files, at most, and the fewest files worth a thread.
constexpr size_t kMaxReaderThreads = 8;
constexpr size_t kFilesPerThread = 64;

// The split that lists every image of splits.json, in its order.
constexpr const char* kAllSplit = "all";

struct DciLayout {
  fs::path base;         // folder holding the parts
  fs::path annotations;  // annotations/ (or complete/)
  fs::path photos;
};

DciLayout locate(const std::string& name, const std::string& root) {
  const fs::path given = fs::absolute(root).lexically_normal();
  std::error_code ec;
  for (const fs::path& base : {given, given / kDataFolder}) {
    for (const char* dir : {kAnnotationsDir, kCompleteDir}) {
      if (fs::is_directory(base / dir, ec)) {
        if (!fs::is_directory(base / kPhotosDir, ec)) {
          throw DataError(name + ": no " + kPhotosDir + "/ folder (the images) in " + base.string());
        }
        return {base, base / dir, base / kPhotosDir};
      }
    }
  }
  throw DataError(name + ": no " + kAnnotationsDir + "/ folder in " + given.string() + " or " +
                  (given / kDataFolder).string() + " (expected DCI's data folder: annotations/, photos/, " +
                  kSplitsFile + ")");
}

struct Annotation {
  std::string image, short_caption, extra_caption;
};

// Reads the three top-level string keys of an annotation without building the rest (mask_data
// holds base64 masks and is most of each file's bytes).
class AnnotationSax : public nlohmann::json_sax<json> {
 public:
  explicit AnnotationSax(Annotation& out) {
    wanted_[kKeyImage] = &out.image;
    wanted_[kKeyShort] = &out.short_caption;
    wanted_[kKeyExtra] = &out.extra_caption;
  }

  bool null() override { return scalar("null"); }
  bool boolean(bool) override { return scalar("boolean"); }
  bool number_integer(number_integer_t) override { return scalar("number"); }
  bool number_unsigned(number_unsigned_t) override { return scalar("number"); }
  bool number_float(number_float_t, const string_t&) override { return scalar("number"); }
  bool binary(binary_t&) override { return scalar("binary"); }
  bool string(string_t& s) override {
    if (depth_ == 0) top_level_ = "string";
    if (depth_ == 1) {
      if (auto it = wanted_.find(key_); it != wanted_.end()) {
        *it->second = s;
        found_[key_] = "string";
      }
    }
    return true;
  }
  bool start_object(std::size_t) override { return open("object"); }
  bool start_array(std::size_t) override { return open("array"); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_position_ = position;
    error_ = e.what();
    return false;
  }

  // What is wrong with the annotation ("" = nothing), given the text it was parsed from.
  std::vector<std::string> problems(const std::string& text) const {
    if (!error_.empty()) {
      return {":" + std::to_string(line_at(text, error_position_ > 0 ? error_position_ - 1 : 0)) +
              ": malformed JSON: " + error_};
    }
    if (top_level_ != "object") return {": expected a JSON object, found " + top_level_};
    std::vector<std::string> out;
    for (const char* k : {kKeyImage, kKeyShort, kKeyExtra}) {
      auto it = found_.find(k);
      if (it == found_.end()) {
        out.push_back(std::string(": key \"") + k + "\": missing");
      } else if (it->second != "string") {
        out.push_back(std::string(": key \"") + k + "\": must be a string, not " + it->second);
      }
    }
    return out;
  }

 private:
  bool scalar(const char* type) {
    if (depth_ == 0) top_level_ = type;
    if (depth_ == 1 && wanted_.count(key_)) found_[key_] = type;
    return true;
  }
  bool open(const char* type) {
    scalar(type);
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  std::map<std::string, std::string*> wanted_;
  std::map<std::string, std::string> found_;  // wanted key -> JSON type seen
  std::string key_;                            // current key of the top-level object
  std::string top_level_;                      // JSON type of the whole document
  int depth_ = 0;
  std::size_t error_position_ = 0;
  std::string error_;
};

struct ParsedAnnotation {
  Annotation annotation;
  std::vector<std::string> problems;  // empty = usable
};

ParsedAnnotation read_annotation(const fs::path& file) {
  ParsedAnnotation out;
  try {
    const std::string text = read_data_file(file, "DCI annotation");
    AnnotationSax sax(out.annotation);
    json::sax_parse(text, &sax, json::input_format_t::json, /*strict=*/true);
    for (const auto& p : sax.problems(text)) out.problems.push_back(file.string() + p);
  } catch (const std::exception& e) {  // unreadable file (DataError) or out of memory
    out.problems.push_back(e.what());
  }
  return out;
}

// Parses the annotation files on several threads (their JSON is most of the reading time; DCI
// has ~7.8k of them); the result is in the order of `files`, whatever the thread timing.
std::vector<ParsedAnnotation> read_annotations(const std::vector<fs::path>& files) {
  std::vector<ParsedAnnotation> out(files.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < files.size(); i = next++) out[i] = read_annotation(files[i]);
  };
  const size_t threads = std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()),
                                           kMaxReaderThreads, files.size() / kFilesPerThread + 1});
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
}

// The image of an annotation, resolved; "" (with the problem added) when unusable.
std::string checked_image(const DciLayout& layout, const fs::path& file, const Annotation& a,
                          const ImageChecks& checks, DataProblems& problems) {
  if (is_blank_text(a.image)) {
    problems.add(file.string() + ": key \"image\": empty");
    return "";
  }
  const fs::path image = (layout.photos / a.image).lexically_normal();
  if (std::string bad = image_problem(layout.base, image, checks); !bad.empty()) {
    problems.add(file.string() + ": key \"image\": " + bad);
    return "";
  }
  return image.string();
}

// The annotation file names listed by splits.json, per split in file order; problems added.
std::vector<std::pair<std::string, std::vector<std::string>>> read_splits(const DciLayout& layout,
                                                                          DataProblems& problems) {
  const fs::path file = layout.base / kSplitsFile;
  const std::string text = read_data_file(file, "DCI splits");
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw DataError(file.string() + ":" + std::to_string(line_at(text, e.byte > 0 ? e.byte - 1 : 0)) +
                    ": malformed JSON: " + e.what());
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number too large ("1e999")
    throw DataError(file.string() + ": malformed JSON: " + e.what());
  }
  if (!doc.is_object()) {
    throw DataError(file.string() + ": expected an object of split name -> annotation file names, found " +
                    doc.type_name());
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> splits;
  std::unordered_map<std::string, std::string> split_of;  // annotation -> first split listing it
  std::error_code ec;
  for (const auto& [split, list] : doc.items()) {
    const std::string at = file.string() + ": key \"" + split + "\": ";
    if (split == kAllSplit) {
      problems.add(at + "'" + kAllSplit + "' is the name of the split of all images; rename it");
      continue;
    }
    if (!list.is_array()) {
      problems.add(at + "must be an array of annotation file names, not " + list.type_name());
      continue;
    }
    std::vector<std::string> names;
    for (const auto& item : list) {
      if (!item.is_string() || is_blank_text(item.get_ref<const std::string&>())) {
        problems.add(at + "holds " + (item.is_string() ? std::string("an empty name") : std::string("a ") + item.type_name()) +
                     " (expected annotation file names)");
        continue;
      }
      const std::string name = item.get<std::string>();
      auto [seen, first] = split_of.emplace(name, split);
      if (!first) {
        problems.add(at + "'" + name + "' is already listed in split '" + seen->second + "'");
        continue;
      }
      if (!fs::is_regular_file(layout.annotations / name, ec)) {
        problems.add(at + "'" + name + "' has no annotation file at " + (layout.annotations / name).string());
        continue;
      }
      names.push_back(name);
    }
    splits.emplace_back(split, std::move(names));
  }
  return splits;
}

}  // namespace

std::unique_ptr<Benchmark> open_dci_benchmark(const std::string& root, const ImageChecks& checks) {
  const DciLayout layout = locate("dci", root);
  DataProblems problems("dci benchmark at " + layout.base.string());
  const auto listed = read_splits(layout, problems);

  std::vector<fs::path> files;
  for (const auto& entry : listed) {
    for (const auto& name : entry.second) files.push_back(layout.annotations / name);
  }
  const auto parsed = read_annotations(files);

  std::map<std::string, std::vector<Sample>> samples;
  std::vector<std::string> names;
  std::vector<Sample> all;
  size_t index = 0;  // into files / parsed, which follow `listed`
  for (const auto& [split, split_files] : listed) {
    std::vector<Sample> list;
    for (size_t k = 0; k < split_files.size(); ++k, ++index) {
      const fs::path& file = files[index];
      const Annotation& a = parsed[index].annotation;
      for (const auto& p : parsed[index].problems) problems.add(p);
      if (!parsed[index].problems.empty()) continue;
      const std::string image = checked_image(layout, file, a, checks, problems);
      if (image.empty()) continue;
      std::string caption = a.short_caption;
      if (!is_blank_text(a.extra_caption)) caption += (is_blank_text(caption) ? "" : "\n") + a.extra_caption;
      if (is_blank_text(caption)) {
        problems.add(file.string() + ": key \"short_caption\": empty, and so is extra_caption");
        continue;
      }
      list.push_back(Sample{image, {caption}, split, ""});
    }
    if (list.empty()) continue;
    for (const auto& s : list) all.push_back(Sample{s.image, s.captions, kAllSplit, s.group});
    names.push_back(split);
    samples.emplace(split, std::move(list));
  }
  if (problems.empty() && all.empty()) problems.add((layout.base / kSplitsFile).string() + ": lists no images");
  problems.throw_if_any();
  names.push_back(kAllSplit);
  samples.emplace(kAllSplit, std::move(all));
  return std::make_unique<ListedBenchmark>("dci", layout.base.string(), std::move(names), std::move(samples));
}

std::unique_ptr<Benchmark> open_long_dci_benchmark(const std::string& root,
                                                   const std::function<void(const std::string&)>& progress,
                                                   const ImageChecks& checks) {
  const DciLayout layout = locate("long-dci", root);
  DataProblems problems("long-dci benchmark at " + layout.base.string());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(layout.annotations)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file()) files.push_back(entry.path());
  }
  // TULIP sorts the file names (Python string order = byte order, as std::string compares).
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });

  std::vector<Sample> test;
  size_t without_extra = 0;
  const auto parsed = read_annotations(files);
  for (size_t i = 0; i < files.size(); ++i) {
    const fs::path& file = files[i];
    const Annotation& a = parsed[i].annotation;
    for (const auto& p : parsed[i].problems) problems.add(p);
    if (!parsed[i].problems.empty()) continue;
    // Exactly empty, as TULIP's constructor tests it (len == 0); such images are not in Long-DCI.
    if (a.extra_caption.empty()) {
      ++without_extra;
      continue;
    }
    const std::string image = checked_image(layout, file, a, checks, problems);
    if (!image.empty()) test.push_back(Sample{image, {a.extra_caption}, "test", ""});
  }
  if (problems.empty() && test.empty()) {
    problems.add(layout.annotations.string() + ": no annotation with a non-empty extra_caption");
  }
  problems.throw_if_any();
  if (progress) {
    progress("long-dci: " + std::to_string(test.size()) + " images with an extra_caption; " +
             std::to_string(without_extra) + " annotations with an empty extra_caption are not part of Long-DCI");
  }
  std::map<std::string, std::vector<Sample>> samples;
  samples.emplace("test", std::move(test));
  return std::make_unique<ListedBenchmark>(
      "long-dci", layout.base.string(), std::vector<std::string>{"test"}, std::move(samples),
      "Long-DCI is an evaluation-only benchmark: evaluate on its test split, train on another benchmark");
}

}  // namespace hnclip
