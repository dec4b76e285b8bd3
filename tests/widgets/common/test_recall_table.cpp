// RecallTable: best-per-column flags, CSV and LaTeX text of a hand-made table, and the rows taken
// from run summaries at their reported epoch.
#include <cmath>
#include <limits>

#include <QtTest>

#include "widgets/common/recall_table.h"

using hnclip::gui::RecallTable;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

RecallTable hand_made() {
  RecallTable::Row a;
  a.run_id = 1;
  a.run_name = "a_b & 50%";
  a.epoch = 3;
  a.values = {10, 30, 45.5, 60, 70, 12, 33, 44.004, 61, 72};
  a.test_set = "k";
  a.test_set_label = "my data, v2 / test";
  RecallTable::Row b;
  b.run_id = 2;
  b.run_name = "hn, γ=0.5";
  b.epoch = 5;
  b.values = {12.5, 30, 40, 65.25, kNaN, 11, 35, 44.001, 60, 71};
  b.test_set = "k";
  b.test_set_label = "my data, v2 / test";
  return RecallTable({a, b});
}
}  // namespace

class TestRecallTable : public QObject {
  Q_OBJECT
 private slots:
  void best_per_column() {
    const RecallTable t = hand_made();
    // t2i: R@1 b, R@5 tie, R@10 a, R@25 b, R@50 a (b missing); i2t: a, b, tie at 2 decimals, a, a.
    const bool a_best[10] = {false, true, true, false, true, true, false, true, true, true};
    const bool b_best[10] = {true, true, false, true, false, false, true, true, false, false};
    for (int c = 0; c < RecallTable::kValueColumns; ++c) {
      QVERIFY2(t.isBest(0, c) == a_best[c], qPrintable(QString("row a column %1").arg(c)));
      QVERIFY2(t.isBest(1, c) == b_best[c], qPrintable(QString("row b column %1").arg(c)));
    }
  }

  void csv_text() {
    QCOMPARE(
        hand_made().toCsv(),
        QString::fromUtf8(
            "run,epoch,test_set,t2i_R@1,t2i_R@5,t2i_R@10,t2i_R@25,t2i_R@50,"
            "i2t_R@1,i2t_R@5,i2t_R@10,i2t_R@25,i2t_R@50\n"
            "a_b & 50%,3,\"my data, v2 / test\",10.00,30.00,45.50,60.00,70.00,12.00,33.00,"
            "44.00,61.00,72.00\n"
            "\"hn, γ=0.5\",5,\"my data, v2 / test\",12.50,30.00,40.00,65.25,,11.00,35.00,44.00,"
            "60.00,71.00\n"));
  }

  void csv_quotes_quotes() {
    RecallTable::Row r;
    r.run_name = "say \"hi\"";
    r.values.fill(kNaN);
    QCOMPARE(RecallTable({r}).toCsv().split('\n').at(1), QString("\"say \"\"hi\"\"\",,,,,,,,,,,,"));
  }

  void latex_text() {
    QCOMPARE(
        hand_made().toLatex(),
        QString::fromUtf8(
            "\\begin{tabular}{lrrrrrrrrrrr}\n"
            "\\toprule\n"
            " & & \\multicolumn{5}{c}{Text$\\to$Image} & \\multicolumn{5}{c}{Image$\\to$Text} "
            "\\\\\n"
            "\\cmidrule(lr){3-7} \\cmidrule(lr){8-12}\n"
            "Run & Epoch & R@1 & R@5 & R@10 & R@25 & R@50 & R@1 & R@5 & R@10 & R@25 & R@50 \\\\\n"
            "\\midrule\n"
            "a\\_b \\& 50\\% & 3 & 10.00 & \\textbf{30.00} & \\textbf{45.50} & 60.00 & "
            "\\textbf{70.00} & "
            "\\textbf{12.00} & 33.00 & \\textbf{44.00} & \\textbf{61.00} & \\textbf{72.00} \\\\\n"
            "hn, γ=0.5 & 5 & \\textbf{12.50} & \\textbf{30.00} & 40.00 & \\textbf{65.25} & -- & "
            "11.00 & \\textbf{35.00} & \\textbf{44.00} & 60.00 & 71.00 \\\\\n"
            "\\bottomrule\n"
            "\\end{tabular}\n"));
  }

