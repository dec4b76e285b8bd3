// End-to-end check of the Retrieval tab under Xvfb: two tiny runs are trained on the built-in
// benchmark with the `hnclip` CLI (γ = 0 and γ = 0.5, one epoch each from the committed pretrained
// checkpoint), then the real hnclip-workbench opens the tab on them (--retrieval-runs), selects
// the query whose ground-truth rank differs most (--select-largest-diff), saves a picture of the
// window once every thumbnail is painted (--screenshot-retrieval) and quits. The picture must
// exist with a sane size, and both runs' split embeddings must have been cached. The runs have
// long names and the screen is 1024 pixels wide: the window must still fit it.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/png_size.h"
#include "support/test_dirs.h"

namespace {

namespace fs = std::filesystem;

using hnclip::test::png_size;

TEST(WorkbenchRetrieval, ShowsTheQueryTwoRunsRankMostDifferently) {
  hnclip::test::ScratchDir dir;
  const fs::path out = fs::path(HNCLIP_TEST_OUTPUT_DIR) / "test_workbench_retrieval";
  fs::remove_all(out);
  fs::create_directories(out);
  const std::string common = " --db " + (dir / "runs.db").string() + " --cache-dir " + (dir / "cache").string();
  const auto long_name = [](const std::string& gamma) {
    return "HN sweep · γ " + gamma +
           " · ViT-B/16 from OpenAI weights, long-caption recipe, lr 1e-4";
  };
  int64_t ids[2] = {0, 0};
  const char* gammas[2] = {"0", "0.5"};
  for (int i = 0; i < 2; ++i) {
    const auto r =
        hnclip::test::run_hnclip(std::string("train --benchmark-size small --init pretrained "
                                             "--data-fraction 0.25 --epochs 1 --batch 32") +
                                 " --lr 1e-4 --threads 1 --probe-every 0 --gamma " + gammas[i] +
                                 " --name '" + long_name(gammas[i]) + "' --json" + common);
    ASSERT_EQ(r.code, 0) << r.err;
    ids[i] = nlohmann::json::parse(r.out).at("run_id").get<int64_t>();
  }

  const fs::path shot = out / "retrieval.png";
  const std::string cmd =
      "XDG_CONFIG_HOME=" + (dir / "config").string() + " xvfb-run -a -s '-screen 0 1024x768x24' " +
      HNCLIP_WORKBENCH_PATH + common + " --retrieval-runs " + std::to_string(ids[0]) + "," +
      std::to_string(ids[1]) + " --select-largest-diff --screenshot-retrieval " + shot.string();
  std::string so, se;
  const int code = hnclip::test::run_command(cmd, &so, &se);
  ASSERT_EQ(code, 0) << cmd << "\nstdout:\n" << so << "\nstderr:\n" << se;
  const auto [w, h] = png_size(shot);
  EXPECT_GE(w, 800u) << "screenshot missing or too small";
  EXPECT_LE(w, 1024u) << "the window is wider than the screen";
  EXPECT_GE(h, 500u);
  EXPECT_GT(fs::file_size(shot), 20'000u) << "a picture with thumbnails is not this small";

  // Each run's evaluated checkpoint got its split embeddings cached.
  int cached = 0;
  if (fs::exists(dir / "cache" / "split-embeddings"))
    for (const auto& f : fs::directory_iterator(dir / "cache" / "split-embeddings")) cached += f.path().extension() == ".bin";
  EXPECT_EQ(cached, 2);
}

}  // namespace
