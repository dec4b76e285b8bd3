// Tests core/job/stale_checkpoint_files: a killed writer's "<name>.tmp-<pid>" is removed, a live
// writer's is not, and nothing else in the checkpoint folders is touched — real checkpoints,
// look-alike names, files outside run-* folders.

#include "job/stale_checkpoint_files.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job/workbench_paths.h"
#include "support/test_dirs.h"
#include "train/checkpoint.h"

namespace hnclip {
namespace {

using test::ScratchDir;
using test::write_text_file;
namespace fs = std::filesystem;

pid_t reaped_child() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(StaleCheckpointFiles, TheWriterPidIsReadOnlyFromSaveCheckpointsOwnNames) {
  EXPECT_EQ(checkpoint_temporary_writer("epoch-3.pt.tmp-4242"), 4242);
  EXPECT_EQ(checkpoint_temporary_writer("epoch-3.pt"), 0);
  EXPECT_EQ(checkpoint_temporary_writer("epoch-3.pt.tmp-"), 0);
  EXPECT_EQ(checkpoint_temporary_writer("epoch-3.pt.tmp-12x"), 0);
  EXPECT_EQ(checkpoint_temporary_writer(".tmp-12"), 0);  // no final name before it
  EXPECT_EQ(checkpoint_temporary_writer("a.tmp-99999999999999999999999"), 0);  // not a pid
}

TEST(StaleCheckpointFiles, OnlyDeadWritersTemporariesAreRemoved) {
  ScratchDir dir;
  const std::string db = (dir / "runs.db").string();
  const fs::path root = checkpoint_root(db);
  const fs::path run1 = root / "run-1";
  const fs::path run2 = root / "run-2";
  const fs::path legacy = dir / "checkpoints" / "run-3";  // where runs kept them before
  fs::create_directories(legacy);
  fs::create_directories(run1);
  fs::create_directories(run2);
  const pid_t dead = reaped_child();
  const std::string dead_tmp = "epoch-2.pt.tmp-" + std::to_string(dead);
  write_text_file(run1 / dead_tmp, "half a checkpoint");
  write_text_file(run2 / dead_tmp, "another half");
  write_text_file(run1 / ("epoch-3.pt.tmp-" + std::to_string(::getpid())), "being written");
  write_text_file(run1 / "epoch-1.pt", "a finished checkpoint");
  write_text_file(run1 / "notes.tmp-abc", "not ours");
  write_text_file(root / dead_tmp, "outside every run folder");
  write_text_file(legacy / dead_tmp, "left before the folder was named after the database");

  EXPECT_EQ(remove_stale_checkpoint_temporaries(db), 3);
  EXPECT_FALSE(fs::exists(run1 / dead_tmp));
  EXPECT_FALSE(fs::exists(run2 / dead_tmp));
  EXPECT_FALSE(fs::exists(legacy / dead_tmp));
  EXPECT_TRUE(fs::exists(run1 / ("epoch-3.pt.tmp-" + std::to_string(::getpid()))));
  EXPECT_TRUE(fs::exists(run1 / "epoch-1.pt"));
  EXPECT_TRUE(fs::exists(run1 / "notes.tmp-abc"));
  EXPECT_TRUE(fs::exists(root / dead_tmp));
  EXPECT_EQ(remove_stale_checkpoint_temporaries(db), 0);
}

TEST(StaleCheckpointFiles, NoCheckpointFolderIsNothingToDo) {
  ScratchDir dir;
  EXPECT_EQ(remove_stale_checkpoint_temporaries((dir / "runs.db").string()), 0);
}

}  // namespace
}  // namespace hnclip
