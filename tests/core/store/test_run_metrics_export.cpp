// Tests of core/store/run_metrics_export.cpp: a run recorded through RunRecorder with known values
// comes out as exactly the documented long table, in CSV and JSON lines; bad extensions, unknown
// runs and unwritable paths fail naming what is wrong and leave no file behind.

#include "store/run_metrics_export.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "store/run_recorder.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

RetrievalResult result(const std::string& direction, double r1) {
  RetrievalResult r;
  r.direction = direction;
  r.recall = {{1, r1}, {5, r1 + 10}};
  r.ranks = {1, 4};
  r.topk = {{0, 1}, {3, 1}};
  return r;
}

// Start evaluation, two steps, a probe of step 2 (inf ratio, NaN cosine, two mass buckets), and
// epoch 1's evaluation at step 2.
class RunMetricsExportTest : public ::testing::Test {
 protected:
  RunMetricsExportTest() : store_((dir_ / "runs.db").string()) {
    RunRecord r;
    r.name = "exported";
    other_ = store_.create_run(r);  // a second run whose rows must not leak into the export
    run_ = store_.create_run(r);
    RunRecorder recorder(store_, run_);
    recorder.on_eval(EvalEvent{0, 0, "test", result("t2i", 10.5), result("i2t", 20.25)});
    for (int64_t s = 1; s <= 2; ++s) {
      StepEvent e;
      e.step = s;
      e.epoch = 1;
      e.wall_time_s = 0.5 * static_cast<double>(s);
      e.loss = 4.0 - static_cast<double>(s);
      e.loss_standard = s == 1 ? kNaN : 1.5;
      e.lr = 1e-5 * static_cast<double>(s);
      e.logit_scale = 4.625;
      e.grad_norm = 0.125;
      recorder.on_step(e);
    }
    ProbeEvent p{2, 1, 1.5, 2.5, 0.0, 3.0, kInf, kNaN, {0.75, 0.25}, {0.5, 0.5}};
    recorder.on_probe(p);
    recorder.on_eval(EvalEvent{1, 2, "test", result("t2i", 30.0), result("i2t", 40.0)});
    RunRecorder(store_, other_).on_step(StepEvent{1, 1, 1, 1, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0});
  }
  ScratchDir dir_;
  RunStore store_;
  int64_t run_ = 0, other_ = 0;
};

TEST_F(RunMetricsExportTest, CsvIsTheDocumentedLongTable) {
  const std::string id = std::to_string(run_);
  const std::string expected =
      "kind,run_id,epoch,step,wall_time_s,metric,value\n"
      "step," + id + ",1,1,0.5,loss,3\n"
      "step," + id + ",1,1,0.5,loss_standard,\n"
      "step," + id + ",1,1,0.5,lr,1e-05\n"
      "step," + id + ",1,1,0.5,logit_scale,4.625\n"
      "step," + id + ",1,1,0.5,grad_norm,0.125\n"
      "step," + id + ",1,2,1,loss,2\n"
      "step," + id + ",1,2,1,loss_standard,1.5\n"
      "step," + id + ",1,2,1,lr,2e-05\n"
      "step," + id + ",1,2,1,logit_scale,4.625\n"
      "step," + id + ",1,2,1,grad_norm,0.125\n"
      "probe," + id + ",1,2,1,loss_standard,1.5\n"
      "probe," + id + ",1,2,1,loss_boosted,2.5\n"
      "probe," + id + ",1,2,1,grad_norm_standard,0\n"
      "probe," + id + ",1,2,1,grad_norm_boosted,3\n"
      "probe," + id + ",1,2,1,grad_ratio,inf\n"
      "probe," + id + ",1,2,1,grad_cosine,\n"
      "probe," + id + ",1,2,1,mass_share_plain_0,0.75\n"
      "probe," + id + ",1,2,1,mass_share_plain_1,0.25\n"
      "probe," + id + ",1,2,1,mass_share_boosted_0,0.5\n"
      "probe," + id + ",1,2,1,mass_share_boosted_1,0.5\n"
      "eval," + id + ",0,0,0,test_i2t_r1,20.25\n"
      "eval," + id + ",0,0,0,test_i2t_r5,30.25\n"
      "eval," + id + ",0,0,0,test_t2i_r1,10.5\n"
      "eval," + id + ",0,0,0,test_t2i_r5,20.5\n"
      "eval," + id + ",1,2,1,test_i2t_r1,40\n"
      "eval," + id + ",1,2,1,test_i2t_r5,50\n"
      "eval," + id + ",1,2,1,test_t2i_r1,30\n"
      "eval," + id + ",1,2,1,test_t2i_r5,40\n";
  const auto path = dir_ / "m.csv";
  EXPECT_EQ(write_run_metrics(store_, run_, path.string()), 28u);
  EXPECT_EQ(test::read_text_file(path), expected);
  EXPECT_EQ(format_metrics(run_metrics_rows(store_, run_), MetricsFileFormat::Csv), expected);
}

