// The Retrieval tab: the query-list model and its filter (rank differences, counts, filters,
// sorting, QAbstractItemModelTester) on two hand-made stored runs; the ground-truth / near-twin
// marking logic; and the panel on two runs trained here with the `hnclip` CLI on a small
// manifest benchmark (images drawn by the test): stored-query scores, stored ranks and the
// ad-hoc query compared with a brute-force reference over the runs' embeddings.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTableView>
#include <QtTest>

#include "data/benchmark_registry.h"
#include "job/caption_geometry_job.h"
#include "job/run_retriever.h"
#include "support/test_dirs.h"
#include "widgets/common/thumbnail_label.h"
#include "widgets/retrieval/query_list_model.h"
#include "widgets/retrieval/retrieval_data.h"
#include "widgets/retrieval/retrieval_marks.h"
#include "widgets/retrieval/retrieval_panel.h"
#include "widgets/retrieval/retrieval_view.h"
#include "widgets/runs_fixture.h"

using hnclip::gui::QueryListFilter;
using hnclip::gui::QueryListModel;
using hnclip::gui::QueryListRow;
using hnclip::gui::RetrievalPanel;
namespace fs = std::filesystem;

namespace {

constexpr int kWaitMs = 120000;  // generous: a slow shared machine must not fail the test
constexpr int kTestImages = 12;
const char* kColors[] = {"red", "green", "blue", "yellow"};
const char* kShapes[] = {"circle", "square", "bar"};

// The manifest benchmark of this test: coloured shapes with two captions each.
void write_manifest(const fs::path& dir) {
  fs::create_directories(dir / "img");
  std::ofstream m(dir / "manifest.jsonl");
  const QColor colors[] = {Qt::red, Qt::green, Qt::blue, Qt::yellow};
  for (int i = 0; i < kTestImages + 12; ++i) {
    QImage img(48, 48, QImage::Format_RGB32);
    img.fill(QColor(20 + 9 * i, 20, 20));
    QPainter p(&img);
    p.setBrush(colors[i % 4]);
    p.setPen(Qt::NoPen);
    if (i % 3 == 0)
      p.drawEllipse(QPoint(24, 24), 8 + i % 5, 8 + i % 5);
    else if (i % 3 == 1)
      p.drawRect(10, 10, 20 + i % 7, 20 + i % 7);
    else
      p.drawRect(4, 20, 40, 6 + i % 4);
    p.end();
    const std::string name = "img/" + std::to_string(i) + ".png";
    QVERIFY(img.save(QString::fromStdString((dir / name).string())));
    // (No raw string literals in this file: moc does not parse them.)
    m << "{\"image\": \"" << name << "\", \"captions\": [\"a " << kColors[i % 4] << " "
      << kShapes[i % 3] << " on a dark ground number " << i << "\", \"one " << kShapes[i % 3]
      << " coloured " << kColors[i % 4] << "\"], \"split\": \""
      << (i < kTestImages ? "test" : "train") << "\"}\n";
  }
}

// Brute force over a run's cached embeddings: every candidate scored, sorted (score desc, id asc).
std::vector<std::pair<float, int64_t>> brute_force(const std::vector<float>& query,
                                                   const std::vector<float>& cands, int64_t n,
                                                   int64_t dim) {
  std::vector<std::pair<float, int64_t>> all;
  for (int64_t i = 0; i < n; ++i) {
    double s = 0;
    for (int64_t d = 0; d < dim; ++d) s += double(query[d]) * cands[i * dim + d];
    all.emplace_back(static_cast<float>(s), i);
  }
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  return all;
}

// Epoch 1 of a hand-made run: these text→image ranks, every image→text query at rank 1.
void write_ranks(hnclip::RunStore& store, int64_t run, const std::vector<int64_t>& ranks) {
  // Top ids that never hold the ground truth (image q / 2) for the queries the tests look at.
  std::vector<std::vector<int64_t>> topk;
  for (size_t q = 0; q < ranks.size(); ++q)
    topk.push_back({int64_t((q + 5) % kTestImages), int64_t((q + 6) % kTestImages),
                    int64_t((q + 7) % kTestImages)});
  hnclip::test::add_ranked_eval(store, run, ranks, std::move(topk),
                                std::vector<int64_t>(kTestImages, 1),
                                std::vector<std::vector<int64_t>>(kTestImages, {0}));
}

}  // namespace

