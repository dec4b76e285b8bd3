// `hnclip neighbors`: one caption of a benchmark split, its k nearest other captions under a
// text encoder with their cosines and the content words they share (the near-duplicate
// explorer's data); the split's geometry is computed and stored first when it is not stored yet.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "job/caption_geometry_job.h"
#include "store/run_store.h"

namespace hnclip::cli {

void add_geometry_options(CLI::App* cmd, CaptionGeometryRequest& r) {
  add_benchmark_options(cmd, r.benchmark.name, r.benchmark.size, r.benchmark.root,
                        r.benchmark.seed);
  add_image_check_options(cmd, r.benchmark.images.max_pixels, r.benchmark.images.allow_outside_root,
                          /*zero_is_default=*/false);
  cmd->add_option("--split", r.split, "split whose captions are measured")->capture_default_str();
  cmd->add_option("--encoder", r.encoder,
                  "text encoder: run:ID (its best checkpoint, else last), ckpt:PATH, init:PATH "
                  "(default: init:pretrained)");
  cmd->add_option("--device", r.device, "auto | cpu | cuda[:N]")->capture_default_str();
  cmd->add_flag("--recompute", r.recompute, "compute again even if a result is stored");
}

CommandAction add_neighbors_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    CaptionGeometryRequest request;
    int64_t index = 0;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("neighbors", "a caption's nearest other captions under a text encoder");
  take_last_value(cmd);
  add_geometry_options(cmd, o->request);
  cmd->add_option("--index", o->index, "caption index in the split")->required();
  cmd->add_option("-k", o->request.neighbors, "neighbours to show")->capture_default_str();
  add_common_options(cmd, o->common);
  return [o]() {
    const auto paths = o->common.paths();
    auto spec = o->request.benchmark;
    spec.cache_dir = spec.cache_dir.empty() ? paths.cache_dir : spec.cache_dir;
    const auto log = [](const std::string& m) { std::cerr << m << std::endl; };
    if (o->request.neighbors < 1)
      throw UsageError("-k must be >= 1 (got " + std::to_string(o->request.neighbors) + ")");
    // The index is checked against the split before anything is computed or stored.
    const auto bench = open_benchmark(spec, log);
    const auto splits = bench->splits();
    if (std::find(splits.begin(), splits.end(), o->request.split) == splits.end()) {
      throw UsageError("--split " + o->request.split + ": the benchmark has no such split");
    }
    std::vector<std::string> captions;
    for (const auto& s : bench->split(o->request.split))
      captions.insert(captions.end(), s.captions.begin(), s.captions.end());
    const auto n = static_cast<int64_t>(captions.size());
    if (o->index < 0 || o->index >= n) {
      throw UsageError("--index " + std::to_string(o->index) + ": the " + o->request.split +
                       " split has " + std::to_string(n) + " captions (0.." +
                       std::to_string(n - 1) + ")");
    }
    const auto r = caption_geometry_for(o->request, paths, log);
    std::vector<CaptionNeighborRow> rows;
    for (const auto& nb : r.record.neighbors)
      if (nb.caption == o->index && static_cast<int64_t>(rows.size()) < o->request.neighbors)
        rows.push_back(nb);
    const auto text = [&](int64_t i) {
      return i >= 0 && i < n ? captions[static_cast<size_t>(i)] : std::string();
    };
    if (o->common.json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& nb : rows) {
        list.push_back({{"rank", nb.rank},
                        {"index", nb.neighbor},
                        {"cosine", nb.cosine},
                        {"text", text(nb.neighbor)},
                        {"shared_words", nb.shared_words}});
      }
      nlohmann::json out{{"index", o->index},         {"text", text(o->index)},
                         {"split", o->request.split}, {"dataset", r.dataset_key},
                         {"encoder", r.encoder.key},  {"neighbors", list}};
      std::cout << out.dump() << std::endl;
      return kExitOk;
    }
    std::printf("caption %lld: %s\n", static_cast<long long>(o->index), text(o->index).c_str());
    for (const auto& nb : rows) {
      std::string shared;
      for (const auto& w : nb.shared_words) shared += (shared.empty() ? "" : ", ") + w;
      std::printf("%2d. %6lld  cos %.4f  shared: %s\n    %s\n", nb.rank,
                  static_cast<long long>(nb.neighbor), nb.cosine,
                  shared.empty() ? "-" : shared.c_str(), text(nb.neighbor).c_str());
    }
    std::printf("(%s, encoder: %s)\n", r.dataset_label.c_str(), r.encoder.label.c_str());
    return kExitOk;
  };
}

}  // namespace hnclip::cli
