// Tests core/job/located_checkpoints: a database moved or copied with its checkpoints folder finds
// its runs' files in its own folder, a file left only at the recorded place is still found there,
// and a file in another database's folder is told apart from one in a folder of no database.

#include "job/located_checkpoints.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "job/workbench_paths.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using test::ScratchDir;
using test::write_text_file;
namespace fs = std::filesystem;

void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  write_text_file(p, text);
}

TEST(LocatedCheckpoints, AMovedDatabaseFindsItsFilesInItsOwnFolder) {
  ScratchDir dir;
  const std::string old_db = (dir.path() / "server" / "runs.db").string();
  const std::string new_db = (dir.path() / "desktop" / "runs.db").string();
  fs::create_directories(dir.path() / "desktop");
  int64_t run = 0;
  {
    RunStore store(new_db);
    run = store.create_run(RunRecord{});
    // Recorded by the database at its old place, as the trainer records paths.
    const std::string recorded =
        (fs::path(run_checkpoint_dir(old_db, run)) / "epoch-1.pt").string();
    store.add_checkpoint(run, {1, 10, recorded, 50.0, 0});
    store.add_checkpoint(run, {2, 20, (dir.path() / "gone" / "epoch-2.pt").string(), 51.0, 0});
  }
  write_file(fs::path(run_checkpoint_dir(new_db, run)) / "epoch-1.pt", "weights");
  RunStore store(new_db);
  const auto rows = located_checkpoints(store, run);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].path, (fs::path(run_checkpoint_dir(new_db, run)) / "epoch-1.pt").string());
  EXPECT_EQ(rows[0].epoch, 1);
  EXPECT_EQ(rows[0].step, 10);
  // Nowhere to be found: the recorded path stands, so the error names what was recorded.
  EXPECT_EQ(rows[1].path, (dir.path() / "gone" / "epoch-2.pt").string());
}

TEST(LocatedCheckpoints, TheOwnFolderWinsOverAFileStillAtTheRecordedPlace) {
  ScratchDir dir;
  const std::string original = (dir.path() / "a.db").string();
  const std::string copy = (dir.path() / "b.db").string();
  const fs::path recorded = fs::path(run_checkpoint_dir(original, 1)) / "epoch-3.pt";
  write_file(recorded, "original");
  // A copy without a folder of its own reads the original's file ...
  EXPECT_EQ(located_checkpoint_file(copy, 1, recorded.string()), recorded.string());
  // ... and with one, its own (each copy trains on from its own weights).
  const fs::path own = fs::path(run_checkpoint_dir(copy, 1)) / "epoch-3.pt";
  write_file(own, "copy");
  EXPECT_EQ(located_checkpoint_file(copy, 1, recorded.string()), own.string());
  // Another run's folder is not this run's.
  EXPECT_EQ(located_checkpoint_file(copy, 2, recorded.string()), recorded.string());
  EXPECT_EQ(located_checkpoint_file(copy, 1, ""), "");
}

TEST(LocatedCheckpoints, TheDatabaseOfACheckpointsFolder) {
  ScratchDir dir;
  const std::string db = (dir.path() / "runs.db").string();
  const std::string file = (fs::path(run_checkpoint_dir(db, 4)) / "epoch-1.pt").string();
  EXPECT_EQ(checkpoint_folder_database(file), "") << "no database file there";
  write_text_file(db, "");
  EXPECT_EQ(fs::path(checkpoint_folder_database(file)), fs::absolute(db));
  EXPECT_EQ(checkpoint_folder_database((dir.path() / "elsewhere" / "epoch-1.pt").string()), "");
  EXPECT_EQ(checkpoint_folder_database((dir.path() / ".checkpoints" / "run-1" / "e.pt").string()),
            "");
  EXPECT_EQ(checkpoint_folder_database("epoch-1.pt"), "");
}

}  // namespace
}  // namespace hnclip
