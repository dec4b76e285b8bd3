// RetrievalRunPicker's A / B rule: whatever order two runs are asked for or picked in, A is the
// control run (γ = 0) when exactly one of the two is one, otherwise the lower id; epochs travel
// with their runs when the two are swapped; the rule is stated beside the pickers and in their
// tooltips; long run names do not widen the pickers.
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include "widgets/narrow_screen.h"
#include "widgets/retrieval/retrieval_run_order.h"
#include "widgets/retrieval/retrieval_run_picker.h"

using hnclip::gui::RetrievalRunList;
using hnclip::gui::RetrievalRunPicker;
using hnclip::gui::RunSummary;

namespace {
RunSummary summary(int64_t id, double gamma) {
  RunSummary s;
  s.record.id = id;
  s.record.name = "run-" + std::to_string(id);
  s.gamma = gamma;
  s.report_epoch = 2;
  for (int epoch : {1, 2}) {
    hnclip::EpochEvalRow row;
    row.epoch = epoch;
    row.split = "test";
    row.direction = "t2i";
    row.k = 1;
    row.recall = 10.0 * epoch;
    s.evals.push_back(row);
  }
  return s;
}

// Newest first, as the loader lists them: 9 (γ 0.5), 7 (control), 5 (γ 0.5), 3 (control).
RetrievalRunList run_list() {
  RetrievalRunList list;
  list.runs = {summary(9, 0.5), summary(7, 0.0), summary(5, 0.5), summary(3, 0.0)};
  for (const auto& s : list.runs)
    list.splits[s.record.id] = {"one-split", "synthetic / test", "test"};
  return list;
}

std::pair<int64_t, int64_t> ab(const RetrievalRunPicker& p) { return {p.runA(), p.runB()}; }
using Pair = std::pair<int64_t, int64_t>;
}  // namespace

class TestRetrievalRunPicker : public QObject {
  Q_OBJECT
 private slots:
  void the_rule_itself() {
    const auto runs = run_list();
    const RunSummary* s9 = &runs.runs[0];
    const RunSummary* s7 = &runs.runs[1];
    const RunSummary* s5 = &runs.runs[2];
    const RunSummary* s3 = &runs.runs[3];
    QCOMPARE(hnclip::gui::retrieval_ab_order(9, s9, 7, s7), Pair(7, 9));  // the control first
    QCOMPARE(hnclip::gui::retrieval_ab_order(7, s7, 9, s9), Pair(7, 9));
    QCOMPARE(hnclip::gui::retrieval_ab_order(9, s9, 5, s5), Pair(5, 9));  // no control: lower id
    QCOMPARE(hnclip::gui::retrieval_ab_order(7, s7, 3, s3), Pair(3, 7));  // two controls: likewise
    QCOMPARE(hnclip::gui::retrieval_ab_order(5, s5, 7, s7), Pair(7, 5));  // control beats lower id
    // A configuration that could not be read is no control.
    RunSummary unreadable = *s3;
    unreadable.config_readable = false;
    QCOMPARE(hnclip::gui::retrieval_ab_order(3, &unreadable, 9, s9), Pair(3, 9));
    QCOMPARE(hnclip::gui::retrieval_ab_order(9, s9, 3, &unreadable), Pair(3, 9));
    QCOMPARE(hnclip::gui::retrieval_ab_order(9, nullptr, 7, s7), Pair(7, 9));
  }

  void asked_for_in_either_order() {
    RetrievalRunPicker picker;
    picker.setRuns(9, 7);  // before the list arrives
    picker.setRunList(run_list());
    QCOMPARE(ab(picker), Pair(7, 9));
    QSignalSpy changed(&picker, &RetrievalRunPicker::selectionChanged);
    picker.setRuns(9, 5);
    QCOMPARE(ab(picker), Pair(5, 9));
    QVERIFY(changed.count() >= 1);
    picker.setRuns(5, 7);
    QCOMPARE(ab(picker), Pair(7, 5));
    picker.setRuns(7, 3);
    QCOMPARE(ab(picker), Pair(3, 7));
  }

  void the_default_pair_follows_the_rule() {
    RetrievalRunPicker picker;
    picker.setRunList(run_list());
    // The two newest (9 and 7): 7 is the control.
    QCOMPARE(ab(picker), Pair(7, 9));
  }

  void epochs_travel_with_their_runs() {
    RetrievalRunPicker picker;
    picker.setRuns(9, 5);
    picker.setEpochs(1, 2);  // run 9 at epoch 1, run 5 at epoch 2
    picker.setRunList(run_list());
    QCOMPARE(ab(picker), Pair(5, 9));
    QCOMPARE(picker.epochA(), 2);
    QCOMPARE(picker.epochB(), 1);
  }

