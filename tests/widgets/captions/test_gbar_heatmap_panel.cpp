// Ḡ heatmap: plot coordinates -> cell -> caption pair; the panel reads a run's stored snapshots and
// its training split's captions off the GUI thread, opens on the last epoch, steps through epochs
// and batches with a colour range that never refits, maps a pixel under the mouse to the same
// cell, shows a clicked pair with both captions, and exports PNG/SVG/PDF; with a long run name
// shown it still fits a narrow screen.
#include <QtTest>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <fstream>

#include <nlohmann/json.hpp>

#include "qcustomplot.h"
#include "widgets/captions/gbar_heatmap_panel.h"
#include "widgets/captions/gbar_pair_view.h"
#include "widgets/captions/gbar_snapshot_set.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/narrow_screen.h"
#include "widgets/runs_fixture.h"

using namespace hnclip;
using namespace hnclip::gui;

namespace {

// A 3-caption batch whose matrix value at (r, c) is 0.1 * (r + 1) + 0.01 * (c + 1) off the
// diagonal.
GbarSnapshotRow snapshot(int epoch, int batch, std::vector<int64_t> captions, float bump = 0) {
  GbarSnapshotRow s;
  s.epoch = epoch;
  s.batch = batch;
  s.captions = std::move(captions);
  const int n = static_cast<int>(s.captions.size());
  s.matrix.assign(static_cast<size_t>(n * n), 0.f);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      if (r != c)
        s.matrix[static_cast<size_t>(r * n + c)] = 0.1f * (r + 1) + 0.01f * (c + 1) + bump;
  s.max_value = s.matrix[static_cast<size_t>((n - 1) * n + (n - 2))];
  s.max_i = n - 2;
  s.max_j = n - 1;
  return s;
}

// A manifest training split of 4 images / 6 captions in dir/m.jsonl; one caption carries HTML
// specials.
bool write_manifest(const QTemporaryDir& dir) {
  const std::vector<std::string> captions = {
      "a red cube", "a red cube left", "a <blue> ball & a cone",
      "green cone", "two green cones", "a small cone"};
  std::ofstream manifest(dir.filePath("m.jsonl").toStdString());
  for (int i = 0; i < 4; ++i) {
    const auto image = dir.filePath(QStringLiteral("i%1.png").arg(i));
    QImage img(30, 30, QImage::Format_RGB32);
    img.fill(QColor::fromHsv(i * 80, 200, 200));
    if (!img.save(image)) return false;
    nlohmann::json row{{"image", image.toStdString()}, {"split", "train"}};
    if (i < 2)
      row["captions"] = {captions[i * 2], captions[i * 2 + 1]};
    else
      row["caption"] = captions[static_cast<size_t>(i + 2)];
    manifest << row.dump() << "\n";
  }
  return static_cast<bool>(manifest);
}

std::string manifest_config(const QTemporaryDir& dir, double gamma) {
  return test::make_config_json(
      "manifest", gamma, "frozen", 2,
      "\"benchmark_root\": \"" + dir.filePath("m.jsonl").toStdString() + "\"");
}

}  // namespace

class TestGbarHeatmapPanel : public QObject {
  Q_OBJECT

 private slots:
  void cell_mapping() {
    const auto s = snapshot(1, 0, {40, 41, 42});
    const auto c = gbar_cell_at(s, 2.0, 0.0);  // x = column 2, y = row 0
    QVERIFY(c.has_value());
    QCOMPARE(c->row, 0);
    QCOMPARE(c->col, 2);
    QCOMPARE(c->caption_row, int64_t{40});
    QCOMPARE(c->caption_col, int64_t{42});
    QCOMPARE(c->value, s.matrix[2]);
    QVERIFY(!c->diagonal);
    const auto edge = gbar_cell_at(s, 2.49, 1.49);  // still inside cell (1, 2)
    QVERIFY(edge && edge->row == 1 && edge->col == 2);
    QVERIFY(gbar_cell_at(s, 1.0, 1.0)->diagonal);
    QVERIFY(!gbar_cell_at(s, -0.51, 0.0));
    QVERIFY(!gbar_cell_at(s, 0.0, 2.51));
    QVERIFY(!gbar_cell_at(s, std::nan(""), 0.0));
  }

