#include "data/benchmark_summary.h"

#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "text/fnv1a_hash.h"

namespace hnclip {

nlohmann::json split_summary(const std::vector<Sample>& samples, const std::string& root) {
  size_t captions = 0;
  // Paths relative to the root, so that a data set folder moved whole keeps its fingerprint; a
  // 0 byte ends every field, which no path or caption holds.
  Fnv1aHash fingerprint;
  const std::string_view end_of_field("\0", 1);
  for (const auto& s : samples) {
    captions += s.captions.size();
    const auto relative = std::filesystem::path(s.image).lexically_relative(root);
    fingerprint.add(relative.empty() ? s.image : relative.string()).add(end_of_field);
    for (const auto& c : s.captions) fingerprint.add(c).add(end_of_field);
    fingerprint.add("\n");
  }
  return {{"images", samples.size()}, {"captions", captions}, {"fingerprint", fingerprint.hex()}};
}

nlohmann::json benchmark_summary(const Benchmark& benchmark) {
  // ordered_json would keep split order, but the store and readers use plain json; the order
  // lives in "split_order" instead.
  nlohmann::json splits = nlohmann::json::object();
  nlohmann::json order = nlohmann::json::array();
  for (const auto& name : benchmark.splits()) {
    splits[name] = split_summary(benchmark.split(name), benchmark.root());
    order.push_back(name);
  }
  return {{"benchmark", benchmark.name()}, {"root", benchmark.root()}, {"splits", splits},
          {"split_order", order}};
}

std::string describe_benchmark_summary(const nlohmann::json& summary) {
  std::string line = summary.value("benchmark", std::string("?")) + " at " + summary.value("root", std::string("?")) + ":";
  const nlohmann::json splits = summary.value("splits", nlohmann::json::object());
  // Summaries written by others may lack split_order; then the splits come in key order.
  std::vector<std::string> order;
  for (const auto& name : summary.value("split_order", nlohmann::json::array())) {
    if (name.is_string() && splits.contains(name.get<std::string>())) order.push_back(name.get<std::string>());
  }
  if (order.empty()) {
    for (const auto& item : splits.items()) order.push_back(item.key());
  }
  bool first = true;
  for (const auto& name : order) {
    const auto& s = splits.at(name);
    line += std::string(first ? " " : "; ") + name + " " + std::to_string(s.value("images", 0)) + " images, " +
            std::to_string(s.value("captions", 0)) + " captions";
    first = false;
  }
  return line;
}

namespace {

// "142 images, 142 captions" of a split's summary.
std::string counts_text(const nlohmann::json& split) {
  return std::to_string(split.value("images", int64_t{0})) + " images, " +
         std::to_string(split.value("captions", int64_t{0})) + " captions";
}

}  // namespace

std::string split_difference(const nlohmann::json& stored, const nlohmann::json& now,
                             const std::string& split) {
  const auto split_of = [&split](const nlohmann::json& summary) -> const nlohmann::json* {
    if (!summary.is_object() || !summary.contains("splits") || !summary["splits"].is_object())
      return nullptr;
    const auto& splits = summary["splits"];
    const auto it = splits.find(split);
    return it != splits.end() && it->is_object() ? &*it : nullptr;
  };
  const nlohmann::json* was = split_of(stored);
  if (!was) return "";
  const nlohmann::json* is = split_of(now);
  if (!is) return "is gone (it held " + counts_text(*was) + ")";
  const auto count = [](const nlohmann::json& s, const char* key) {
    const auto it = s.find(key);
    return it != s.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{-1};
  };
  if (count(*was, "images") != count(*is, "images") ||
      count(*was, "captions") != count(*is, "captions")) {
    return "holds " + counts_text(*is) + ", not the " + counts_text(*was) + " it held";
  }
  const auto fingerprint = [](const nlohmann::json& s) {
    const auto it = s.find("fingerprint");
    return it != s.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (!fingerprint(*was).empty() && fingerprint(*was) != fingerprint(*is))
    return "holds other images or captions (the same " + counts_text(*is) + ")";
  return "";
}

void set_shared_image_count(nlohmann::json& summary, const std::string& split,
                            const std::string& other, int64_t count) {
  if (count <= 0) return;
  summary["shared_images"][split][other] = count;
}

namespace {

// summary[keys[0]][keys[1]]…, an integer; 0 where any step is missing or of another type (a
// summary recorded by an earlier version, or edited).
int64_t integer_at(const nlohmann::json& summary, std::initializer_list<std::string> keys) {
  const nlohmann::json* at = &summary;
  for (const auto& key : keys) {
    if (!at->is_object()) return 0;
    const auto it = at->find(key);
    if (it == at->end()) return 0;
    at = &*it;
  }
  return at->is_number_integer() ? at->get<int64_t>() : 0;
}

}  // namespace

int64_t shared_image_count(const nlohmann::json& summary, const std::string& split,
                           const std::string& other) {
  return integer_at(summary, {"shared_images", split, other});
}

int64_t split_image_count(const nlohmann::json& summary, const std::string& split) {
  return integer_at(summary, {"splits", split, "images"});
}

}  // namespace hnclip
