// `hnclip stats`: a benchmark split's Table-A1 row under a text encoder (paper Table A1) — image
// counts, mean words, mean pairwise and mean hardest-neighbour caption cosine, and the hardness
// composition of in-batch negatives; computed once per (dataset, encoder) and stored.

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "eval/caption_geometry.h"
#include "job/caption_geometry_job.h"

namespace hnclip::cli {

CommandAction add_stats_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    CaptionGeometryRequest request;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("stats", "caption geometry of a benchmark split under a text encoder (Table A1 row)");
  take_last_value(cmd);
  add_geometry_options(cmd, o->request);
  cmd->add_option("--batch", o->request.batch_size, "batch size B of the in-batch negatives' composition")
      ->capture_default_str();
  add_common_options(cmd, o->common);
  return [o]() {
    const auto paths = o->common.paths();
    const auto r = caption_geometry_for(o->request, paths, [](const std::string& m) { std::cerr << m << std::endl; });
    const auto& s = r.record.stats;
    const auto& names = geometry_bucket_names();
    nlohmann::json buckets = nlohmann::json::object();
    for (size_t b = 0; b < names.size() && b < s.bucket_fractions.size(); ++b) buckets[names[b]] = s.bucket_fractions[b];
    if (o->common.json) {
      nlohmann::json out{{"train", s.train_images},
                         {"test", s.test_images},
                         {"mean_words", s.mean_words},
                         {"mean_pairwise", s.mean_pairwise},
                         {"mean_hardest", s.mean_hardest},
                         {"buckets", buckets},
                         {"median_hardest", s.median_hardest},
                         {"captions", s.captions},
                         {"split", o->request.split},
                         {"dataset", r.dataset_key},
                         {"encoder", r.encoder.key},
                         {"batch", s.batch_size}};
      std::cout << out.dump() << std::endl;
      return kExitOk;
    }
    std::printf("%8s %8s %11s %14s %13s   %s\n", "#train", "#test", "mean words", "mean pairwise", "mean hardest",
                "in-batch negatives (<0.5 | 0.5-0.7 | 0.7-0.8 | 0.8-0.9 | >=0.9)");
    std::printf("%8lld %8lld %11.1f %14.3f %13.3f  ", static_cast<long long>(s.train_images),
                static_cast<long long>(s.test_images), s.mean_words, s.mean_pairwise, s.mean_hardest);
    for (double f : s.bucket_fractions) std::printf(" %6.2f%%", 100.0 * f);
    std::printf("\n(%s, %lld captions, encoder: %s; cosines of L2-normalised text features)\n",
                r.dataset_label.c_str(), static_cast<long long>(s.captions),
                r.encoder.label.c_str());
    return kExitOk;
  };
}

}  // namespace hnclip::cli