  void panel_reads_steps_maps_pixels_and_exports() {
    QTemporaryDir dir;
    QVERIFY(write_manifest(dir));
    const auto db = dir.filePath("runs.db").toStdString();
    int64_t run = 0, bad = 0;
    {
      RunStore store(db);
      run = test::add_run(store,
                          "gamma half · lr 1e-3 · batch 64 · ViT-B/16 from OpenAI weights, "
                          "long-caption recipe, a name as long as a sweep's",
                          RunStatus::Finished, manifest_config(dir, 0.5), 1000);
      for (int epoch = 0; epoch <= 2; ++epoch) {
        store.write_gbar_snapshot(run, snapshot(epoch, 0, {0, 2, 3}, 0.05f * epoch));
        store.write_gbar_snapshot(run, snapshot(epoch, 1, {5, 1, 4}, 0.05f * epoch));
      }
      bad =
          test::add_run(store, "no data", RunStatus::Finished,
                        test::make_config_json("manifest", 0.0, "recomputed", 1,
                                               "\"benchmark_root\": \"" +
                                                   dir.filePath("gone.jsonl").toStdString() + "\""),
                        2000);
      store.write_gbar_snapshot(bad, snapshot(0, 0, {7, 8}));
    }

    ThumbnailCache thumbs(QString{});
    GbarHeatmapPanel panel(&thumbs);
    panel.resize(1100, 700);
    panel.show();
    QSignalSpy listed(&panel, &GbarHeatmapPanel::runsListed);
    QSignalSpy loaded(&panel, &GbarHeatmapPanel::loaded);
    panel.setSources(QString::fromStdString(db), dir.filePath("cache"));
    QVERIFY(listed.wait(10000));
    panel.setColorRange(0.2, 0.9);
    panel.showRun(run);
    QVERIFY(panel.isLoading());
    QVERIFY(loaded.wait(10000));
    QVERIFY(!panel.isLoading());
    QVERIFY(panel.snapshotSet() && panel.snapshotSet()->captions);
    QCOMPARE(panel.epoch(), 2);  // opens on the last epoch
    QCOMPARE(panel.batch(), 0);
    QVERIFY(panel.statusText().contains(QStringLiteral("frozen")));
    // Its controls in two rows and the run combo sized by characters: with the long run name
    // shown, the page fits a narrow screen (in one row its controls alone were 1108 pixels).
    QVERIFY2(panel.minimumSizeHint().width() <= test::kTabWidthBudget,
             qPrintable(QString::number(panel.minimumSizeHint().width())));
    QCOMPARE(panel.snapshotSet()->caption_text(2), std::string("a <blue> ball & a cone"));

    // Stepping keeps the batch and the fixed colour range.
    QVERIFY(panel.setSnapshot(2, 1));
    QVERIFY(panel.setSnapshot(0, 1));
    QCOMPARE(panel.currentSnapshot()->captions, (std::vector<int64_t>{5, 1, 4}));
    QCOMPARE(panel.colorRange(), qMakePair(0.2, 0.9));
    QVERIFY(!panel.setSnapshot(3, 0));
    QCOMPARE(panel.epoch(), 0);
    // Reloading the run on screen (new epochs of a running run) keeps the user's place.
    panel.showRun(run);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(panel.epoch(), 0);
    QCOMPARE(panel.batch(), 1);

    // The pixel at the centre of cell (row 2, column 0) maps back to it.
    panel.plot()->replot();
    const QPoint pixel(qRound(panel.plot()->xAxis->coordToPixel(0.0)),
                       qRound(panel.plot()->yAxis->coordToPixel(2.0)));
    const auto cell = panel.cellAtPixel(pixel);
    QVERIFY(cell.has_value());
    QCOMPARE(cell->row, 2);
    QCOMPARE(cell->col, 0);
    QCOMPARE(cell->caption_row, int64_t{4});
    QCOMPARE(cell->caption_col, int64_t{5});
    const QString hover = panel.hoverText(*cell);
    QVERIFY2(hover.contains(QStringLiteral("two green cones")) &&
                 hover.contains(QStringLiteral("a small cone")),
             qPrintable(hover));
    QVERIFY(!panel.cellAtPixel(QPoint(1, 1)));  // outside the axis rect

    // A click selects the pair (signal with both caption ids); the diagonal cannot be selected.
    QSignalSpy pairs(&panel, &GbarHeatmapPanel::pairSelected);
    QTest::mouseClick(panel.plot(), Qt::LeftButton, {}, pixel);
    QCOMPARE(pairs.count(), 1);
    QCOMPARE(pairs.at(0).at(0).toLongLong(), 4LL);
    QCOMPARE(pairs.at(0).at(1).toLongLong(), 5LL);
    QTRY_VERIFY(panel.pairImagesShown());  // both images decoded off the GUI thread
    QVERIFY(!panel.selectCell(1, 1));
    QVERIFY(panel.selectCell(0, 1));  // captions 5 and 1
    QCOMPARE(panel.selectedCell()->caption_col, int64_t{1});
    QVERIFY(panel.hoverText(*panel.selectedCell()).contains(QStringLiteral("a red cube left")));

    for (const char* ext : {"png", "svg", "pdf"}) {
      const QString path = dir.filePath(QStringLiteral("heat.%1").arg(QLatin1String(ext)));
      QString error;
      QVERIFY2(panel.exportChart(path, &error), qPrintable(error));
      QVERIFY(QFileInfo(path).size() > 500);
    }
    QString error;
    QVERIFY(!panel.exportChart(dir.filePath("heat.bmpx"), &error));
    QVERIFY(error.contains(QStringLiteral("heat.bmpx")));

    // A run whose benchmark is gone still shows its matrix, and says why texts are missing.
    panel.showRun(bad);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(panel.runId(), bad);
    QVERIFY(panel.currentSnapshot());
    QVERIFY(!panel.snapshotSet()->captions);
    QVERIFY2(panel.statusText().contains(QStringLiteral("gone.jsonl")),
             qPrintable(panel.statusText()));
    QCOMPARE(panel.snapshotSet()->caption_text(7), std::string("caption 7"));

    // An unknown run is reported, not thrown.
    panel.showRun(999);
    QVERIFY(loaded.wait(10000));
    QVERIFY(panel.statusText().contains(QStringLiteral("999")));
    QVERIFY(!panel.currentSnapshot());
  }

