// RunsPanel against a hand-made store: async load, filter by tag, comparison views for a
// selection, selection surviving refreshes, rename/tags persisted, delete removing rows and
// checkpoint files, delete refused for a running run, options round trip, the dock list.
#include <filesystem>
#include <fstream>

#include <QApplication>
#include <QFont>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTreeView>
#include <QtTest>

#include "job/workbench_paths.h"
#include "support/test_dirs.h"
#include "widgets/common/run_list_view.h"
#include "widgets/common/run_table_model.h"
#include "widgets/runs/runs_panel.h"
#include "widgets/runs_fixture.h"

using hnclip::RunStatus;
using hnclip::RunStore;
using hnclip::gui::RunsPanel;
using hnclip::test::add_eval;
using hnclip::test::add_run;
using hnclip::test::make_config_json;
namespace fs = std::filesystem;

namespace {
constexpr int kWaitMs = 60000;  // generous: a slow shared machine must not fail the test

QList<int64_t> proxy_ids(QAbstractItemModel* m) {
  QList<int64_t> ids;
  for (int r = 0; r < m->rowCount(); ++r)
    ids << m->index(r, 0).data(hnclip::gui::RunTableModel::RunIdRole).toLongLong();
  std::sort(ids.begin(), ids.end());
  return ids;
}
}  // namespace

