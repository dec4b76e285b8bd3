// benchmark_summary and split_difference (core/data/benchmark_summary.h): a split's fingerprint
// follows its captions and image paths (not its root: a data set folder moved whole keeps it),
// and the difference between a run's stored summary and the data now is said in counts, or as
// other content with the same counts; a summary without fingerprints (an older run's) is compared
// by counts only, one without the split not at all.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "data/benchmark_summary.h"
#include "data/listed_benchmark.h"

namespace {

using hnclip::ListedBenchmark;
using hnclip::Sample;
using nlohmann::json;

std::vector<Sample> samples(const std::string& root, int n) {
  std::vector<Sample> out;
  for (int i = 0; i < n; ++i)
    out.push_back({root + "/img/" + std::to_string(i) + ".png",
                   {"caption " + std::to_string(i)},
                   "test",
                   ""});
  return out;
}

json summary_of(const std::string& root, std::vector<Sample> test) {
  const ListedBenchmark b("manifest", root, {"train", "test"},
                          {{"train", samples(root, 3)}, {"test", std::move(test)}});
  return hnclip::benchmark_summary(b);
}

}  // namespace

TEST(BenchmarkSummary, FingerprintFollowsCaptionsAndImagesNotTheRoot) {
  const json a = summary_of("/data/a", samples("/data/a", 4));
  EXPECT_EQ(a["splits"]["test"]["images"], 4);
  EXPECT_EQ(a["splits"]["test"]["captions"], 4);
  const std::string fp = a["splits"]["test"]["fingerprint"];
  EXPECT_EQ(fp.size(), 16u);
  EXPECT_EQ(summary_of("/elsewhere/b", samples("/elsewhere/b", 4))["splits"]["test"]["fingerprint"],
            fp);

  auto captions = samples("/data/a", 4);
  captions[2].captions[0] = "another caption";
  EXPECT_NE(summary_of("/data/a", captions)["splits"]["test"]["fingerprint"], fp);
  auto images = samples("/data/a", 4);
  std::swap(images[0].image, images[1].image);
  EXPECT_NE(summary_of("/data/a", images)["splits"]["test"]["fingerprint"], fp);
  // Fields do not run into each other: "ab" + "c" is not "a" + "bc".
  auto split1 = samples("/data/a", 1), split2 = samples("/data/a", 1);
  split1[0].captions = {"ab", "c"};
  split2[0].captions = {"a", "bc"};
  EXPECT_NE(summary_of("/data/a", split1)["splits"]["test"]["fingerprint"],
            summary_of("/data/a", split2)["splits"]["test"]["fingerprint"]);
}

TEST(BenchmarkSummary, SplitDifferenceSaysHowASplitChanged) {
  const json stored = summary_of("/data/a", samples("/data/a", 4));
  EXPECT_EQ(hnclip::split_difference(stored, stored, "test"), "");
  EXPECT_EQ(hnclip::split_difference(stored, summary_of("/data/a", samples("/data/a", 3)), "test"),
            "holds 3 images, 3 captions, not the 4 images, 4 captions it held");
  auto edited = samples("/data/a", 4);
  edited[3].captions[0] = "rewritten";
  const json now = summary_of("/data/a", edited);
  EXPECT_EQ(hnclip::split_difference(stored, now, "test"),
            "holds other images or captions (the same 4 images, 4 captions)");
  EXPECT_EQ(hnclip::split_difference(stored, now, "train"), "") << "the other split is the same";

  json older = stored;  // a run recorded before fingerprints: counts only
  older["splits"]["test"].erase("fingerprint");
  EXPECT_EQ(hnclip::split_difference(older, now, "test"), "");
  EXPECT_NE(hnclip::split_difference(older, summary_of("/data/a", samples("/data/a", 5)), "test"),
            "");
  // Nothing stored to compare with: no difference claimed.
  EXPECT_EQ(hnclip::split_difference(json::object(), now, "test"), "");
  EXPECT_EQ(hnclip::split_difference(json("not a summary"), now, "test"), "");
  EXPECT_EQ(hnclip::split_difference(stored, now, "val"), "");
  json gone = now;
  gone["splits"].erase("test");
  EXPECT_EQ(hnclip::split_difference(stored, gone, "test"),
            "is gone (it held 4 images, 4 captions)");
}
