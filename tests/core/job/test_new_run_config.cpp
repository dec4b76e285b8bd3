// settled_new_run_config / with_absolute_paths: every file a run names is recorded as an absolute
// path, so the run can be resumed, evaluated and compared from any folder. `--init start.pt` was
// recorded as "start.pt", and `eval 1` from another folder answered "--init start.pt: no such
// file or folder".

#include "job/new_run_config.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "train/builtin_recipe.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;

TEST(NewRunConfig, EveryFileItNamesIsRecordedAsAnAbsolutePath) {
  TrainConfig c;
  c.init = "start.pt";
  c.vocab = "vocab/bpe.txt.gz";
  c.benchmark_root = "data/../data/m.jsonl";
  c.goal_segments = "segments.jsonl";
  c.structxlip_words = "./words.txt";
  const TrainConfig settled = settled_new_run_config(c);
  const fs::path here = fs::current_path();
  EXPECT_EQ(settled.init, (here / "start.pt").string());
  EXPECT_EQ(settled.vocab, (here / "vocab/bpe.txt.gz").string());
  EXPECT_EQ(settled.benchmark_root, (here / "data/m.jsonl").string());
  EXPECT_EQ(settled.goal_segments, (here / "segments.jsonl").string());
  EXPECT_EQ(settled.structxlip_words, (here / "words.txt").string());
  // Already absolute: as given.
  c.init = "/models/clip.pt";
  EXPECT_EQ(with_absolute_paths(c).init, "/models/clip.pt");
}

TEST(NewRunConfig, WordsAndEmptyValuesAreKept) {
  TrainConfig c;
  c.init = kPretrainedInit;
  EXPECT_EQ(with_absolute_paths(c).init, kPretrainedInit);
  c.init = kRandomInit;
  EXPECT_EQ(with_absolute_paths(c).init, kRandomInit);
  c.init.clear();
  c.vocab.clear();
  const TrainConfig settled = with_absolute_paths(c);
  EXPECT_EQ(settled.init, "");
  EXPECT_EQ(settled.vocab, "");  // the shipped vocabulary
  EXPECT_EQ(settled.benchmark_root, "");
}

}  // namespace
}  // namespace hnclip
