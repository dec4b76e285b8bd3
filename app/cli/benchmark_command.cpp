// `hnclip benchmark`: a benchmark's Table-A1 row (paper Table A1): sizes, mean words and the
// model-free bag-of-words caption similarity (mean pairwise, mean and median hardest neighbour).

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "data/benchmark_registry.h"
#include "data/shared_image_files.h"
#include "data/split_statistics.h"

namespace hnclip::cli {

CommandAction add_benchmark_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    BenchmarkSpec spec;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("benchmark",
                                 "generate/open a benchmark and print its Table-A1 statistics");
  take_last_value(cmd);
  add_benchmark_options(cmd, o->spec.name, o->spec.size, o->spec.root, o->spec.seed);
  add_image_check_options(cmd, o->spec.images.max_pixels, o->spec.images.allow_outside_root,
                          /*zero_is_default=*/false);
  add_common_options(cmd, o->common);
  return [o]() {
    o->spec.cache_dir = o->common.paths().cache_dir;
    const auto bench =
        open_benchmark(o->spec, [](const std::string& m) { std::cerr << m << std::endl; });
    nlohmann::json out{{"benchmark", bench->name()},
                       {"root", bench->root()},
                       {"splits", nlohmann::json::object()}};
    if (!o->common.json) {
      std::printf("%-10s %8s %9s %11s %14s %13s %15s\n", "split", "images", "captions",
                  "mean words", "mean pairwise", "mean hardest", "median hardest");
    }
    for (const auto& name : bench->splits()) {
      const auto row = split_statistics(*bench, name);
      const auto& st = row.similarity;
      out["splits"][name] = {{"images", row.images},
                             {"captions", row.captions},
                             {"mean_words", st.mean_words},
                             {"mean_pairwise", st.mean_pairwise},
                             {"mean_hardest", st.mean_hardest},
                             {"median_hardest", st.median_hardest}};
      if (!o->common.json) {
        // A split of one caption has no similarities: "–", not "nan" (JSON: null).
        const auto cell = [](double v, int width, int decimals) {
          char buf[64];
          if (std::isnan(v))
            std::snprintf(buf, sizeof buf, "%*s", width + 2, "–");  // "–" is 3 bytes, 1 column
          else
            std::snprintf(buf, sizeof buf, "%*.*f", width, decimals, v);
          return std::string(buf);
        };
        std::printf("%-10s %8lld %9lld %s %s %s %s\n", name.c_str(),
                    static_cast<long long>(row.images), static_cast<long long>(row.captions),
                    cell(st.mean_words, 11, 1).c_str(), cell(st.mean_pairwise, 14, 3).c_str(),
                    cell(st.mean_hardest, 13, 3).c_str(), cell(st.median_hardest, 15, 3).c_str());
      }
    }
    // Splits that share image files: a held-out split is not held out for those images.
    const auto splits = bench->splits();
    std::vector<std::vector<std::string>> images;
    for (const auto& split : splits) images.push_back(image_files(bench->split(split)));
    out["shared_images"] = nlohmann::json::array();
    for (size_t i = 0; i < splits.size(); ++i) {
      for (size_t j = i + 1; j < splits.size(); ++j) {
        const auto shared = shared_image_files(images[j], images[i]);
        if (shared.empty()) continue;
        out["shared_images"].push_back({{"splits", {splits[i], splits[j]}},
                                        {"images", shared.size()},
                                        {"example", shared[0]}});
      }
    }
    if (o->common.json) {
      if (out["splits"].contains("train")) out["train"] = out["splits"]["train"]["images"];
      if (out["splits"].contains("test")) out["test"] = out["splits"]["test"]["images"];
      if (out["splits"].contains("val")) out["val"] = out["splits"]["val"]["images"];
      std::cout << out.dump() << std::endl;
    } else {
      std::cout << "(bag-of-words cosine over each split's captions; hardest = a caption's most "
                   "similar other caption)\n";
      for (const auto& shared : out["shared_images"])
        std::cout << "splits " << shared["splits"][0].get<std::string>() << " and "
                  << shared["splits"][1].get<std::string>() << " share " << shared["images"]
                  << " image files (e.g. " << shared["example"].get<std::string>()
                  << "): recall on either is not held out from training on the other\n";
    }
    return kExitOk;
  };
}

}  // namespace hnclip::cli
