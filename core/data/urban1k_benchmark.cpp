#include "data/urban1k_benchmark.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "data/data_file.h"
#include "data/data_problems.h"
#include "data/image_file_check.h"
#include "data/listed_benchmark.h"
#include "text/decimal_digits.h"

namespace hnclip {

namespace {

namespace fs = std::filesystem;

constexpr const char* kImageDir = "image";
constexpr const char* kCaptionDir = "caption";
constexpr const char* kCaptionExtension = ".txt";

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Numbered stems in numeric order first ("2" before "10"), then the others by name.
bool stem_before(const std::string& a, const std::string& b) {
  const bool na = is_decimal_digits(a, kInt64Digits), nb = is_decimal_digits(b, kInt64Digits);
  if (na != nb) return na;
  if (na) return std::stoll(a) < std::stoll(b) || (std::stoll(a) == std::stoll(b) && a < b);
  return a < b;
}

// The first line of a caption file without its line end and surrounding white space.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  size_t b = 0;
  while (b < line.size() && std::isspace(static_cast<unsigned char>(line[b]))) ++b;
  return line.substr(b);
}

}  // namespace

std::unique_ptr<Benchmark> open_urban1k_benchmark(const std::string& root, const ImageChecks& checks) {
  const fs::path base = fs::absolute(root).lexically_normal();
  const fs::path images = base / kImageDir;
  const fs::path captions = base / kCaptionDir;
  std::error_code ec;
  for (const auto& dir : {images, captions}) {
    if (!fs::is_directory(dir, ec)) {
      throw DataError("urban1k: no folder " + dir.string() + " (expected image/<n>.jpg and caption/<n>.txt)");
    }
  }
  DataProblems problems("urban1k benchmark at " + base.string());

  std::map<std::string, fs::path, decltype(&stem_before)> image_of(&stem_before);  // stem -> image
  for (const auto& entry : fs::directory_iterator(images)) {
    const fs::path& p = entry.path();
    const std::string name = p.filename().string();
    if (name.empty() || name[0] == '.') continue;
    const std::string ext = lowercase(p.extension().string());
    if (ext != ".jpg" && ext != ".jpeg" && ext != ".png") {
      problems.add(p.string() + ": not an image file name (expected <n>.jpg, .jpeg or .png)");
      continue;
    }
    auto [it, first] = image_of.emplace(p.stem().string(), p);
    if (!first) problems.add(p.string() + ": a second image for " + it->second.string());
  }
  std::set<std::string> caption_stems;
  for (const auto& entry : fs::directory_iterator(captions)) {
    const fs::path& p = entry.path();
    const std::string name = p.filename().string();
    if (name.empty() || name[0] == '.' || p.extension() != kCaptionExtension) continue;
    caption_stems.insert(p.stem().string());
    if (!image_of.count(p.stem().string())) {
      problems.add(p.string() + ": caption without an image (no " + (images / p.stem()).string() + ".jpg)");
    }
  }

  std::vector<Sample> test;
  for (const auto& [stem, image] : image_of) {
    const fs::path caption_file = captions / (stem + kCaptionExtension);
    if (!caption_stems.count(stem)) {
      problems.add(image.string() + ": image without a caption (no " + caption_file.string() + ")");
      continue;
    }
    std::string caption;
    try {
      caption = first_line(read_data_file(caption_file, "Urban-1K caption"));
    } catch (const DataError& e) {
      problems.add(e.what());
      continue;
    }
    if (caption.empty()) {
      problems.add(caption_file.string() + ":1: empty caption");
      continue;
    }
    const std::string image_path = image.lexically_normal().string();
    if (std::string bad = image_problem(root, image_path, checks); !bad.empty()) {
      problems.add(bad);
      continue;
    }
    test.push_back(Sample{image_path, {caption}, "test", ""});
  }
  if (problems.empty() && test.empty()) problems.add(images.string() + ": no images");
  problems.throw_if_any();
  std::map<std::string, std::vector<Sample>> samples;
  samples.emplace("test", std::move(test));
  return std::make_unique<ListedBenchmark>(
      "urban1k", base.string(), std::vector<std::string>{"test"}, std::move(samples),
      "Urban-1K is an evaluation-only benchmark: evaluate on its test split, train on another benchmark");
}

}  // namespace hnclip
