// End-to-end: a user's manifest whose JPEG is truncated after its header. The header check lets
// it through (its size is readable), so the decode fails mid-run: the run fails naming the file
// and nothing is printed bare on stderr; with --skip-bad-images the run finishes and its record
// counts the skipped image.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/test_dirs.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(CliBadImages, ATruncatedJpegFailsTheRunNamingItOrIsSkippedAndCounted) {
  hnclip::test::ScratchDir dir;
  fs::create_directories(dir / "img");
  cv::setRNGSeed(8);
  std::ofstream manifest(dir / "m.jsonl");
  for (int i = 0; i < 20; ++i) {
    cv::Mat image(40, 40, CV_8UC3);
    cv::randu(image, 0, 256);
    const std::string name = "img/" + std::to_string(i) + ".jpg";
    ASSERT_TRUE(cv::imwrite((dir / name).string(), image));
    manifest << json{{"image", name},
                     {"caption", "scene " + std::to_string(i) + " with a shape"},
                     {"split", i < 16 ? "train" : "test"}}
                    .dump()
             << "\n";
  }
  manifest.close();
  const fs::path broken = dir / "img" / "3.jpg";  // in the training split
  {
    const std::string bytes = hnclip::test::read_text_file(broken);
    std::ofstream out(broken, std::ios::binary | std::ios::trunc);
    out << bytes.substr(0, bytes.size() / 2);
  }
  const std::string common = " --benchmark manifest --data-root " + (dir / "m.jsonl").string() +
                             " --epochs 1 --batch 4 --threads 1 --probe-every 0 --gbar-snapshots 0"
                             " --db " + (dir / "runs.db").string() +
                             " --cache-dir " + (dir / "cache").string();

  const auto failed = hnclip::test::run_hnclip("train --json" + common);
  EXPECT_EQ(failed.code, 1);
  EXPECT_NE(failed.err.find(broken.string() + ": corrupt JPEG: Premature end of JPEG file"),
            std::string::npos)
      << failed.err;
  EXPECT_EQ(failed.err.find("\nPremature end"), std::string::npos) << "a bare libjpeg line: " << failed.err;
  EXPECT_NE(failed.err.rfind("Premature end of JPEG file", 0), 0u) << failed.err;

  const auto skipped = hnclip::test::run_hnclip("train --skip-bad-images --json" + common);
  ASSERT_EQ(skipped.code, 0) << skipped.err;
  const int64_t id = json::parse(skipped.out)["run_id"].get<int64_t>();
  const auto shown = hnclip::test::run_hnclip("show " + std::to_string(id) + " --json --db " +
                                              (dir / "runs.db").string());
  ASSERT_EQ(shown.code, 0) << shown.err;
  const json record = json::parse(shown.out)["data"]["skipped_images"];
  EXPECT_EQ(record["images"], 1) << shown.out;
  EXPECT_EQ(record["pairs_dropped"], 1) << shown.out;  // one epoch: its pair was drawn once
  EXPECT_NE(record["examples"][0].get<std::string>().find(broken.string()), std::string::npos);

  const auto runs = hnclip::test::run_hnclip("runs --json --db " + (dir / "runs.db").string());
  const json list = json::parse(runs.out);
  ASSERT_EQ(list.size(), 2u);
  for (const auto& r : list) {
    if (r["id"] != id) {
      EXPECT_EQ(r["status"], "failed");
      EXPECT_NE(r["message"].get<std::string>().find(broken.string()), std::string::npos);
    }
  }
}

}  // namespace