class TestRetrievalPanel : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;
  std::string db_, cache_;
  int64_t run_a_ = 0, run_b_ = 0;

  // Two runs trained by the CLI (γ = 0 and γ = 0.5, one epoch) on the manifest benchmark.
  void train_runs() {
    write_manifest(dir_->path());
    for (const char* gamma : {"0", "0.5"}) {
      const std::string cmd = std::string(HNCLIP_CLI_PATH) + " train --benchmark manifest --data " +
                              (dir_->path() / "manifest.jsonl").string() +
                              " --epochs 1 --batch 6 --lr 1e-3 --threads 1" + " --gamma " + gamma +
                              " --name gamma-" + gamma + " --db " + db_ + " --cache-dir " + cache_;
      std::string out, err;
      QCOMPARE(hnclip::test::run_command(cmd, &out, &err), 0);
    }
    hnclip::RunStore store(db_);
    const auto runs = store.list_runs();  // newest first
    QCOMPARE(runs.size(), size_t{2});
    run_a_ = runs[1].id;
    run_b_ = runs[0].id;
  }

 private slots:
  void initTestCase() {
    dir_ = std::make_unique<hnclip::test::ScratchDir>();
    db_ = (*dir_ / "runs.db").string();
    cache_ = (*dir_ / "cache").string();
    train_runs();
  }

  void queryModelDifferencesCountsFiltersAndSorting() {
    QueryListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QueryListFilter filter;
    filter.setSourceModel(&model);
    QAbstractItemModelTester filter_tester(&filter,
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows({{0, "red circle", 1, 1},
                   {1, "blue square", 1, 7},
                   {2, "green bar", 52, 1},
                   {3, "red bar", 3, 2},
                   {4, "Red square", 2, 9},
                   {5, "lost", 0, 4}},
                  "base", "hn");
    QCOMPARE(model.rowCount(), 6);
    QVERIFY(model.headerData(QueryListModel::RankAColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains("base"));
    QCOMPARE(model.index(2, QueryListModel::DiffColumn).data().toString(), QString("+51"));
    QCOMPARE(model.index(1, QueryListModel::DiffColumn).data().toString(), QString("-6"));
    QCOMPARE(model.index(5, QueryListModel::RankAColumn).data().toString(), QString("—"));
    QCOMPARE(QueryListModel::difference(model.rows()[5]), int64_t{0});
    const auto c = model.counts();
    QCOMPARE(c.queries, 5);  // query 5 has no rank under A
    QCOMPARE(c.a_only, 1);
    QCOMPARE(c.b_only, 1);
    QCOMPARE(c.both_correct, 1);
    QCOMPARE(c.both_wrong, 2);

    filter.sort(QueryListModel::DiffColumn, Qt::DescendingOrder);
    QCOMPARE(filter.index(0, 0).data(QueryListModel::QueryIdRole).toLongLong(), 2LL);
    QCOMPARE(filter.index(5, 0).data(QueryListModel::QueryIdRole).toLongLong(),
             4LL);  // -7, numeric not text order
    filter.sort(QueryListModel::RankAColumn, Qt::AscendingOrder);
    QCOMPARE(filter.index(5, 0).data(QueryListModel::QueryIdRole).toLongLong(),
             2LL);  // 52 after 3, not "52" < "7"

    auto ids = [&] {
      QList<qlonglong> out;
      for (int r = 0; r < filter.rowCount(); ++r)
        out << filter.index(r, 0).data(QueryListModel::QueryIdRole).toLongLong();
      std::sort(out.begin(), out.end());
      return out;
    };
    filter.setMode(QueryListFilter::Mode::ACorrectBWrong);
    QCOMPARE(ids(), (QList<qlonglong>{1}));
    filter.setMode(QueryListFilter::Mode::BCorrectAWrong);
    QCOMPARE(ids(), (QList<qlonglong>{2}));
    filter.setMode(QueryListFilter::Mode::BothWrong);
    QCOMPARE(ids(), (QList<qlonglong>{3, 4}));
    filter.setSearchText("red");
    QCOMPARE(ids(), (QList<qlonglong>{3, 4}));  // case-insensitive
    filter.setMode(QueryListFilter::Mode::All);
    QCOMPARE(ids(), (QList<qlonglong>{0, 3, 4}));
    filter.setSearchText("2");
    QCOMPARE(ids(), (QList<qlonglong>{2}));  // a query number
    filter.setSearchText("");
    filter.sort(QueryListModel::DiffColumn, Qt::DescendingOrder);
    const QString csv = filter.toCsv();
    QVERIFY2(csv.startsWith("query,text,rank_a,rank_b,diff\n2,green bar,52,1,51\n"),
             qPrintable(csv));
    QVERIFY2(csv.contains("\n5,lost,,4,\n"), qPrintable(csv));
    // The text column shows a row's distinguishing part, the full text on hover; the search and
    // the CSV see the full text.
    model.setRows({{0, "This image shows a red cube", 1, 1, QStringLiteral("…red cube")},
                   {1, "This image shows a blue cube", 1, 2, QStringLiteral("…blue cube")}},
                  "a", "b");
    QCOMPARE(model.index(0, QueryListModel::TextColumn).data().toString(),
             QStringLiteral("…red cube"));
    QCOMPARE(model.index(0, QueryListModel::TextColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("This image shows a red cube"));
    filter.setSearchText("image shows");
    QCOMPARE(filter.rowCount(), 2);
    filter.setSearchText("");
    QVERIFY(filter.toCsv().contains("This image shows a blue cube"));
    model.setRows({{0, "with, comma \"q\"", 2, 1}}, "a", "b");
    QCOMPARE(filter.toCsv(),
             QString("query,text,rank_a,rank_b,diff\n0,\"with, comma \"\"q\"\"\",2,1,1\n"));
  }

  void storedRunsJoinIntoTheQueryList() {
    // Two hand-made runs on this test's manifest: ranks written through the store.
    const std::string db = (*dir_ / "fixture.db").string();
    hnclip::RunStore store(db);
    const std::string config = "{\"benchmark\": \"manifest\", \"benchmark_root\": \"" +
                               (dir_->path() / "manifest.jsonl").string() + "\", \"epochs\": 1}";
    const int64_t a =
        hnclip::test::add_run(store, "fixture-A", hnclip::RunStatus::Finished, config, 1000);
    const int64_t b =
        hnclip::test::add_run(store, "fixture-B", hnclip::RunStatus::Finished, config, 2000);
    std::vector<int64_t> ra(2 * kTestImages, 1), rb(2 * kTestImages, 1);
    ra[3] = 40;  // B fixes 3
    rb[5] = 7;   // A fixes 5
    ra[8] = 2;   // both wrong
    rb[8] = 3;
    write_ranks(store, a, ra);
    write_ranks(store, b, rb);
    // Stored caption geometry under run A's encoder: caption 3's nearest captions are image 8's
    // (captions 16, 17) and image 1's own other caption (7, the ground truth: never a near-twin).
    hnclip::BenchmarkSpec spec;
    spec.name = "manifest";
    spec.root = (dir_->path() / "manifest.jsonl").string();
    hnclip::CaptionGeometryRecord geometry;
    geometry.stats.dataset_key = hnclip::caption_dataset_key(spec, "test");
    geometry.stats.encoder_key = "run:" + std::to_string(a) + "@1";
    geometry.stats.captions = 2 * kTestImages;
    geometry.neighbors = {{3, 1, 16, 0.9, {}}, {3, 2, 7, 0.8, {}}, {3, 3, 17, 0.7, {}}};
    store.write_caption_geometry(geometry);

    RetrievalPanel panel(QString::fromStdString(db), QString::fromStdString(cache_));
    QSignalSpy loaded(&panel, &RetrievalPanel::queriesLoaded);
    panel.setRuns(a, b);
    panel.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0, kWaitMs);
    QVERIFY2(panel.warning().isEmpty(), qPrintable(panel.warning()));
    QCOMPARE(panel.runA(), a);
    QCOMPARE(panel.runB(), b);
    QCOMPARE(panel.epochA(), 1);
    QCOMPARE(panel.queryModel()->rowCount(), 2 * kTestImages);
    const auto& rows = panel.queryModel()->rows();
    QCOMPARE(rows[3].rank_a, int64_t{40});
    QCOMPARE(rows[3].rank_b, int64_t{1});
    QCOMPARE(
        rows[0].text,
        QString("a red circle on a dark ground number 0"));  // caption 0 = image 0's first caption
    const auto c = panel.counts();
    QCOMPARE(c.a_only, 1);
    QCOMPARE(c.b_only, 1);
    QCOMPARE(c.both_wrong, 1);
    QCOMPARE(c.both_correct, 2 * kTestImages - 3);
    // On a 1024-pixel screen (the tab beside the run dock): the recall values fit their pane
    // without scrolling (the runs are lettered, named in the tooltip), and the captions get the
    // query list's width rather than its rank columns.
    panel.resize(835, 680);
    panel.show();
    auto* recall = panel.findChild<QTableView*>(QStringLiteral("retrievalRecallTable"));
    auto* queries = panel.findChild<QTableView*>(QStringLiteral("retrievalQueryList"));
    QVERIFY(recall && queries);
    QCOMPARE(recall->model()->headerData(0, Qt::Vertical).toString(), QStringLiteral("A"));
    QCOMPARE(recall->model()->headerData(1, Qt::Vertical, Qt::ToolTipRole).toString(),
             QStringLiteral("fixture-B, epoch 1"));
    QTRY_COMPARE(recall->horizontalScrollBar()->maximum(), 0);
    const int text = queries->columnWidth(hnclip::gui::QueryListModel::TextColumn);
    QVERIFY2(text * 5 >= queries->viewport()->width() * 2,  // 40%; "Rank A" headers left 17%
             qPrintable(QStringLiteral("captions %1 of %2 pixels")
                            .arg(text)
                            .arg(queries->viewport()->width())));
    QVERIFY(panel.selectLargestDifference());
    QCOMPARE(*panel.selectedQuery(), int64_t{3});
    // No checkpoints: the stored top ids are shown without scores, ground truth marked.
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kWaitMs);
    const auto& view_rows = panel.view()->rows();
    QCOMPARE(view_rows.size(), size_t{2});
    QCOMPARE(view_rows[0].items.size(), size_t{3});
    QVERIFY(std::isnan(view_rows[0].items[0].score));
    QVERIFY2(view_rows[0].note.contains("ground truth at rank 40"), qPrintable(view_rows[0].note));
    QVERIFY(view_rows[0].items[0].image_path.endsWith("img/8.png"));
    // Image 8 is a near-twin (its captions are caption 3's stored neighbours); 9 and 10 are not.
    QVERIFY(view_rows[0].items[0].near_twin);
    QVERIFY(!view_rows[0].items[1].near_twin && !view_rows[0].items[2].near_twin);
    // Each retrieved image's captions are marked where they differ from the query caption (3:
    // "one square coloured green"); image 8's second caption "one bar coloured red" differs in
    // "bar" and "red" only, one word apart: the line under the image names that one change.
    const auto& twin = view_rows[0].items[0];
    QVERIFY2(twin.tooltip.contains(QStringLiteral(">bar</b>")) &&
                 twin.tooltip.contains(QStringLiteral(">red</b>")) &&
                 !twin.tooltip.contains(QStringLiteral(">coloured</b>")),
             qPrintable(twin.tooltip));
    QCOMPARE(twin.differs, QStringLiteral("square coloured green → bar coloured red"));
    QCOMPARE(panel.view()->thumbnails()[0][0]->outline(),
             hnclip::gui::RetrievalView::kNearTwinColor);
    QVERIFY(!panel.lastError().isEmpty());  // why there are no scores
    // The export writes the visible list.
    const QString csv = QString::fromStdString((*dir_ / "q.csv").string());
    QString error;
    QVERIFY2(panel.exportCsv(csv, &error), qPrintable(error));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().count('\n'), 1 + 2 * kTestImages);
    // A run evaluated on another split is not offered as B, and asking for it explains why.
    const int64_t other = hnclip::test::add_run(
        store, "synthetic-run", hnclip::RunStatus::Finished,
        hnclip::test::make_config_json("synthetic", 0, "recomputed", 1), 3000);
    hnclip::test::add_eval(store, other, 1, {10, 20, 30, 40, 50}, {10, 20, 30, 40, 50});
    RetrievalPanel mixed(QString::fromStdString(db), QString::fromStdString(cache_));
    QSignalSpy runs(&mixed, &RetrievalPanel::runsLoaded);
    mixed.setRuns(a, other);
    mixed.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(runs.count() > 0, kWaitMs);
    QVERIFY2(mixed.warning().contains("synthetic default (seed 1) / test") &&
                 mixed.warning().contains("manifest"),
             qPrintable(mixed.warning()));
    QCOMPARE(mixed.runB(), b);                    // the one run on A's split
    QCOMPARE(mixed.queryModel()->rowCount(), 0);  // nothing compared while the warning stands
    QSignalSpy mixed_loaded(&mixed, &RetrievalPanel::queriesLoaded);
    mixed.setRuns(a, b);
    QVERIFY(mixed.warning().isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(mixed_loaded.count() > 0, kWaitMs);
    QCOMPARE(mixed.queryModel()->rowCount(), 2 * kTestImages);
    // Run b recorded another test split than the manifest holds now (the file written again
    // since): its ranks are refused, and the reason is shown whole above the list, not only in
    // the status line (which elides it, and the embeddings' message then overwrote it).
    store.set_data_summary(b,
                           "{\"splits\": {\"test\": {\"images\": " + std::to_string(kTestImages) +
                               ", \"captions\": " + std::to_string(2 * kTestImages) +
                               ", \"fingerprint\": \"0123456789abcdef\"}}}");
    mixed.setRuns(b, a);
    const auto shown_whole = [&mixed] {
      for (const auto* label : mixed.findChildren<QLabel*>())
        if (label->isVisibleTo(&mixed) && label->wordWrap() &&  // whole, not elided
            label->text().contains(QStringLiteral("which has changed since: its test split holds "
                                                  "other images or captions")))
          return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(shown_whole(), kWaitMs);
    QCOMPARE(mixed.queryModel()->rowCount(), 0);
  }

  // Runs need no name (the CLI and the Train tab start unnamed runs): the picker, the summary
  // sentence and each result row name them by number, never by a blank ("fixes 1 that  misses").
  void unnamedRunsGoByTheirNumber() {
    const std::string db = (*dir_ / "unnamed.db").string();
    hnclip::RunStore store(db);
    const std::string config = "{\"benchmark\": \"manifest\", \"benchmark_root\": \"" +
                               (dir_->path() / "manifest.jsonl").string() + "\", \"epochs\": 1}";
    const int64_t a = hnclip::test::add_run(store, "", hnclip::RunStatus::Finished, config, 1000);
    const int64_t b = hnclip::test::add_run(store, "", hnclip::RunStatus::Finished, config, 2000);
    std::vector<int64_t> ra(2 * kTestImages, 1), rb(2 * kTestImages, 1);
    ra[3] = 40;  // B fixes 3
    write_ranks(store, a, ra);
    write_ranks(store, b, rb);

    RetrievalPanel panel(QString::fromStdString(db), QString::fromStdString(cache_));
    QSignalSpy loaded(&panel, &RetrievalPanel::queriesLoaded);
    panel.setRuns(a, b);
    panel.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > 0, kWaitMs);
    const QString name_a = QString("run %1").arg(a), name_b = QString("run %1").arg(b);
    auto* combo_a = panel.findChild<QComboBox*>("retrievalRunA");
    auto* combo_b = panel.findChild<QComboBox*>("retrievalRunB");
    QVERIFY(combo_a && combo_b);
    QCOMPARE(combo_a->currentText(), name_a);
    QCOMPARE(combo_b->currentText(), name_b);
    auto* counts = panel.findChild<QLabel*>("retrievalCounts");
    QVERIFY(counts);
    QVERIFY2(
        counts->text().contains(QString("<b>%1</b> fixes 1 that %2 misses").arg(name_b, name_a)) &&
            counts->text().contains(
                QString("<b>%1</b> fixes 0 that %2 misses").arg(name_a, name_b)),
        qPrintable(counts->text()));
    QVERIFY(panel.selectLargestDifference());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), kWaitMs);
    const auto& view_rows = panel.view()->rows();
    QCOMPARE(view_rows.size(), size_t{2});
    QCOMPARE(view_rows[0].run_name, "A: " + name_a);
    QCOMPARE(view_rows[1].run_name, "B: " + name_b);
  }

  void marksGroundTruthNearTwinsAndRankNote() {
    using hnclip::gui::mark_retrieval;
    auto m = mark_retrieval({7, 3, 9, 4}, {9}, 3, {3, 9});
    QCOMPARE(m.items.size(), size_t{4});
    QVERIFY(!m.items[0].ground_truth && !m.items[0].near_twin);
    QVERIFY(m.items[1].near_twin);
    QVERIFY(m.items[2].ground_truth);
    QVERIFY(!m.items[2].near_twin);  // ground truth is never a near-twin of itself
    QCOMPARE(m.items[2].position, 3);
    QVERIFY(m.ground_truth_shown);
    QVERIFY(m.rank_note.isEmpty());
    m = mark_retrieval({7, 3}, {9}, 52, {});
    QVERIFY(!m.ground_truth_shown);
    QCOMPARE(m.rank_note, QString("ground truth at rank 52"));
    m = mark_retrieval({7, 3}, {}, 0, {});  // ad-hoc: no ground truth, no note
    QVERIFY(m.rank_note.isEmpty());
    m = mark_retrieval({5, 6}, {6, 8}, 2, {});  // i2t: any of several captions
    QVERIFY(m.items[1].ground_truth);
    // Near-twin candidates: t2i maps neighbour captions to their images, less the ground truth.
    const std::vector<int64_t> caption_image{0, 0, 1, 1, 2, 2};
    QCOMPARE(hnclip::gui::near_twin_candidates(true, {1, 2, 4}, {0}, caption_image),
             (std::set<int64_t>{1, 2}));
    QCOMPARE(hnclip::gui::near_twin_candidates(false, {1, 2, 4, 99}, {0, 1}, caption_image),
             (std::set<int64_t>{2, 4}));
  }

  void scoresRanksAndAdhocQueryMatchBruteForce() {
    RetrievalPanel panel(QString::fromStdString(db_), QString::fromStdString(cache_));
    QSignalSpy ready(&panel, &RetrievalPanel::retrieversLoaded);
    QSignalSpy loaded(&panel, &RetrievalPanel::queriesLoaded);
    panel.setRuns(run_a_, run_b_);
    panel.setEpochs(1, 1);  // the epochs with checkpoints (epoch 0 is the evaluation at the start)
    panel.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(ready.count() > 0 && loaded.count() > 0 && !panel.isBusy(), kWaitMs);
    QVERIFY2(panel.retrieversReady(), qPrintable(panel.lastError()));
    QCOMPARE(panel.epochA(), 1);
    // Reference embeddings: the same cache the panel filled (opened again: read from the file).
    hnclip::RunRetrieverOptions o;
    o.database = db_;
    o.cache_dir = cache_;
    o.run_id = run_b_;
    o.epoch = panel.epochB();
    const auto ref = hnclip::RunRetriever::open(o);
    QVERIFY(ref->embeddings_from_cache());
    const auto& e = ref->embeddings();

    // Every stored t2i rank is the rank the embeddings give (up to float ties).
    const auto& rows = panel.queryModel()->rows();
    QCOMPARE(int64_t(rows.size()), e.num_captions);
    for (const auto& r : rows) {
      const int64_t truth = r.query / 2;  // two captions per image, image by image
      const auto scores = brute_force({e.caption_row(r.query), e.caption_row(r.query) + e.dim},
                                      e.images, e.num_images, e.dim);
      float gt = 0;
      for (const auto& [s, id] : scores)
        if (id == truth) gt = s;
      int64_t lo = 1, hi = 1;
      for (const auto& [s, id] : scores) {
        if (id == truth) continue;
        lo += s >= gt + 1e-5f;
        hi += s >= gt - 1e-5f;
      }
      QVERIFY2(r.rank_b >= lo && r.rank_b <= hi,
               qPrintable(QString("query %1: stored rank %2, embeddings say %3..%4")
                              .arg(r.query)
                              .arg(r.rank_b)
                              .arg(lo)
                              .arg(hi)));
    }

    // The side-by-side view of the largest difference shows B's brute-force top-k with scores.
    panel.setK(7);
    QVERIFY(panel.selectLargestDifference());
    const int64_t q = *panel.selectedQuery();
    const auto expected =
        brute_force({e.caption_row(q), e.caption_row(q) + e.dim}, e.images, e.num_images, e.dim);
    const auto& row_b = panel.view()->rows()[1];
    QCOMPARE(row_b.items.size(), size_t{7});
    for (size_t i = 0; i < 7; ++i) {
      QVERIFY(std::abs(row_b.items[i].score - expected[i].first) < 1e-5f);
      QVERIFY(row_b.items[i].image_path.endsWith(QString("img/%1.png").arg(expected[i].second)));
      QCOMPARE(row_b.items[i].ground_truth, expected[i].second == q / 2);
      // Hovering a retrieved image shows its captions (rich text, marked where they differ from
      // the query caption), one per line.
      QString tip = panel.view()->thumbnails()[1][i]->toolTip();
      tip.replace(QString("<br>"), QString("\n")).remove(QRegularExpression("<[^>]*>"));
      QVERIFY2(tip.contains(QString("on a dark ground number %1\n").arg(expected[i].second)),
               qPrintable(tip));
    }
    // Near-twins: images of caption q's 5 nearest captions under run A's checkpoint (no stored
    // geometry here), less the ground truth.
    hnclip::RunRetrieverOptions oa = o;
    oa.run_id = run_a_;
    oa.epoch = panel.epochA();
    const auto ra = hnclip::RunRetriever::open(oa);
    std::set<int64_t> twins;
    for (const auto& n : ra->caption_neighbors(q, 5))
      if (n.id / 2 != q / 2) twins.insert(n.id / 2);
    for (size_t i = 0; i < 7; ++i)
      QCOMPARE(row_b.items[i].near_twin, twins.count(expected[i].second) > 0);
    // Ground truth outlined green in the thumbnails, wherever it appears.
    const auto& thumbs = panel.view()->thumbnails();
    for (size_t r = 0; r < thumbs.size(); ++r)
      for (size_t i = 0; i < thumbs[r].size(); ++i)
        QCOMPARE(thumbs[r][i]->outline() == hnclip::gui::RetrievalView::kGroundTruthColor,
                 panel.view()->rows()[r].items[i].ground_truth);

    // Ad-hoc: a typed caption, encoded by both checkpoints off the GUI thread.
    QSignalSpy adhoc(&panel, &RetrievalPanel::adhocFinished);
    const QString text = "a blue square";
    panel.setK(5);
    panel.runAdhocQuery(text);
    QTRY_VERIFY_WITH_TIMEOUT(adhoc.count() > 0, kWaitMs);
    const auto qe = ref->encode_text(text.toStdString());
    const auto want = brute_force(qe, e.images, e.num_images, e.dim);
    const auto& adhoc_b = panel.view()->rows()[1];
    QCOMPARE(adhoc_b.items.size(), size_t{5});
    for (size_t i = 0; i < 5; ++i) {
      QVERIFY(std::abs(adhoc_b.items[i].score - want[i].first) < 1e-5f);
      QVERIFY(adhoc_b.items[i].image_path.endsWith(QString("img/%1.png").arg(want[i].second)));
    }
    // Rereading the runs (the tab shown again) keeps the ad-hoc result on screen.
    const int queries_before = loaded.count();
    panel.refresh();
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > queries_before && !panel.isBusy(), kWaitMs);
    QCOMPARE(panel.view()->rows()[1].items.size(), size_t{5});
    QVERIFY(panel.view()->rows()[1].items[0].image_path.endsWith(
        QString("img/%1.png").arg(want[0].second)));
    // The figure export writes a picture of the view, once its thumbnails are painted.
    QTRY_VERIFY_WITH_TIMEOUT(panel.view()->allImagesShown(), kWaitMs);
    const QString png = QString::fromStdString((*dir_ / "view.png").string());
    QString error;
    QVERIFY2(panel.exportPng(png, &error), qPrintable(error));
    QImage shot(png);
    QVERIFY(shot.width() > 300 && shot.height() > 200);

    // Words these word-vocabulary runs do not know encode as the one unknown token: the status
    // line and each run's row say so (they did not, and the ranking looked like an answer).
    const int adhoc_before = adhoc.count();
    panel.runAdhocQuery("a blue zebra, quokka");
    QTRY_VERIFY_WITH_TIMEOUT(adhoc.count() > adhoc_before, kWaitMs);
    QVERIFY2(panel.statusText().contains("vocabulary lacks zebra, quokka (each such word encodes "
                                         "as the one unknown token"),
             qPrintable(panel.statusText()));
    QCOMPARE(panel.view()->rows().size(), size_t{2});
    for (const auto& row : panel.view()->rows())
      QVERIFY2(row.rank_text.endsWith("2 words not in its vocabulary"), qPrintable(row.rank_text));
    panel.runAdhocQuery(text);
    QTRY_VERIFY_WITH_TIMEOUT(adhoc.count() > adhoc_before + 1, kWaitMs);
    QVERIFY2(!panel.statusText().contains("vocabulary"), qPrintable(panel.statusText()));
  }
};

QTEST_MAIN(TestRetrievalPanel)
#include "test_retrieval_panel.moc"
