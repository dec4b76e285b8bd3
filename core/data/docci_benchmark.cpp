#include "data/docci_benchmark.h"

#include <filesystem>
#include <map>
#include <sstream>
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

// Keys of a record that the reader uses; DOCCI's own loaders read exactly these.
constexpr const char* kKeyExampleId = "example_id";
constexpr const char* kKeySplit = "split";
constexpr const char* kKeyImageFile = "image_file";
constexpr const char* kKeyDescription = "description";

// Folder of the images, inside the root.
constexpr const char* kImagesDir = "images";

// DOCCI's split values and the benchmark split each one belongs to: the paper's test set is
// test + qual_test; qual_dev stays separate.
const std::map<std::string, std::string>& split_of_value() {
  static const std::map<std::string, std::string> m = {
      {"train", "train"}, {"test", "test"}, {"qual_test", "test"}, {"qual_dev", "qual_dev"}};
  return m;
}

// The benchmark's splits in the order splits() lists them.
const std::vector<std::string>& split_order() {
  static const std::vector<std::string> order = {"train", "test", "qual_dev"};
  return order;
}

}  // namespace

std::unique_ptr<Benchmark> open_docci_benchmark(const std::string& root, const ImageChecks& checks) {
  const fs::path base = fs::absolute(root).lexically_normal();
  const fs::path file = base / kDocciDescriptionsFile;
  std::error_code ec;
  if (!fs::is_directory(base, ec)) throw DataError("docci: no folder at " + base.string());
  const std::string text = read_data_file(file, "DOCCI descriptions");
  const std::string where = file.string();

  DataProblems problems("docci benchmark at " + base.string());
  std::map<std::string, std::vector<Sample>> samples;
  std::unordered_map<std::string, int> line_of_id;  // example_id -> first line, for duplicates
  std::istringstream lines(text);
  std::string line_text;
  int line = 0;
  while (std::getline(lines, line_text)) {
    ++line;
    if (!line_text.empty() && line_text.back() == '\r') line_text.pop_back();
    if (is_blank_text(line_text)) continue;
    const std::string at = where + ":" + std::to_string(line) + ": ";
    json obj = json::parse(line_text, nullptr, /*allow_exceptions=*/false);
    if (obj.is_discarded()) {
      problems.add(at + "malformed JSON (expected one object per line)");
      continue;
    }
    if (!obj.is_object()) {
      problems.add(at + "expected a JSON object, found " + obj.type_name());
      continue;
    }
    // Each key: present, a string, not blank; a bad one is reported and the record skipped.
    bool ok = true;
    auto value = [&](const char* key) -> std::string {
      auto it = obj.find(key);
      std::string what;
      if (it == obj.end()) {
        what = "missing";
      } else if (!it->is_string()) {
        what = std::string("must be a string, not ") + it->type_name();
      } else if (is_blank_text(it->get_ref<const std::string&>())) {
        what = "empty";
      } else {
        return it->get<std::string>();
      }
      problems.add(at + "key \"" + key + "\": " + what);
      ok = false;
      return "";
    };
    const std::string id = value(kKeyExampleId);
    const std::string split_value = value(kKeySplit);
    const std::string image_file = value(kKeyImageFile);
    const std::string description = value(kKeyDescription);
    if (!ok) continue;

    auto split = split_of_value().find(split_value);
    if (split == split_of_value().end()) {
      problems.add(at + "key \"split\": unknown split '" + split_value +
                   "' (expected train, test, qual_dev or qual_test)");
      continue;
    }
    auto [seen, first] = line_of_id.emplace(id, line);
    if (!first) {
      problems.add(at + "key \"example_id\": '" + id + "' is already used on line " +
                   std::to_string(seen->second));
      continue;
    }
    const fs::path image = (base / kImagesDir / image_file).lexically_normal();
    if (std::string bad = image_problem(base, image, checks); !bad.empty()) {
      problems.add(at + "key \"image_file\": " + bad);
      continue;
    }
    samples[split->second].push_back(Sample{image.string(), {description}, split->second, ""});
  }
  if (problems.empty() && samples.empty()) problems.add(where + ": lists no images");
  problems.throw_if_any();

  std::vector<std::string> names;
  for (const auto& s : split_order()) {
    if (samples.count(s)) names.push_back(s);
  }
  return std::make_unique<ListedBenchmark>("docci", base.string(), std::move(names), std::move(samples));
}

}  // namespace hnclip
