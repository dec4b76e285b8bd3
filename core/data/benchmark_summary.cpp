#include "data/benchmark_summary.h"

#include <vector>

#include <nlohmann/json.hpp>

namespace hnclip {

nlohmann::json benchmark_summary(const Benchmark& benchmark) {
  // ordered_json would keep split order, but the store and readers use plain json; the order
  // lives in "split_order" instead.
  nlohmann::json splits = nlohmann::json::object();
  nlohmann::json order = nlohmann::json::array();
  for (const auto& name : benchmark.splits()) {
    size_t captions = 0;
    const auto samples = benchmark.split(name);
    for (const auto& s : samples) captions += s.captions.size();
    splits[name] = {{"images", samples.size()}, {"captions", captions}};
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

}  // namespace hnclip
