// Tests of core/store/transfer_store.cpp (schema v8): a transfer evaluation round-trips, a second
// write for the same (run, epoch, benchmark, split) replaces the first while other splits stay,
// swapped directions and unknown runs are refused with nothing written, and deleting the run
// deletes its transfer rows; the count of the run's own training images among them (schema v10)
// round-trips, and rows written before it read back as not counted.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/run_store.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

RetrievalResult result(const std::string& direction, double r1) {
  RetrievalResult r;
  r.direction = direction;
  r.recall = {{1, r1}, {5, r1 + 10}};
  return r;
}

TEST(TransferStore, RoundTripReplaceRefuseAndCascade) {
  test::ScratchDir dir;
  RunStore store((dir / "runs.db").string());
  EXPECT_GE(store.schema_version(), 8);
  RunRecord rec;
  rec.name = "a";
  rec.status = RunStatus::Finished;
  const int64_t run = store.create_run(rec);
  const std::string bench = "synthetic:size=small:seed=1";
  store.write_transfer_eval(run, 3, bench, "shifted", 140, 140, result("t2i", 50), result("i2t", 40));
  store.write_transfer_eval(run, 3, bench, "test", 142, 142, result("t2i", 70), result("i2t", 60));
  auto rows = store.transfer_evals(run);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].benchmark, bench);
  EXPECT_EQ(rows[0].split, "shifted");
  EXPECT_EQ(rows[0].direction, "i2t");
  EXPECT_EQ(rows[0].k, 1);
  EXPECT_DOUBLE_EQ(rows[0].recall, 40);
  EXPECT_EQ(rows[0].images, 140);
  EXPECT_EQ(rows[0].epoch, 3);
  EXPECT_GT(rows[0].evaluated_at_ms, 0);

  store.write_transfer_eval(run, 3, bench, "shifted", 140, 140, result("t2i", 55), result("i2t", 45));
  rows = store.transfer_evals(run);
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_DOUBLE_EQ(rows[0].recall, 45);
  EXPECT_EQ(rows[4].split, "test");
  EXPECT_DOUBLE_EQ(rows[4].recall, 60);

  EXPECT_THROW(store.write_transfer_eval(run, 4, bench, "shifted", 1, 1, result("i2t", 1),
                                         result("t2i", 1)),
               StoreError);
  EXPECT_THROW(store.write_transfer_eval(run + 100, 1, bench, "shifted", 1, 1, result("t2i", 1),
                                         result("i2t", 1)),
               StoreError);
  EXPECT_EQ(store.transfer_evals(run).size(), 8u);

  store.delete_run(run);
  EXPECT_TRUE(store.transfer_evals(run).empty());
}

TEST(TransferStore, TheTrainingImagesAmongThemRoundTripAndEarlierRowsAreNotCounted) {
  test::ScratchDir dir;
  const std::string path = (dir / "runs.db").string();
  const std::string bench = "manifest /data/other.jsonl";
  int64_t run = 0;
  {
    RunStore store(path);
    run = store.create_run(RunRecord{});
    store.write_transfer_eval(run, 1, bench, "test", 10, 10, result("t2i", 50), result("i2t", 40),
                              5);
    store.write_transfer_eval(run, 1, bench, "val", 10, 10, result("t2i", 50), result("i2t", 40),
                              0);
    store.write_transfer_eval(run, 1, bench, "shifted", 10, 10, result("t2i", 50),
                              result("i2t", 40));
  }
  {
    RunStore store(path);
    for (const auto& row : store.transfer_evals(run)) {
      SCOPED_TRACE(row.split);
      if (row.split == "test") EXPECT_EQ(row.training_images, std::optional<int64_t>(5));
      if (row.split == "val") EXPECT_EQ(row.training_images, std::optional<int64_t>(0));
      if (row.split == "shifted") EXPECT_FALSE(row.training_images.has_value());
    }
  }
  // A database of schema v9 (no such column) with a row: migrated, the row is not counted.
  const std::string old_path = (dir / "v9.db").string();
  {
    RunStore store(old_path);
    store.create_run(RunRecord{});
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(old_path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "ALTER TABLE transfer_evals DROP COLUMN training_images; "
                         "INSERT INTO transfer_evals VALUES (1, 2, 'b', 'shifted', 't2i', 1, 30, "
                         "10, 10, 1000); PRAGMA user_version = 9;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  RunStore migrated(old_path);
  EXPECT_EQ(migrated.schema_version(), RunStore::latest_schema_version());
  const auto rows = migrated.transfer_evals(1);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].recall, 30);
  EXPECT_FALSE(rows[0].training_images.has_value());
}

}  // namespace
}  // namespace hnclip
