// End-to-end check of the Captions tab in the real hnclip-workbench under Xvfb: on the built-in
// benchmark (size small) with the pretrained starting checkpoint, the window computes the split's
// caption geometry in the background (none is stored yet), selects a caption, saves pictures of
// its detail view and of the whole window into the test's output folder, and quits. The geometry
// must then be in the store, and a second start must read it back (nothing recomputed) and report
// how long the selected caption's images took to show. The screen is 1024 pixels wide, and the
// window, loading and loaded, must fit it. A second test trains a tiny run with the
// CLI and saves a picture of its Ḡ heatmap page (last epoch, the largest entry's pair selected).

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "job/caption_geometry_job.h"
#include "store/run_store.h"
#include "support/cli_runner.h"
#include "support/png_size.h"
#include "support/test_dirs.h"

namespace {

namespace fs = std::filesystem;

using hnclip::test::png_size;

TEST(WorkbenchCaptions, ComputesGeometryInTheBackgroundAndShowsACaptionsNeighbours) {
  hnclip::test::ScratchDir dir;
  const fs::path out = fs::path(HNCLIP_TEST_OUTPUT_DIR) / "test_workbench_captions";
  fs::remove_all(out);
  fs::create_directories(out);
  const auto db = (dir / "runs.db").string();
  const auto cache = (dir / "cache").string();
  const std::string config = R"({"benchmark":"synthetic","benchmark_size":"small","init":"pretrained"})";
  const std::string base = "XDG_CONFIG_HOME=" + (dir / "config").string() +
                           " xvfb-run -a -s '-screen 0 1024x768x24' " + HNCLIP_WORKBENCH_PATH +
                           " --db " + db + " --cache-dir " + cache + " --config '" + config +
                           "' --show-tab captions --select-caption 3";
  const std::string cmd = base + " --screenshot-detail " + (out / "caption-detail.png").string() +
                          " --screenshot-captions-window " + (out / "captions-window.png").string();
  std::string so, se;
  int code = hnclip::test::run_command(cmd, &so, &se);
  ASSERT_EQ(code, 0) << cmd << "\nstdout:\n" << so << "\nstderr:\n" << se;

  const auto [dw, dh] = png_size(out / "caption-detail.png");
  EXPECT_GE(dw, 400u) << "detail screenshot missing or too small";
  EXPECT_GE(dh, 300u);
  const auto [ww, wh] = png_size(out / "captions-window.png");
  EXPECT_GE(ww, 800u) << "window screenshot missing or too small";
  EXPECT_LE(ww, 1024u) << "the window is wider than the screen";
  EXPECT_GE(wh, 500u);

  hnclip::BenchmarkSpec spec;
  spec.name = "synthetic";
  spec.size = "small";
  const auto dataset = hnclip::caption_dataset_key(spec, "test");
  const auto encoder = hnclip::resolve_caption_encoder("init:pretrained", db);
  int64_t captions = 0;
  int64_t created = 0;
  {
    hnclip::RunStore store(db);
    const auto stats = store.caption_stats(dataset, encoder.key);
    ASSERT_TRUE(stats.has_value()) << "the window did not store the geometry of " << dataset;
    captions = stats->captions;
    created = stats->created_at_ms;
    EXPECT_GT(captions, 3);
    EXPECT_GE(store.caption_neighbors(dataset, encoder.key, 3).size(), 5u);
  }

  // Second start: the geometry is read back, and the timing report says what was shown.
  const auto timing = out / "caption-timing.json";
  code = hnclip::test::run_command(base + " --caption-timing " + timing.string(), &so, &se);
  ASSERT_EQ(code, 0) << "stdout:\n" << so << "\nstderr:\n" << se;
  std::ifstream in(timing);
  ASSERT_TRUE(in) << "no timing report";
  const auto report = nlohmann::json::parse(in);
  EXPECT_EQ(report.at("caption").get<int64_t>(), 3);
  EXPECT_EQ(report.at("captions").get<int64_t>(), captions);
  EXPECT_GE(report.at("neighbors_shown").get<int>(), 5);
  EXPECT_GE(report.at("first_show_ms").get<int64_t>(), 0);
  EXPECT_GE(report.at("reshow_from_memory_ms").get<int64_t>(), 0);
  EXPECT_GT(report.at("thumbnail_memory_bytes").get<int64_t>(), 0);
  hnclip::RunStore store(db);
  EXPECT_EQ(store.caption_stats(dataset, encoder.key)->created_at_ms, created) << "the geometry was recomputed";
  std::cout << "caption 3 of " << captions << ": images shown after " << report.at("first_show_ms")
            << " ms (thumbnails from disk), " << report.at("reshow_from_memory_ms") << " ms again from memory\n";
}

TEST(WorkbenchCaptions, ShowsARunsGbarHeatmapWithTheLargestPairSelected) {
  hnclip::test::ScratchDir dir;
  const fs::path out = fs::path(HNCLIP_TEST_OUTPUT_DIR) / "test_workbench_captions_heatmap";
  fs::remove_all(out);
  fs::create_directories(out);
  const std::string common = " --db " + (dir / "runs.db").string() + " --cache-dir " + (dir / "cache").string();
  const auto r = hnclip::test::run_hnclip(
      "train --benchmark-size small --init pretrained --data-fraction 0.25 --epochs 1 --batch 32 --lr 1e-4"
      " --threads 1 --probe-every 0 --gamma 0.5 --name heatmap --json" + common);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto run = nlohmann::json::parse(r.out).at("run_id").get<int64_t>();
  {
    hnclip::RunStore store((dir / "runs.db").string());
    ASSERT_FALSE(store.gbar_snapshots(run).empty()) << "the run stored no Ḡ snapshot";
  }
  const fs::path shot = out / "heatmap.png";
  const std::string cmd = "XDG_CONFIG_HOME=" + (dir / "config").string() + " xvfb-run -a -s '-screen 0 1400x900x24' " +
                          HNCLIP_WORKBENCH_PATH + common + " --gbar-run " + std::to_string(run) +
                          " --screenshot-heatmap " + shot.string();
  std::string so, se;
  int code = hnclip::test::run_command(cmd, &so, &se);
  ASSERT_EQ(code, 0) << cmd << "\nstdout:\n" << so << "\nstderr:\n" << se;
  const auto [w, h] = png_size(shot);
  EXPECT_GE(w, 700u) << "heatmap screenshot missing or too small";
  EXPECT_GE(h, 400u);
  EXPECT_GT(fs::file_size(shot), 20'000u) << "a colour map with two images is not this small";

  // A run without snapshots is refused with exit 3 and a message, not a hang or an empty picture.
  code = hnclip::test::run_command("XDG_CONFIG_HOME=" + (dir / "config").string() +
                                       " xvfb-run -a -s '-screen 0 1400x900x24' " + HNCLIP_WORKBENCH_PATH + common +
                                       " --gbar-run 99 --screenshot-heatmap " + (out / "none.png").string(),
                                   &so, &se);
  EXPECT_EQ(code, 3) << se;
  EXPECT_NE(se.find("99"), std::string::npos) << se;
  EXPECT_FALSE(fs::exists(out / "none.png"));
}

}  // namespace