  // Start rows: one per distinct epoch-0 score (shared by the runs fine-tuned from it), first,
  // never marked best even when they beat every fine-tuned row.
  void start_rows_are_a_reference_never_a_best() {
    std::vector<hnclip::gui::RunSummary> runs;
    const int ks[5] = {1, 5, 10, 25, 50};
    for (int id : {4, 3, 5}) {  // listed 4 before 3: the start row still says "runs 3, 4"
      hnclip::RunRecord rec;
      rec.id = id;
      rec.name = "run" + std::to_string(id);
      rec.config_json = "{}";
      std::vector<hnclip::EpochEvalRow> evals;
      for (int epoch : {0, 1})
        for (const char* dir : {"t2i", "i2t"})
          for (int i = 0; i < 5; ++i) {
            const double start = id == 5 ? 70.0 : 87.32;  // runs 3 and 4 share one start
            evals.push_back(
                {epoch, epoch * 10, "test", dir, ks[i], (epoch == 0 ? start : 60.0 + id) + i});
          }
      runs.push_back(hnclip::gui::make_run_summary(rec, evals, "/tmp/x/runs.db"));
    }
    const RecallTable t = RecallTable::fromSummaries(runs, RecallTable::StartRows::Include);
    QCOMPARE(t.rows().size(), size_t(5));
    QVERIFY(t.rows()[0].start && t.rows()[1].start && !t.rows()[2].start);
    QCOMPARE(t.rows()[0].run_name, std::string("start (runs 3, 4)"));
    QCOMPARE(t.rows()[0].run_id, int64_t(0));
    QCOMPARE(t.rows()[1].run_name, std::string("start (run 5)"));
    QCOMPARE(t.rows()[0].values[0], 87.32);
    for (int c = 0; c < RecallTable::kValueColumns; ++c) {
      QVERIFY(!t.isBest(0, c) && !t.isBest(1, c));
      QVERIFY(t.isBest(4, c));  // run 5: the best fine-tuned row
    }
    QCOMPARE(RecallTable::fromSummaries(runs).rows().size(), size_t(3));  // Omit: as before
  }

  void latex_escape_specials() {
    QCOMPARE(hnclip::gui::latex_escape(QStringLiteral("a\\b~c^d{e}#f$g")),
             QStringLiteral(
                 "a\\textbackslash{}b\\textasciitilde{}c\\textasciicircum{}d\\{e\\}\\#f\\$g"));
  }

  void rows_from_summaries_use_report_epoch() {
    hnclip::RunRecord rec;
    rec.id = 9;
    rec.name = "r";
    rec.config_json = "{}";
    rec.best_epoch = 2;  // the stored choice does not override the rule: epoch 1's mean is higher
    std::vector<hnclip::EpochEvalRow> evals;
    const int ks[5] = {1, 5, 10, 25, 50};
    for (int epoch : {1, 2})
      for (const char* dir : {"i2t", "t2i"})
        for (int i = 0; i < 5; ++i)
          evals.push_back(
              {epoch, epoch * 10, "test", dir, ks[i],
               (epoch == 1 ? 50.0 : 20.0) + i + (std::string(dir) == "i2t" ? 0.5 : 0.0)});
    const auto s = hnclip::gui::make_run_summary(rec, evals, "/tmp/x/runs.db");
    QCOMPARE(s.report_epoch, 1);
    QCOMPARE(s.best_r1_t2i, 50.0);
    QCOMPARE(s.best_r1_i2t, 50.5);
    const RecallTable t = RecallTable::fromSummaries({s});
    QCOMPARE(t.rows().size(), size_t(1));
    QCOMPARE(t.rows()[0].epoch, 1);
    QCOMPARE(t.rows()[0].values[0], 50.0);  // t2i R@1
    QCOMPARE(t.rows()[0].values[4], 54.0);  // t2i R@50
    QCOMPARE(t.rows()[0].values[5], 50.5);  // i2t R@1
    QCOMPARE(t.rows()[0].values[9], 54.5);  // i2t R@50

    rec.best_epoch = -1;  // none recorded: the same rule, the same epoch
    QCOMPARE(hnclip::gui::make_run_summary(rec, evals, "/tmp/x/runs.db").report_epoch, 1);
    const auto none = hnclip::gui::make_run_summary(rec, {}, "/tmp/x/runs.db");
    QCOMPARE(none.report_epoch, -1);
    QVERIFY(std::isnan(none.best_r1_t2i));
    QCOMPARE(RecallTable::fromSummaries({none}).toCsv().split('\n').at(1),
             QString("r,,synthetic default (seed 1) / test,,,,,,,,,,"));
  }