  void picking_in_the_boxes_follows_the_rule() {
    RetrievalRunPicker picker;
    picker.setRunList(run_list());
    picker.setRuns(5, 9);
    QCOMPARE(ab(picker), Pair(5, 9));
    auto* box_b = picker.findChild<QComboBox*>(QStringLiteral("retrievalRunB"));
    QVERIFY(box_b);
    // B := the control 7: it becomes A, and 5 moves to B.
    QSignalSpy changed(&picker, &RetrievalRunPicker::selectionChanged);
    box_b->setCurrentIndex(box_b->findData(QVariant::fromValue<qlonglong>(7)));
    QCOMPARE(ab(picker), Pair(7, 5));
    QCOMPARE(changed.count(), 1);
    // A := 9 (no control) beside B = 5: the lower id, 5, is A.
    auto* box_a = picker.findChild<QComboBox*>(QStringLiteral("retrievalRunA"));
    picker.setRuns(3, 5);
    QCOMPARE(ab(picker), Pair(3, 5));
    box_a->setCurrentIndex(box_a->findData(QVariant::fromValue<qlonglong>(9)));
    QCOMPARE(ab(picker), Pair(5, 9));
  }

  // One evaluated run: B was empty and the tab said only "no other evaluated run". Run A itself is
  // offered at another epoch (its start where evaluated), last in the list beside other runs.
  void a_run_is_compared_with_itself_at_another_epoch() {
    RunSummary only = summary(4, 0.5);
    hnclip::EpochEvalRow start = only.evals.front();
    start.epoch = 0;
    only.evals.push_back(start);
    RetrievalRunList list;
    list.runs = {only};
    list.splits[4] = {"one-split", "synthetic / test", "test"};
    RetrievalRunPicker picker;
    picker.setRunList(list);
    QCOMPARE(ab(picker), Pair(4, 4));
    QCOMPARE(picker.epochA(), 2);  // its best
    QCOMPARE(picker.epochB(), 0);  // its start
    QVERIFY2(picker.warning().isEmpty(), qPrintable(picker.warning()));
    auto* box_b = picker.findChild<QComboBox*>(QStringLiteral("retrievalRunB"));
    QVERIFY(box_b->currentText().contains(QStringLiteral("itself")));
    // Without a start evaluation: another fine-tuned epoch.
    only.evals.pop_back();
    list.runs = {only};
    picker.setRunList(list);
    QCOMPARE(ab(picker), Pair(4, 4));
    QCOMPARE(picker.epochB(), 1);
    // A run with one evaluated epoch has nothing to be compared with: said so.
    only.evals.pop_back();
    list.runs = {only};
    picker.setRunList(list);
    QCOMPARE(picker.runB(), int64_t{0});
    QVERIFY(picker.warning().contains(QStringLiteral("one evaluated epoch")));
    // Beside other runs, those come first.
    auto runs = run_list();
    runs.runs[0].evals.push_back(start);
    picker.setRunList(runs);
    QCOMPARE(ab(picker), Pair(7, 9));
    QCOMPARE(box_b->itemData(box_b->count() - 1).toLongLong(), qlonglong{7});
  }

  void the_rule_is_stated() {
    RetrievalRunPicker picker;
    auto* label = picker.findChild<QLabel*>(QStringLiteral("retrievalOrderRule"));
    QVERIFY(label);
    QVERIFY2(label->text().contains(QStringLiteral("control")), qPrintable(label->text()));
    for (const char* name : {"retrievalRunA", "retrievalRunB"}) {
      const QString tip = picker.findChild<QComboBox*>(QLatin1String(name))->toolTip();
      QVERIFY2(tip.contains(QStringLiteral("γ = 0")) && tip.contains(QStringLiteral("lower id")),
               qPrintable(tip));
    }
  }

  // Run names of any length leave the pickers as narrow as a narrow screen needs (A above B);
  // a plain combo would be as wide as the longest name.
  void long_run_names_do_not_widen_the_pickers() {
    auto list = run_list();
    for (auto& s : list.runs)
      s.record.name = QStringLiteral(
                          "s52 · HN γ 0.5 · s learnt · seed 1 · lr 1e-3 · batch 64 · ViT-B/16 from "
                          "OpenAI weights, long-caption recipe (#1)")
                          .toStdString();
    RetrievalRunPicker picker;
    picker.setRunList(list);
    picker.show();
    QVERIFY(QTest::qWaitForWindowExposed(&picker));
    QVERIFY2(picker.minimumSizeHint().width() <= hnclip::test::kTabWidthBudget,
             qPrintable(QString::number(picker.minimumSizeHint().width())));
    auto* box_a = picker.findChild<QComboBox*>(QStringLiteral("retrievalRunA"));
    QVERIFY(box_a->currentText().startsWith(QStringLiteral("s52 · HN γ 0.5")));
  }
};

QTEST_MAIN(TestRetrievalRunPicker)
#include "test_retrieval_run_picker.moc"