// Transfer evaluations (eval --split shifted, experiment eval) were left out of "every
// evaluation". They follow the run's own, keyed by the data and split; the step is the epoch's
// (-1, with no wall time, for an epoch with no step on record).
TEST_F(RunMetricsExportTest, TransferEvaluationsFollowKeyedByTheirData) {
  store_.write_transfer_eval(run_, 1, "synthetic:size=small:seed=1", "shifted", 137, 137,
                             result("t2i", 12.5), result("i2t", 7.25));
  store_.write_transfer_eval(run_, 3, "manifest:/data/a,b.jsonl", "test", 5, 9, result("t2i", 60.0),
                             result("i2t", 80.0));
  const std::string id = std::to_string(run_);
  const std::string expected_tail = "eval," + id +
                                    ",1,2,1,test_t2i_r5,40\n"
                                    "transfer," +
                                    id +
                                    ",3,-1,,\"manifest:/data/a,b.jsonl#test_i2t_r1\",80\n"
                                    "transfer," +
                                    id +
                                    ",3,-1,,\"manifest:/data/a,b.jsonl#test_i2t_r5\",90\n"
                                    "transfer," +
                                    id +
                                    ",3,-1,,\"manifest:/data/a,b.jsonl#test_t2i_r1\",60\n"
                                    "transfer," +
                                    id +
                                    ",3,-1,,\"manifest:/data/a,b.jsonl#test_t2i_r5\",70\n"
                                    "transfer," +
                                    id +
                                    ",1,2,1,synthetic:size=small:seed=1#shifted_i2t_r1,7.25\n"
                                    "transfer," +
                                    id +
                                    ",1,2,1,synthetic:size=small:seed=1#shifted_i2t_r5,17.25\n"
                                    "transfer," +
                                    id +
                                    ",1,2,1,synthetic:size=small:seed=1#shifted_t2i_r1,12.5\n"
                                    "transfer," +
                                    id + ",1,2,1,synthetic:size=small:seed=1#shifted_t2i_r5,22.5\n";
  const auto csv = format_metrics(run_metrics_rows(store_, run_), MetricsFileFormat::Csv);
  ASSERT_GE(csv.size(), expected_tail.size());
  EXPECT_EQ(csv.substr(csv.size() - expected_tail.size()), expected_tail) << csv;
  EXPECT_EQ(run_metrics_rows(store_, run_).size(), 36u);
}

TEST_F(RunMetricsExportTest, JsonLinesCarryTheSameRowsWithNullForNaN) {
  const auto path = dir_ / "m.jsonl";
  EXPECT_EQ(write_run_metrics(store_, run_, path.string()), 28u);
  const std::string text = test::read_text_file(path);
  std::vector<nlohmann::json> rows;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    ASSERT_NE(nl, std::string::npos) << "every row ends with a newline";
    rows.push_back(nlohmann::json::parse(text.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  ASSERT_EQ(rows.size(), 28u);
  EXPECT_EQ(rows[0], (nlohmann::json{{"kind", "step"}, {"run_id", run_}, {"epoch", 1}, {"step", 1},
                                     {"wall_time_s", 0.5}, {"metric", "loss"}, {"value", 3.0}}));
  EXPECT_TRUE(rows[1]["value"].is_null());  // NaN loss_standard
  EXPECT_EQ(rows[14]["metric"], "grad_ratio");
  EXPECT_EQ(rows[14]["value"], "inf");
  EXPECT_TRUE(rows[15]["value"].is_null());  // NaN cosine
  EXPECT_EQ(rows[20], (nlohmann::json{{"kind", "eval"}, {"run_id", run_}, {"epoch", 0},
                                      {"step", 0}, {"wall_time_s", 0.0},
                                      {"metric", "test_i2t_r1"}, {"value", 20.25}}));
  EXPECT_EQ(rows[27]["metric"], "test_t2i_r5");
  EXPECT_EQ(rows[27]["wall_time_s"], 1.0);
}

TEST_F(RunMetricsExportTest, CsvFieldsThatNeedQuotesAreQuoted) {
  std::vector<MetricsExportRow> rows{{"eval", 1, 2, 3, kNaN, "a,\"b\"", -kInf}};
  EXPECT_EQ(format_metrics(rows, MetricsFileFormat::Csv),
            "kind,run_id,epoch,step,wall_time_s,metric,value\neval,1,2,3,,\"a,\"\"b\"\"\",-inf\n");
}

TEST_F(RunMetricsExportTest, WrongExtensionUnknownRunAndUnwritablePathLeaveNoFile) {
  try {
    write_run_metrics(store_, run_, (dir_ / "m.txt").string());
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\".txt\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(metrics_file_format("m.CSV"), std::invalid_argument);
  EXPECT_THROW(metrics_file_format("metrics"), std::invalid_argument);
  try {
    write_run_metrics(store_, 999, (dir_ / "m.csv").string());
    ADD_FAILURE() << "expected StoreError";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("run 999"), std::string::npos) << e.what();
  }
  const auto missing = dir_ / "no-such-folder" / "m.csv";
  try {
    write_run_metrics(store_, run_, missing.string());
    ADD_FAILURE() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  // A path that is a folder: the rename fails, the old folder stays and no temporary is left.
  fs::create_directory(dir_ / "taken.csv");
  EXPECT_THROW(write_run_metrics(store_, run_, (dir_ / "taken.csv").string()), std::runtime_error);
  EXPECT_TRUE(fs::is_directory(dir_ / "taken.csv"));
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    const auto name = entry.path().filename().string();
    EXPECT_TRUE(name == "taken.csv" || name.rfind("runs.db", 0) == 0) << "left behind: " << name;
  }
}

}  // namespace
}  // namespace hnclip