  void keeps_the_selected_pair_across_epochs_and_follows_the_dock() {
    QTemporaryDir dir;
    QVERIFY(write_manifest(dir));
    const auto db = dir.filePath("runs.db").toStdString();
    int64_t run = 0, other = 0;
    {
      RunStore store(db);
      run = test::add_run(store, "pairs", RunStatus::Finished, manifest_config(dir, 0.5), 1000);
      // The same captions in another order at epoch 1, and a batch without caption 1 at epoch 2.
      store.write_gbar_snapshot(run, snapshot(0, 0, {0, 1, 3}));
      store.write_gbar_snapshot(run, snapshot(1, 0, {3, 0, 1}, 0.05f));
      store.write_gbar_snapshot(run, snapshot(2, 0, {0, 2, 3}, 0.1f));
      other = test::add_run(store, "other", RunStatus::Finished, manifest_config(dir, 0.0), 2000);
      store.write_gbar_snapshot(other, snapshot(0, 0, {4, 5}));
    }
    ThumbnailCache thumbs(QString{});
    GbarHeatmapPanel panel(&thumbs);
    panel.resize(1100, 700);
    panel.show();
    QSignalSpy loaded(&panel, &GbarHeatmapPanel::loaded);
    panel.setSources(QString::fromStdString(db), dir.filePath("cache"));
    panel.showRun(run);
    QVERIFY(loaded.wait(10000));
    QVERIFY(panel.setSnapshot(0, 0));
    QVERIFY(panel.selectCell(0, 1));  // captions 0 ("a red cube") and 1 ("a red cube left")
    // The pair view marks what differs: "left" in caption 1, nothing in caption 0.
    QVERIFY2(panel.pairView()->sideText(1).contains(QStringLiteral(">left</b>")),
             qPrintable(panel.pairView()->sideText(1)));
    QCOMPARE(panel.pairView()->sideText(0).count(QStringLiteral("</b>")), 1);  // the number only

    // Epoch 1 holds the pair at other positions: it is still the one selected, with its new Ḡ.
    QVERIFY(panel.setSnapshot(1, 0));
    QVERIFY(panel.selectedCell().has_value());
    QCOMPARE(panel.selectedCell()->caption_row, int64_t{0});
    QCOMPARE(panel.selectedCell()->caption_col, int64_t{1});
    QCOMPARE(panel.selectedCell()->row, 1);
    QCOMPARE(panel.selectedCell()->col, 2);
    QCOMPARE(panel.selectedCell()->value, panel.currentSnapshot()->matrix[1 * 3 + 2]);
    // Epoch 2's batch lacks caption 1: nothing is selected there, but stepping back finds the
    // pair again.
    QVERIFY(panel.setSnapshot(2, 0));
    QVERIFY(!panel.selectedCell().has_value());
    QVERIFY(panel.setSnapshot(1, 0));
    QVERIFY(panel.selectedCell().has_value());
    QCOMPARE(panel.selectedCell()->caption_col, int64_t{1});
    // A reload of the run on screen keeps the selected pair.
    QVERIFY(panel.selectCell(0, 2));  // captions 3 and 1
    panel.showRun(run);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(panel.epoch(), 1);
    QVERIFY(panel.selectedCell().has_value());
    QCOMPARE(panel.selectedCell()->caption_row, int64_t{3});

    // The run dock's selection: the first selected run is shown; an empty one changes nothing.
    panel.followRunSelection({other, run});
    QVERIFY(loaded.wait(10000));
    QCOMPARE(panel.runId(), other);
    QVERIFY(!panel.selectedCell().has_value());  // another run: its own pairs
    panel.followRunSelection({});
    QVERIFY(!panel.isLoading());
    QCOMPARE(panel.runId(), other);
    // While the page is hidden the selection waits for the page's next activation.
    panel.hide();
    panel.followRunSelection({run});
    QVERIFY(!panel.isLoading());
    panel.show();
    panel.activated();
    QVERIFY(panel.isLoading());
    QVERIFY(loaded.wait(10000));
    QCOMPARE(panel.runId(), run);
  }
};

QTEST_MAIN(TestGbarHeatmapPanel)
#include "test_gbar_heatmap_panel.moc"