class TestRunsPanel : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;
  std::string db_;
  int64_t base_ = 0, margin_ = 0, live_ = 0, crashed_ = 0;
  fs::path base_ckpt_dir_, stray_ckpt_;

  static void wait_idle(RunsPanel& p) { QTRY_VERIFY_WITH_TIMEOUT(!p.isBusy(), kWaitMs); }

 private slots:
  void init() {
    dir_ = std::make_unique<hnclip::test::ScratchDir>();
    db_ = (*dir_ / "runs.db").string();
    RunStore store(db_);
    base_ = add_run(store, "baseline-run", RunStatus::Finished,
                    make_config_json("synthetic", 0, "recomputed", 3), 1000000, "baseline");
    margin_ = add_run(store, "margin-0.5", RunStatus::Finished,
                      make_config_json("synthetic", 0.5, "recomputed", 3), 2000000, "HN,ablation");
    live_ = add_run(store, "live", RunStatus::Running,
                    make_config_json("synthetic", 0.5, "frozen", 3), 3000000, "hn");
    crashed_ = add_run(store, "crashed", RunStatus::Interrupted,
                       make_config_json("synthetic", 1, "frozen", 3), 4000000);
    add_eval(store, base_, 1, {10, 20, 30, 40, 50}, {11, 21, 31, 41, 51});
    add_eval(store, margin_, 1, {12, 19, 30, 44, 55}, {10, 25, 30, 40, 50});
    // A checkpoint in the run's folder and one recorded elsewhere: both go with the run.
    base_ckpt_dir_ = hnclip::run_checkpoint_dir(db_, base_);
    fs::create_directories(base_ckpt_dir_);
    std::ofstream(base_ckpt_dir_ / "epoch-1.pt") << "weights";
    stray_ckpt_ = *dir_ / "elsewhere" / "epoch-2.pt";
    fs::create_directories(stray_ckpt_.parent_path());
    std::ofstream(stray_ckpt_) << "weights";
    store.add_checkpoint(base_, {1, 10, (base_ckpt_dir_ / "epoch-1.pt").string(), 10.5, 0});
    store.add_checkpoint(base_, {2, 20, stray_ckpt_.string(), 11.0, 0});
  }
  void cleanup() { dir_.reset(); }

  void loads_and_filters_by_tag() {
    RunsPanel panel(QString::fromStdString(db_));
    wait_idle(panel);
    QCOMPARE(panel.runModel()->rowCount(), 4);
    QCOMPARE(panel.proxyModel()->rowCount(), 4);
    panel.setFilterText("ABLATION");
    QCOMPARE(proxy_ids(panel.proxyModel()), QList<int64_t>{margin_});
    panel.setFilterText("hn");  // "HN,ablation" and "hn", case-insensitive
    QCOMPARE(proxy_ids(panel.proxyModel()), (QList<int64_t>{margin_, live_}));
    panel.setFilterText("interrupted");  // status
    QCOMPARE(proxy_ids(panel.proxyModel()), QList<int64_t>{crashed_});
    panel.setFilterText("");
    QCOMPARE(panel.proxyModel()->rowCount(), 4);
  }

  void comparison_of_selected_runs() {
    RunsPanel panel(QString::fromStdString(db_));
    QSignalSpy selection(&panel, &RunsPanel::selectionChanged);
    panel.selectRuns({base_, margin_});  // before the first load: applied once it arrives
    wait_idle(panel);
    QCOMPARE(selection.count(), 1);
    auto selected = panel.selectedRuns();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, (QList<int64_t>{base_, margin_}));

    // The two configs differ only in loss_gamma.
    panel.setDiffOnly(true);
    QStandardItemModel* diff = panel.configDiffModel();
    QCOMPARE(diff->rowCount(), 1);
    QCOMPARE(diff->columnCount(), 2);
    QCOMPARE(diff->verticalHeaderItem(0)->text(), QString("loss_gamma"));
    QVERIFY(diff->verticalHeaderItem(0)->font().bold());
    // The first column is the reference; the other run's differing value is highlighted.
    QVERIFY(!diff->item(0, 0)->data(Qt::UserRole).toBool());
    QVERIFY(!diff->item(0, 0)->data(Qt::BackgroundRole).isValid());
    QVERIFY(diff->item(0, 1)->data(Qt::UserRole).toBool());
    QVERIFY(diff->item(0, 1)->data(Qt::BackgroundRole).value<QColor>().isValid());
    const QStringList values{diff->item(0, 0)->text(), diff->item(0, 1)->text()};
    QVERIFY(values.contains("0") && values.contains("0.5"));
    panel.setDiffOnly(false);
    QCOMPARE(diff->rowCount(), 7);  // every key of make_config_json
    int bold_keys = 0, highlighted = 0;
    for (int r = 0; r < diff->rowCount(); ++r) {
      bold_keys += diff->verticalHeaderItem(r)->font().bold() ? 1 : 0;
      for (int c = 0; c < 2; ++c)
        highlighted += diff->item(r, c)->data(Qt::BackgroundRole).isValid() ? 1 : 0;
    }
    QCOMPARE(bold_keys, 1);
    QCOMPARE(highlighted, 1);

    // Recall at epoch 1: bold exactly where the table says best.
    QStandardItemModel* recall = panel.recallModel();
    QCOMPARE(recall->rowCount(), 2);
    QCOMPARE(recall->columnCount(), 11);
    const auto& table = panel.recallTable();
    int bold = 0;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 10; ++c) {
        QCOMPARE(recall->item(r, 1 + c)->font().bold(), table.isBest(r, c));
        bold += table.isBest(r, c) ? 1 : 0;
      }
    QCOMPARE(bold, 11);  // t2i R@10 tie (30/30) counts twice, every other column once
    QVERIFY(table.toCsv().contains(
        "baseline-run,1,synthetic default (seed 1) / "
        "test,10.00,20.00,30.00,40.00,50.00,11.00,21.00,31.00,41.00,51.00\n"));
    QVERIFY(panel.recallNote().isEmpty());  // one test set

    // One run selected: nothing to compare.
    panel.selectRuns({crashed_});
    QCOMPARE(panel.selectedRuns(), QList<int64_t>{crashed_});
    QCOMPARE(panel.configDiffModel()->rowCount(), 0);
    QVERIFY(panel.recallTable().rows().empty());
    QCOMPARE(selection.last().at(0).value<QList<int64_t>>(), QList<int64_t>{crashed_});
  }

  // Transfer evaluations (`hnclip eval ID --split shifted`) were stored and shown nowhere in the
  // window. The Transfer page lists them for the selected runs; for one run that has some it is
  // the comparison area's only page.
  void transfer_evaluations_of_the_selected_runs() {
    {
      RunStore store(db_);
      const auto result = [](const char* direction, std::vector<std::pair<int, double>> recall) {
        hnclip::RetrievalResult r;
        r.direction = direction;
        r.recall = std::move(recall);
        return r;
      };
      store.write_transfer_eval(base_, 1, "synthetic:size=default:seed=1", "shifted", 1067, 1067,
                                result("t2i", {{1, 41.5}, {5, 77.25}}),
                                result("i2t", {{1, 35.75}, {5, 59.0}}));
      // The run's own training split: its recall is of images it trained on.
      store.write_transfer_eval(base_, 1, "synthetic:size=default:seed=1", "train", 8000, 8000,
                                result("t2i", {{1, 90.0}}), result("i2t", {{1, 88.0}}));
      // Another manifest naming 5 of its training files: counted when evaluated, shown since.
      store.write_transfer_eval(base_, 1, "manifest /data/other.jsonl", "test", 10, 10,
                                result("t2i", {{1, 60.0}}), result("i2t", {{1, 50.0}}), 5);
      // The starting model's (eval --epoch 0): the zero-shot row.
      store.write_transfer_eval(base_, 0, "synthetic:size=default:seed=1", "shifted", 1067, 1067,
                                result("t2i", {{1, 30.0}}), result("i2t", {{1, 25.0}}));
    }
    RunsPanel panel(QString::fromStdString(db_));
    panel.selectRuns({base_});
    wait_idle(panel);
    QTabWidget* tabs = panel.comparisonTabs();
    QVERIFY(tabs->isVisibleTo(&panel));
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Transfer"));
    QVERIFY(!tabs->isTabEnabled(0) && !tabs->isTabEnabled(1));  // Recall, Config diff: one run
    QStandardItemModel* m = panel.transferModel();
    QCOMPARE(m->rowCount(), 4);
    QCOMPARE(m->item(0, 1)->text(), QString("manifest /data/other.jsonl"));
    QCOMPARE(m->item(0, 4)->text(), QString("10 (10 captions), 5 trained on"));
    QVERIFY(m->item(0, 4)->toolTip().contains("not transfer"));
    QCOMPARE(m->item(1, 3)->text(), QString("0 (start)"));  // eval --epoch 0: the zero-shot row
    QCOMPARE(m->item(1, 5)->text(), QString("30.00"));
    QCOMPARE(m->item(2, 0)->text(), QString("baseline-run"));
    QCOMPARE(m->item(2, 1)->text(), QString("synthetic:size=default:seed=1"));
    QCOMPARE(m->item(2, 2)->text(), QString("shifted"));
    QCOMPARE(m->item(2, 3)->text(), QString("1"));
    QCOMPARE(m->item(2, 4)->text(), QString("1067 (1067 captions)"));  // not counted: no mark
    QCOMPARE(m->horizontalHeaderItem(5)->text(), QString("t→i R@1"));
    QCOMPARE(m->item(2, 5)->text(), QString("41.50"));
    QCOMPARE(m->item(2, 6)->text(), QString("77.25"));
    QCOMPARE(m->item(2, 7)->text(), QString());  // R@10 not stored: absent, not 0
    QCOMPARE(m->horizontalHeaderItem(10)->text(), QString("i→t R@1"));
    QCOMPARE(m->item(2, 10)->text(), QString("35.75"));
    QCOMPARE(m->item(3, 2)->text(), QString("train (its training split)"));

    // Two runs: every page, the other run adding no row.
    panel.selectRuns({base_, margin_});
    QVERIFY(tabs->isTabEnabled(0) && tabs->isTabEnabled(1));
    QCOMPARE(m->rowCount(), 4);
    // One run without any: the hint, as before.
    panel.selectRuns({margin_});
    QVERIFY(!tabs->isVisibleTo(&panel));
    QCOMPARE(m->rowCount(), 0);
  }

  // A run on the small benchmark beside one on the default: the recall table marks no best and
  // says which run was tested on which data.
  void runs_on_different_test_sets_are_not_ranked() {
    int64_t small = 0;
    {
      RunStore store(db_);
      small = add_run(
          store, "on-small", RunStatus::Finished,
          make_config_json("synthetic", 0.5, "recomputed", 3, R"("benchmark_size": "small")"),
          5000000);
      add_eval(store, small, 1, {90, 95, 99, 99, 99}, {90, 95, 99, 99, 99});
    }
    RunsPanel panel(QString::fromStdString(db_));
    panel.selectRuns({base_, margin_, small});
    wait_idle(panel);
    QCOMPARE(panel.selectedRuns().size(), 3);
    const auto& table = panel.recallTable();
    QVERIFY(!table.comparable());
    for (int r = 0; r < static_cast<int>(table.rows().size()); ++r)
      for (int c = 0; c < 10; ++c) {
        QVERIFY(!table.isBest(r, c));
        QVERIFY(!panel.recallModel()->item(r, 1 + c)->font().bold());
      }
    const QString note = panel.recallNote();
    QVERIFY2(note.contains("synthetic small (seed 1) / test: on-small"), qPrintable(note));
    QVERIFY2(note.contains("synthetic default (seed 1) / test: baseline-run, margin-0.5") ||
                 note.contains("synthetic default (seed 1) / test: margin-0.5, baseline-run"),
             qPrintable(note));
    // The table's column says it too.
    const auto* model = panel.runTableModel();
    QCOMPARE(model->index(model->rowOfRun(small), hnclip::gui::RunTableModel::ColBenchmark)
                 .data()
                 .toString(),
             QString("synthetic small (seed 1) / test"));
  }

  void selection_survives_refresh_and_rename_and_tags_persist() {
    RunsPanel panel(QString::fromStdString(db_));
    wait_idle(panel);
    panel.selectRuns({margin_, crashed_});
    QSignalSpy changed(&panel, &RunsPanel::runsChanged);
    QSignalSpy selection(&panel, &RunsPanel::selectionChanged);

    panel.renameRun(margin_, "  wider margin  ");
    wait_idle(panel);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(RunStore(db_).find_run(margin_)->name, std::string("wider margin"));
    auto* model = panel.runTableModel();
    QCOMPARE(model->index(model->rowOfRun(margin_), 0).data().toString(), QString("wider margin"));

    panel.setRunTags(crashed_, "retry, oom");
    wait_idle(panel);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(RunStore(db_).find_run(crashed_)->tags, std::string("retry, oom"));

    // A run added by another process shows up on refresh; the selection is untouched.
    {
      RunStore store(db_);
      add_run(store, "from-cli", RunStatus::Queued,
              make_config_json("synthetic", 2, "recomputed", 1), 5000000);
    }
    panel.refresh();
    wait_idle(panel);
    QCOMPARE(panel.runModel()->rowCount(), 5);
    auto selected = panel.selectedRuns();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, (QList<int64_t>{margin_, crashed_}));
    QCOMPARE(selection.count(), 0);

    // An empty name is refused by the store; the failure is reported, the name kept.
    QSignalSpy failed(&panel, &RunsPanel::operationFailed);
    panel.renameRun(margin_, "   ");
    wait_idle(panel);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(RunStore(db_).find_run(margin_)->name, std::string("wider margin"));
    // So is a name of two lines (pasted): it broke every table row it stood in.
    panel.renameRun(margin_, "wider\nmargin");
    wait_idle(panel);
    QCOMPARE(failed.count(), 2);
    QVERIFY2(failed.at(1).at(0).toString().contains("must be one line"),
             qPrintable(failed.at(1).at(0).toString()));
    QCOMPARE(RunStore(db_).find_run(margin_)->name, std::string("wider margin"));
    panel.setRunTags(crashed_, "retry,\toom");
    wait_idle(panel);
    QCOMPARE(failed.count(), 3);
    QVERIFY(failed.at(2).at(0).toString().contains("Tags must be one line"));
    QCOMPARE(RunStore(db_).find_run(crashed_)->tags, std::string("retry, oom"));

    // The new tags are filterable (this hides margin_, so it comes last).
    panel.setFilterText("OOM");
    QCOMPARE(proxy_ids(panel.proxyModel()), QList<int64_t>{crashed_});
    QCOMPARE(panel.selectedRuns(), QList<int64_t>{crashed_});
  }

  void delete_removes_rows_and_checkpoints_but_not_running_runs() {
    RunsPanel panel(QString::fromStdString(db_));
    wait_idle(panel);
    panel.selectRuns({base_, margin_});
    QSignalSpy changed(&panel, &RunsPanel::runsChanged);
    QSignalSpy failed(&panel, &RunsPanel::operationFailed);
    QSignalSpy selection(&panel, &RunsPanel::selectionChanged);

    // A running run refuses, and so does a request that includes one: nothing is deleted.
    panel.deleteRuns({live_});
    wait_idle(panel);
    panel.deleteRuns({margin_, live_});
    wait_idle(panel);
    QCOMPARE(failed.count(), 2);
    QVERIFY(failed.at(0).at(0).toString().contains("running"));
    QVERIFY(failed.at(0).at(0).toString().contains("live"));
    QCOMPARE(changed.count(), 0);
    QVERIFY(RunStore(db_).find_run(live_).has_value());
    QVERIFY(RunStore(db_).find_run(margin_).has_value());
    QCOMPARE(panel.runModel()->rowCount(), 4);

    QVERIFY(fs::exists(base_ckpt_dir_ / "epoch-1.pt"));
    panel.deleteRuns({base_});
    wait_idle(panel);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(failed.count(), 2);
    QVERIFY(!RunStore(db_).find_run(base_).has_value());
    QVERIFY(RunStore(db_).checkpoints(base_).empty());
    QVERIFY(!fs::exists(base_ckpt_dir_));
    QVERIFY(!fs::exists(stray_ckpt_));
    QVERIFY(!fs::exists(stray_ckpt_.parent_path()));  // emptied by the deletion
    QVERIFY(fs::exists(db_));
    QCOMPARE(panel.runModel()->rowCount(), 3);
    QCOMPARE(panel.runTableModel()->rowOfRun(base_), -1);
    QCOMPARE(panel.selectedRuns(), QList<int64_t>{margin_});
    QCOMPARE(selection.count(), 1);
    QCOMPARE(selection.last().at(0).value<QList<int64_t>>(), QList<int64_t>{margin_});
  }

  // A copy of a database (cp runs.db copy.db) lists the original's checkpoint files. Deleting a
  // run of the copy removed them, taking the original's weights with it: they are kept now, and
  // said to be kept; a file in no database's folder still goes with the run.
  void deleting_a_run_of_a_copied_database_keeps_the_originals_files() {
    const std::string copy = (*dir_ / "copy.db").string();
    fs::copy_file(db_, copy);
    RunsPanel panel(QString::fromStdString(copy));
    wait_idle(panel);
    QSignalSpy changed(&panel, &RunsPanel::runsChanged);
    QSignalSpy failed(&panel, &RunsPanel::operationFailed);
    panel.deleteRuns({base_});
    wait_idle(panel);
    QCOMPARE(changed.count(), 1);
    QVERIFY(!RunStore(copy).find_run(base_).has_value());
    QVERIFY(RunStore(db_).find_run(base_).has_value());
    QVERIFY(fs::exists(base_ckpt_dir_ / "epoch-1.pt"));
    QCOMPARE(failed.count(), 1);
    const QString said = failed.at(0).at(0).toString();
    QVERIFY2(said.contains(QString::fromStdString((base_ckpt_dir_ / "epoch-1.pt").string())) &&
                 said.contains(QStringLiteral("kept")) &&
                 said.contains(QString::fromStdString(fs::path(db_).filename().string())),
             qPrintable(said));
    QVERIFY(!fs::exists(stray_ckpt_));
  }

  // A relaunch: the selection saved by one panel is selected again by the next, which restores
  // it before its first load has landed (as MainWindow does) and with no edit ever made.
  void selection_is_restored_after_relaunch() {
    const QString ini = QString::fromStdString((*dir_ / "settings.ini").string());
    {
      RunsPanel panel(QString::fromStdString(db_));
      wait_idle(panel);
      panel.selectRuns({base_, margin_});
      QSettings s(ini, QSettings::IniFormat);
      panel.saveState(s);
    }
    RunsPanel panel(QString::fromStdString(db_));
    QSettings s(ini, QSettings::IniFormat);
    panel.restoreState(s);
    wait_idle(panel);
    QList<int64_t> selected = panel.selectedRuns();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, (QList<int64_t>{base_, margin_}));
  }

  // Column widths saved from an empty table are not restored over content: the first fill fits
  // the columns to their contents, as a panel that restored nothing does.
  void widths_saved_from_an_empty_table_do_not_squash_the_first_fill() {
    hnclip::test::ScratchDir empty_dir;
    const std::string empty_db = (empty_dir / "runs.db").string();
    { RunStore create(empty_db); }
    QVariantMap saved;
    {
      RunsPanel empty(QString::fromStdString(empty_db));
      wait_idle(empty);
      empty.resize(1200, 600);
      saved = empty.options();
    }
    RunsPanel fresh(QString::fromStdString(db_));
    wait_idle(fresh);
    RunsPanel restored(QString::fromStdString(db_));
    restored.setOptions(saved);
    wait_idle(restored);
    auto* a = fresh.findChild<QTreeView*>();
    auto* b = restored.findChild<QTreeView*>();
    for (int c = 0; c < hnclip::gui::RunTableModel::ColumnCount; ++c)
      QCOMPARE(b->columnWidth(c), a->columnWidth(c));

    // Widths saved over content are the user's, and come back.
    b->setColumnWidth(hnclip::gui::RunTableModel::ColTags, 321);
    const QVariantMap user = restored.options();
    RunsPanel again(QString::fromStdString(db_));
    again.setOptions(user);
    wait_idle(again);
    QCOMPARE(again.findChild<QTreeView*>()->columnWidth(hnclip::gui::RunTableModel::ColTags), 321);
  }

  void options_round_trip() {
    QVariantMap saved;
    {
      RunsPanel panel(QString::fromStdString(db_));
      wait_idle(panel);
      panel.setFilterText("margin");
      panel.setDiffOnly(false);
      panel.findChild<QTreeView*>()->sortByColumn(hnclip::gui::RunTableModel::ColGamma,
                                                  Qt::AscendingOrder);
      saved = panel.options();
    }
    RunsPanel panel(QString::fromStdString(db_));
    wait_idle(panel);
    QVERIFY(panel.diffOnly());
    panel.setOptions(saved);
    QCOMPARE(panel.filterText(), QString("margin"));
    QVERIFY(!panel.diffOnly());
    QCOMPARE(panel.proxyModel()->rowCount(), 1);
    QCOMPARE(panel.proxyModel()->sortColumn(), int(hnclip::gui::RunTableModel::ColGamma));
    QCOMPARE(panel.proxyModel()->sortOrder(), Qt::AscendingOrder);
    panel.setOptions({});  // nothing stored yet: defaults stay
    QCOMPARE(panel.filterText(), QString("margin"));
  }

  void context_menu_actions() {
    RunsPanel panel(QString::fromStdString(db_));
    wait_idle(panel);
    QSignalSpy resume(&panel, &RunsPanel::resumeRequested);
    QSignalSpy same(&panel, &RunsPanel::sameAsRequested);
    const auto action = [](QMenu& menu, const QString& text) -> QAction* {
      for (QAction* a : menu.actions())
        if (a->text() == text) return a;
      return nullptr;
    };
    {
      panel.selectRuns({crashed_});  // interrupted: resumable
      QMenu menu;
      panel.fillContextMenu(&menu);
      QVERIFY(action(menu, "Resume") && action(menu, "Resume")->isEnabled());
      QVERIFY(action(menu, "Delete…")->isEnabled());
      QVERIFY(!action(menu, "Export recall as CSV…")->isEnabled());
      action(menu, "Resume")->trigger();
      action(menu, "Same as run…")->trigger();
      QCOMPARE(resume.count(), 1);
      QCOMPARE(resume.at(0).at(0).value<int64_t>(), crashed_);
      QCOMPARE(same.at(0).at(0).value<int64_t>(), crashed_);
    }
    {
      panel.selectRuns({base_});  // finished: not resumable, but repeatable
      QMenu menu;
      panel.fillContextMenu(&menu);
      QVERIFY(!action(menu, "Resume")->isEnabled());
      QVERIFY(action(menu, "Same as run…")->isEnabled());
      QVERIFY(action(menu, "Rename…")->isEnabled());
    }
    {
      panel.selectRuns({base_, live_});  // a running run in the selection: no delete
      QMenu menu;
      panel.fillContextMenu(&menu);
      QVERIFY(!action(menu, "Delete…")->isEnabled());
      QVERIFY(!action(menu, "Rename…")->isEnabled());
      QVERIFY(action(menu, "Export recall as LaTeX…")->isEnabled());
    }
  }

  void ctrl_f_focuses_filter() {
    RunsPanel panel(QString::fromStdString(db_));
    wait_idle(panel);
    panel.show();
    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    panel.findChild<QTreeView*>()->setFocus();  // focus starts on the table
    QTest::keySequence(&panel, QKeySequence::Find);
    QTRY_VERIFY(qobject_cast<QLineEdit*>(QApplication::focusWidget()) != nullptr);
    QVERIFY(panel.isAncestorOf(QApplication::focusWidget()));
  }

  void dock_list_shares_the_model() {
    RunsPanel panel(QString::fromStdString(db_));
    wait_idle(panel);
    hnclip::gui::RunListView list(panel.runModel());
    QCOMPARE(list.model()->rowCount(), 4);
    QSignalSpy spy(&list, &hnclip::gui::RunListView::runSelectionChanged);
    list.selectRuns({live_, crashed_});
    QCOMPARE(spy.count(), 1);
    list.selectRuns({crashed_, live_});  // same set: no echo
    QCOMPARE(spy.count(), 1);
    auto ids = list.selectedRuns();
    std::sort(ids.begin(), ids.end());
    QCOMPARE(ids, (QList<int64_t>{live_, crashed_}));
    QVERIFY(list.isColumnHidden(hnclip::gui::RunTableModel::ColGamma));
    QVERIFY(!list.isColumnHidden(hnclip::gui::RunTableModel::ColName));
    // A narrow dock keeps both ends of a name (an experiment's runs differ in "· seed N"), and
    // the name's tooltip gives it whole.
    QCOMPARE(list.textElideMode(), Qt::ElideMiddle);
    QCOMPARE(panel.findChild<QTreeView*>()->textElideMode(), Qt::ElideMiddle);
    for (int r = 0; r < list.model()->rowCount(); ++r) {
      const QModelIndex name = list.model()->index(r, hnclip::gui::RunTableModel::ColName);
      const QString shown = name.data().toString();
      if (shown.startsWith(QStringLiteral("run "))) continue;  // unnamed
      QVERIFY2(name.data(Qt::ToolTipRole).toString().startsWith(shown + QLatin1Char('\n')),
               qPrintable(name.data(Qt::ToolTipRole).toString()));
    }
    // The status is its icon, the word in the tooltip, so the name gets the dock's width.
    using hnclip::gui::RunTableModel;
    const QModelIndex status = list.model()->index(0, RunTableModel::ColStatus);
    QVERIFY(status.data().toString().isEmpty());
    QVERIFY(!status.data(Qt::DecorationRole).isNull());
    QVERIFY2(!status.data(Qt::ToolTipRole).toString().isEmpty(), "no status word in the tooltip");
    list.show();
    const auto* header = list.header();
    const auto width_of = [&](int c) { return header->sectionSize(c); };
    list.resize(160, 300);  // the dock beside a 1024-pixel window
    QTRY_COMPARE(width_of(RunTableModel::ColName),
                 list.viewport()->width() - width_of(RunTableModel::ColStatus));
    list.resize(500, 300);  // a wide dock: name, icon and both numbers side by side
    QTRY_COMPARE(width_of(RunTableModel::ColName) + width_of(RunTableModel::ColStatus) +
                     width_of(RunTableModel::ColBestR1T2I) + width_of(RunTableModel::ColBestR1I2T),
                 list.viewport()->width());
    QVERIFY(width_of(RunTableModel::ColBestR1T2I) > 0);
  }
};

QTEST_MAIN(TestRunsPanel)
#include "test_runs_panel.moc"
