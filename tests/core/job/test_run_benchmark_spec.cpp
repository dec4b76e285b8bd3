// The data a run reads (run_benchmark_spec) and the refusal of a data root the built-in benchmark
// would not read (check_data_root_is_read, open_benchmark), or of the built-in benchmark's
// generator settings beside a data set on disk (check_generator_settings_are_read).

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

// The Train tab (its greyed-out fields) and earlier versions recorded the generator's size and
// seed with a data set on disk, which reads neither: such a run's data is its data set alone, the
// same as a run without them, and it opens without the refusal new work gets.
TEST(RunBenchmarkSpec, TheGeneratorsSettingsRecordedWithADataSetOnDiskAreNotItsData) {
  TrainConfig c;
  c.benchmark = "manifest";
  c.benchmark_root = "/data/mine.jsonl";
  const BenchmarkSpec plain = run_benchmark_spec(c, "/cache");
  c.benchmark_size = BenchmarkSize::kLarge;
  c.data_seed = 7;
  const BenchmarkSpec recorded = run_benchmark_spec(c, "/cache");
  EXPECT_EQ(recorded.size, plain.size);
  EXPECT_EQ(recorded.seed, plain.seed);
  EXPECT_EQ(benchmark_data_key(recorded), benchmark_data_key(plain));
  EXPECT_NO_THROW(check_generator_settings_are_read(recorded.name, recorded.size, recorded.seed));
  // The built-in benchmark keeps them: they are its data.
  c.benchmark = "synthetic";
  EXPECT_EQ(run_benchmark_spec(c, "/cache").size, "large");
  EXPECT_EQ(run_benchmark_spec(c, "/cache").seed, 7u);
}

TEST(RunBenchmarkSpec, NewWorkWithTheGeneratorsSettingsBesideADataSetOnDiskIsRefused) {
  EXPECT_NO_THROW(check_generator_settings_are_read("synthetic", "large", 7));
  EXPECT_NO_THROW(check_generator_settings_are_read("manifest", "default", 1));
  const auto refusal = [](const std::string& benchmark, const std::string& size, uint64_t seed) {
    try {
      check_generator_settings_are_read(benchmark, size, seed);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(
      refusal("urban1k", "small", 1),
      "--benchmark-size small: --benchmark urban1k reads its data set as it is; the size and "
      "--data-seed shape the built-in benchmark only (--benchmark synthetic): leave them out");
  EXPECT_EQ(refusal("manifest", "default", 7).rfind("--data-seed 7: --benchmark manifest", 0), 0u);
  // open_benchmark refuses before the data set is read: this root does not exist.
  BenchmarkSpec spec;
  spec.name = "docci";
  spec.root = "/no/such/docci";
  spec.seed = 3;
  try {
    open_benchmark(spec);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--data-seed 3: --benchmark docci", 0), 0u) << e.what();
  }
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
