// The data a run reads (run_benchmark_spec) and the refusal of a data root the built-in benchmark
// would not read (check_data_root_is_read, open_benchmark).

#include "job/run_benchmark_spec.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "data/benchmark_registry.h"
#include "support/test_dirs.h"
#include "train/train_config.h"

namespace hnclip {
namespace {

// A run recorded by an earlier version with `train --data x.jsonl` and no --benchmark trained on
// the built-in benchmark: its data is still that, so it evaluates and resumes as before.
TEST(RunBenchmarkSpec, ARootRecordedWithTheBuiltInBenchmarkIsNotItsData) {
  TrainConfig c;
  c.benchmark_root = "/data/mine.jsonl";
  EXPECT_EQ(run_benchmark_spec(c, "/cache").root, "");
  EXPECT_EQ(benchmark_data_key(run_benchmark_spec(c, "/cache")), "synthetic:size=default:seed=1");
  c.benchmark = "manifest";
  EXPECT_EQ(run_benchmark_spec(c, "/cache").root, "/data/mine.jsonl");
}

// A stored config of a data set on disk without its root (edited by hand, another version's)
// is listed by the window and `show`, which key its transfer evaluations by their data: the key
// of such a spec says what it is instead of throwing (std::filesystem::absolute("") does).
TEST(RunBenchmarkSpec, TheDataKeyOfASpecWithoutARootIsItsName) {
  BenchmarkSpec spec;
  spec.name = "manifest";
  EXPECT_EQ(benchmark_data_key(spec), "manifest:");
  spec.root = "/data/../data/m.jsonl";
  EXPECT_EQ(benchmark_data_key(spec), "manifest:/data/m.jsonl");
}

TEST(RunBenchmarkSpec, NewWorkWithARootTheBuiltInBenchmarkWouldNotReadIsRefused) {
  EXPECT_NO_THROW(check_data_root_is_read("synthetic", ""));
  EXPECT_NO_THROW(check_data_root_is_read("manifest", "/data/mine.jsonl"));
  EXPECT_NO_THROW(check_data_root_is_read("docci", "/data/docci"));
  try {
    check_data_root_is_read("synthetic", "/data/mine.csv");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--data-root /data/mine.csv: the built-in benchmark (--benchmark synthetic, the "
                 "default) reads no data set; for this manifest add --benchmark manifest");
  }
  // open_benchmark refuses before generating anything.
  test::ScratchDir dir;
  BenchmarkSpec spec;
  spec.size = "small";
  spec.root = "/data/docci";
  spec.cache_dir = (dir / "cache").string();
  EXPECT_THROW(open_benchmark(spec), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(dir / "cache"));
}

}  // namespace
}  // namespace hnclip
