// Tests of core/store/transfer_store.cpp (schema v8): a transfer evaluation round-trips, a second
// write for the same (run, epoch, benchmark, split) replaces the first while other splits stay,
// swapped directions and unknown runs are refused with nothing written, and deleting the run
// deletes its transfer rows.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hnclip