  // A run trained with --test-split val chose its best epoch on val and stored its recall there:
  // its row shows that epoch and those values, not an empty row for want of a "test" split.
  void rows_of_a_run_evaluated_on_another_split() {
    hnclip::RunRecord rec;
    rec.id = 3;
    rec.name = "on val";
    rec.config_json = R"({"test_split": "val"})";
    std::vector<hnclip::EpochEvalRow> evals;
    for (int epoch : {0, 1, 2})
      for (const char* dir : {"i2t", "t2i"})
        evals.push_back({epoch, epoch * 10, "val", dir, 1, epoch == 1 ? 70.0 : 40.0 + epoch});
    const auto s = hnclip::gui::make_run_summary(rec, evals, "/tmp/x/runs.db");
    QCOMPARE(s.report_epoch, 1);
    QCOMPARE(s.best_r1_t2i, 70.0);
    QCOMPARE(s.start_r1_i2t, 40.0);
    QCOMPARE(s.recall(2, "t2i", 1), 42.0);
    const RecallTable t = RecallTable::fromSummaries({s}, RecallTable::StartRows::Include);
    QCOMPARE(t.rows().size(), size_t(2));  // the start, then the run at its best epoch
    QCOMPARE(t.rows()[0].values[0], 40.0);
    QCOMPARE(t.rows()[1].epoch, 1);
    QCOMPARE(t.rows()[1].values[0], 70.0);
  }

  // Runs tested on different data (another size of the benchmark, another split) are listed,
  // but no value is marked best; each keeps its own start row even when the starts print alike.
  void runs_on_different_test_sets_have_no_best() {
    std::vector<hnclip::gui::RunSummary> runs;
    const std::string configs[] = {R"({"benchmark_size": "small"})", "{}",
                                   R"({"test_split": "val"})", "{}"};
    for (int id = 1; id <= 4; ++id) {
      hnclip::RunRecord rec;
      rec.id = id;
      rec.name = "r" + std::to_string(id);
      rec.config_json = configs[id - 1];
      const std::string split = id == 3 ? "val" : "test";
      std::vector<hnclip::EpochEvalRow> evals;
      for (int epoch : {0, 1})
        for (const char* dir : {"t2i", "i2t"})
          evals.push_back({epoch, epoch * 10, split, dir, 1, epoch == 0 ? 50.0 : 60.0 + id});
      runs.push_back(hnclip::gui::make_run_summary(rec, evals, "/tmp/x/runs.db"));
    }
    QCOMPARE(runs[0].test_set.label, std::string("synthetic small (seed 1) / test"));
    QVERIFY(runs[1].test_set.key != runs[0].test_set.key);
    QVERIFY(runs[2].test_set.key != runs[1].test_set.key);
    QCOMPARE(runs[3].test_set.key, runs[1].test_set.key);

    const RecallTable mixed = RecallTable::fromSummaries(runs, RecallTable::StartRows::Include);
    QVERIFY(!mixed.comparable());
    QCOMPARE(mixed.rows().size(), size_t(3 + 4));  // starts: small, default (runs 2, 4), val
    QCOMPARE(mixed.rows()[1].run_name, std::string("start (runs 2, 4)"));
    for (int r = 0; r < static_cast<int>(mixed.rows().size()); ++r)
      for (int c = 0; c < RecallTable::kValueColumns; ++c) QVERIFY(!mixed.isBest(r, c));
    QVERIFY(!mixed.toLatex().contains("\\textbf"));
    // Both exports say which data each row was measured on; LaTeX only needs the column here.
    const QStringList csv = mixed.toCsv().split('\n');
    QVERIFY2(csv.at(0).startsWith("run,epoch,test_set,t2i_R@1"), qPrintable(csv.at(0)));
    QVERIFY2(csv.at(4).startsWith("r1,1,synthetic small (seed 1) / test,61.00"),
             qPrintable(csv.at(4)));
    QVERIFY2(csv.at(6).startsWith("r3,1,synthetic default (seed 1) / val,63.00"),
             qPrintable(csv.at(6)));
    const QString latex = mixed.toLatex();
    QVERIFY2(latex.startsWith("\\begin{tabular}{llrrrrrrrrrrr}\n\\toprule\n & & & \\multicolumn"),
             qPrintable(latex));
    QVERIFY2(
        latex.contains("\\cmidrule(lr){4-8} \\cmidrule(lr){9-13}\nRun & Epoch & Test set & R@1"),
        qPrintable(latex));
    QVERIFY2(latex.contains("r3 & 1 & synthetic default (seed 1) / val & 63.00 & "),
             qPrintable(latex));

    // Runs 2 and 4 share their test set: the higher one is the best.
    const RecallTable same = RecallTable::fromSummaries({runs[1], runs[3]});
    QVERIFY(same.comparable());
    QVERIFY(same.isBest(1, 0) && !same.isBest(0, 0));
    QVERIFY(!same.toLatex().contains("Test set"));
  }

