// End-to-end check of the Captions tab in the real hnclip-workbench under Xvfb: on the built-in
// benchmark (size small) with the pretrained starting checkpoint, the window computes the split's
// caption geometry in the background (none is stored yet), selects a caption, saves pictures of
// its detail view and of the whole window into the test's output folder, and quits. The geometry
// must then be in the store, and a second start must read it back (nothing recomputed) and report
// how long the selected caption's images took to show.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "job/caption_geometry_job.h"
#include "store/run_store.h"
#include "support/test_dirs.h"

namespace {

namespace fs = std::filesystem;

// Width and height from a PNG's IHDR chunk (big-endian at bytes 16..23).
std::pair<uint32_t, uint32_t> png_size(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  unsigned char h[24] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  if (!in || h[1] != 'P' || h[2] != 'N' || h[3] != 'G') return {0, 0};
  auto be = [&](int o) { return (uint32_t(h[o]) << 24) | (uint32_t(h[o + 1]) << 16) | (uint32_t(h[o + 2]) << 8) | h[o + 3]; };
  return {be(16), be(20)};
}

TEST(WorkbenchCaptions, ComputesGeometryInTheBackgroundAndShowsACaptionsNeighbours) {
  hnclip::test::ScratchDir dir;
  const fs::path out = fs::path(HNCLIP_TEST_OUTPUT_DIR) / "test_workbench_captions";
  fs::remove_all(out);
  fs::create_directories(out);
  const auto db = (dir / "runs.db").string();
  const auto cache = (dir / "cache").string();
  const std::string config = R"({"benchmark":"synthetic","benchmark_size":"small","init":"pretrained"})";
  const std::string base = "XDG_CONFIG_HOME=" + (dir / "config").string() +
                           " xvfb-run -a -s '-screen 0 1400x900x24' " + HNCLIP_WORKBENCH_PATH + " --db " + db +
                           " --cache-dir " + cache + " --config '" + config + "' --show-tab captions --select-caption 3";
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

}  // namespace
