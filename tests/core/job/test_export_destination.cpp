// check_export_destination: where an export or pretrain --out may write. Files made here: a run
// database, a manifest, a run's checkpoint folder (new and legacy layout), an earlier export.

#include "job/export_destination.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <string>

#include "job/workbench_paths.h"
#include "model/state_dict_file.h"
#include "store/run_store.h"
#include "support/test_dirs.h"
#include "train/train_config.h"

namespace {

namespace fs = std::filesystem;

// The message of the ConfigError check_export_destination throws, or "" when it accepts `out`.
std::string refusal(const fs::path& out, const fs::path& database, const fs::path& source = {}) {
  try {
    hnclip::check_export_destination("out", out.string(), database.string(), source.string());
  } catch (const hnclip::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ExportDestination, FilesThatAreNoModelAndTheRunsOwnFilesAreRefused) {
  hnclip::test::ScratchDir dir;
  const auto database = dir / "runs.db";
  { hnclip::RunStore store(database.string()); }
  const auto other_database = dir / "other.db";
  { hnclip::RunStore store(other_database.string()); }
  std::ofstream(dir / "data.jsonl") << "{\"image\": \"a.png\", \"caption\": \"a cat\"}\n";
  const auto run_folder = fs::path(hnclip::run_checkpoint_dir(database.string(), 1));
  fs::create_directories(run_folder);
  const auto checkpoint = run_folder / "epoch-1.pt";
  hnclip::write_state_dict_file(checkpoint.string(), {{"w", torch::ones({2})}});
  const auto legacy = fs::path(hnclip::legacy_checkpoint_root(database.string()));
  fs::create_directories(legacy / "run-2");

  EXPECT_NE(refusal(database, database)
                .find("out " + database.string() + ": exists and is an SQLite database"),
            std::string::npos);
  EXPECT_NE(refusal(other_database, database).find("an SQLite database"), std::string::npos);
  EXPECT_NE(refusal(dir / "data.jsonl", database).find("neither a zip archive nor a safetensors"),
            std::string::npos);
  // The source itself, also named another way.
  EXPECT_NE(refusal(run_folder / ".." / "run-1" / "epoch-1.pt", fs::path{}, checkpoint)
                .find("is the checkpoint being exported"),
            std::string::npos);
  EXPECT_NE(refusal(checkpoint, database).find("a checkpoint folder of the run database"),
            std::string::npos);
  EXPECT_NE(refusal(run_folder / "new.safetensors", database).find("a checkpoint folder"),
            std::string::npos);
  EXPECT_NE(refusal(legacy / "run-2" / "epoch-3.pt", database).find("a checkpoint folder"),
            std::string::npos);
  // Through a symbolic link to the checkpoint folder.
  fs::create_directory_symlink(run_folder, dir / "link");
  EXPECT_NE(refusal(dir / "link" / "x.pt", database).find("a checkpoint folder"),
            std::string::npos);
}

// Checked before the work, not after it: `pretrain --out /proc/x.pt` trained its epochs and then
// failed to write. /proc takes no new files, also for root (whom permission bits do not stop).
TEST(ExportDestination, AFolderThatTakesNoFileIsRefusedBeforehand) {
  hnclip::test::ScratchDir dir;
  const auto database = dir / "runs.db";
  EXPECT_NE(refusal("/proc/x.pt", database).find("out /proc/x.pt: no file can be written in /proc"),
            std::string::npos);
  std::ofstream(dir / "file.pt").close();
  EXPECT_NE(refusal(dir / "file.pt" / "x.pt", database).find("file.pt is not a folder"),
            std::string::npos);
  // Missing folders are the writers' to create; the check tries the nearest existing one and
  // leaves nothing there.
  EXPECT_EQ(refusal(dir / "new" / "deeper" / "x.pt", database), "");
  EXPECT_FALSE(fs::exists(dir / "new"));
  for (const auto& entry : fs::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename().string().find(".hnclip-write-check"), std::string::npos);
}

TEST(ExportDestination, NewFilesEarlierExportsAndEmptyFilesAreAccepted) {
  hnclip::test::ScratchDir dir;
  const auto database = dir / "runs.db";
  { hnclip::RunStore store(database.string()); }
  const auto earlier = dir / "clip.pt";
  hnclip::write_state_dict_file(earlier.string(), {{"w", torch::ones({2})}});
  std::ofstream(dir / "empty.pt").close();
  const auto legacy = fs::path(hnclip::legacy_checkpoint_root(database.string()));
  fs::create_directories(legacy);

  EXPECT_EQ(refusal(dir / "new.pt", database), "");
  EXPECT_EQ(refusal(earlier, database, dir / "source.pt"), "");
  EXPECT_EQ(refusal(dir / "empty.pt", database), "");
  // A user's own file in a plain checkpoints/ folder beside the database: not a run's folder.
  EXPECT_EQ(refusal(legacy / "mine.pt", database), "");
  // A database folder named like the checkpoint folder's prefix is not inside it.
  EXPECT_EQ(refusal(dir / "runs.db.checkpoints-old" / "x.pt", database), "");
}

}  // namespace