  // A run whose test split holds images it trained on (counted in its data summary when it was
  // created) is labelled so, and is no best over a run of the same split without that count.
  void a_test_split_partly_trained_on_is_a_set_of_its_own() {
    std::vector<hnclip::gui::RunSummary> runs;
    for (int id = 1; id <= 2; ++id) {
      hnclip::RunRecord rec;
      rec.id = id;
      rec.name = "r" + std::to_string(id);
      rec.config_json = "{}";
      rec.data_summary_json =
          id == 1
              ? R"({"splits": {"test": {"images": 162}}, "shared_images": {"test": {"train": 20}}})"
              : R"({"splits": {"test": {"images": 162}}})";
      std::vector<hnclip::EpochEvalRow> evals;
      for (int epoch : {0, 1})
        for (const char* dir : {"t2i", "i2t"})
          evals.push_back({epoch, epoch * 10, "test", dir, 1, epoch == 0 ? 50.0 : 60.0 + id});
      runs.push_back(hnclip::gui::make_run_summary(rec, evals, "/tmp/x/runs.db"));
    }
    QCOMPARE(runs[0].test_set.label,
             std::string("synthetic default (seed 1) / test (20 of 162 images trained on)"));
    QCOMPARE(runs[1].test_set.label, std::string("synthetic default (seed 1) / test"));
    const RecallTable t = RecallTable::fromSummaries(runs);
    QVERIFY(!t.comparable());
    for (int r = 0; r < static_cast<int>(t.rows().size()); ++r)
      for (int c = 0; c < RecallTable::kValueColumns; ++c) QVERIFY(!t.isBest(r, c));
  }

  // A run needs no name (the CLI and the Train tab start unnamed runs): its row still says which
  // run it is, in the window and in both exports, never a blank first cell.
  void unnamed_runs_go_by_their_number() {
    hnclip::RunRecord rec;
    rec.id = 7;
    rec.config_json = "{}";
    std::vector<hnclip::EpochEvalRow> evals;
    for (const char* dir : {"i2t", "t2i"})
      for (int k : {1, 5, 10, 25, 50}) evals.push_back({1, 10, "test", dir, k, 40.0 + k});
    const RecallTable t =
        RecallTable::fromSummaries({hnclip::gui::make_run_summary(rec, evals, "/tmp/x/runs.db")});
    QCOMPARE(QString::fromStdString(t.rows().at(0).run_name), QString("run 7"));
    QVERIFY2(
        t.toCsv().split('\n').at(1).startsWith("run 7,1,synthetic default (seed 1) / test,41.00"),
        qPrintable(t.toCsv()));
    QVERIFY2(t.toLatex().contains("run 7 & 1 & "), qPrintable(t.toLatex()));
  }
};

QTEST_MAIN(TestRecallTable)
#include "test_recall_table.moc"
