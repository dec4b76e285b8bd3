// CaptionsPanel on the built-in benchmark (size small) with the pretrained starting checkpoint:
// the geometry is computed in the background the first time (and stored), read back the second
// time; a Cancel stops a computation with nothing stored; selecting captions, following a
// neighbour and Back/Forward move through the history; the overview charts export as PNG, SVG
// and PDF, the near-duplicate pairs as CSV and the detail view as PNG; loading and loaded, the
// page fits a narrow screen.
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTextStream>
#include <QtTest>

#include "job/caption_geometry_job.h"
#include "qcustomplot.h"
#include "store/run_store.h"
#include "support/test_dirs.h"
#include "widgets/captions/caption_detail_view.h"
#include "widgets/captions/caption_list_model.h"
#include "widgets/captions/caption_overview_charts.h"
#include "widgets/captions/captions_panel.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/narrow_screen.h"

using hnclip::gui::CaptionsPanel;

namespace {
constexpr int kLoadTimeoutMs = 120000;

hnclip::TrainConfig small_config() {
  hnclip::TrainConfig c;
  c.benchmark = "synthetic";
  c.benchmark_size = hnclip::BenchmarkSize::kSmall;
  c.test_split = "test";
  return c;
}
}  // namespace

class TestCaptionsPanel : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;
  QString db_, cache_;

  std::unique_ptr<CaptionsPanel> make_panel() {
    auto panel = std::make_unique<CaptionsPanel>(db_, cache_);
    panel->resize(1300, 850);
    panel->show();
    panel->setFormConfig(small_config());
    return panel;
  }
  std::string dataset_key() const {
    hnclip::BenchmarkSpec spec;
    spec.name = "synthetic";
    spec.size = "small";
    return hnclip::caption_dataset_key(spec, "test");
  }

 private slots:
  void initTestCase() {
    dir_ = std::make_unique<hnclip::test::ScratchDir>();
    db_ = QString::fromStdString((*dir_ / "runs.db").string());
    cache_ = QString::fromStdString((*dir_ / "cache").string());
  }
  void cleanupTestCase() { dir_.reset(); }

  void cancel_stores_nothing() {
    auto panel = make_panel();
    QSignalSpy loaded(panel.get(), &CaptionsPanel::geometryLoaded);
    panel->reload();
    QVERIFY(panel->busy());
    // The status line says what is loading; no percentage beside it.
    const auto* bar = panel->findChild<QProgressBar*>();
    QVERIFY(bar && bar->isVisible() && !bar->isTextVisible());
    panel->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->busy(), kLoadTimeoutMs);
    QCOMPARE(loaded.count(), 0);
    QVERIFY2(panel->statusText().contains(QStringLiteral("Cancelled")),
             qPrintable(panel->statusText()));
    const auto encoder = hnclip::resolve_caption_encoder("init:pretrained", db_.toStdString());
    hnclip::RunStore store(db_.toStdString());
    QVERIFY(!store.caption_stats(dataset_key(), encoder.key).has_value());
  }

  void computes_then_reads_back() {
    {
      auto panel = make_panel();
      QSignalSpy loaded(panel.get(), &CaptionsPanel::geometryLoaded);
      panel->reload();
      QVERIFY(loaded.wait(kLoadTimeoutMs));
      QVERIFY(panel->data()->computed);
      QVERIFY(panel->statusText().contains(QStringLiteral("computed and stored")));
      // Said as the boxes say it, not as the store's keys ("synthetic:size=…#test under init:/…").
      QVERIFY2(panel->statusText().contains(QStringLiteral(" (seed ")) &&
                   panel->statusText().contains(QStringLiteral(" / test under Pretrained")) &&
                   !panel->statusText().contains(QStringLiteral("init:")),
               qPrintable(panel->statusText()));
    }
    auto panel = make_panel();
    QSignalSpy loaded(panel.get(), &CaptionsPanel::geometryLoaded);
    panel->reload();
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    QVERIFY(!panel->data()->computed);
    const auto* data = panel->data();
    QCOMPARE(panel->listModel()->rowCount(), static_cast<int>(data->record.stats.captions));
    QCOMPARE(static_cast<int64_t>(data->texts.size()), data->record.stats.captions);
    // The list's cosine is the stored rank-1 neighbour's.
    const auto first = data->neighbors(4);
    QVERIFY(!first.empty());
    QCOMPARE(panel->listModel()
                 ->index(4, hnclip::gui::CaptionListModel::HardestColumn)
                 .data()
                 .toString(),
             QString::number(first.front()->cosine, 'f', 3));
  }

  void history_follows_selection_and_neighbours() {
    auto panel = make_panel();
    QSignalSpy loaded(panel.get(), &CaptionsPanel::geometryLoaded);
    panel->selectCaption(2);  // before the geometry: remembered
    panel->reload();
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    QCOMPARE(panel->currentCaption(), qint64(2));
    QCOMPARE(panel->listView()
                 ->currentIndex()
                 .data(hnclip::gui::CaptionListModel::CaptionIdRole)
                 .toLongLong(),
             qint64(2));
    auto* detail = panel->detailView();
    QVERIFY(detail->neighborCount() >= 5);
    QTRY_VERIFY_WITH_TIMEOUT(detail->allImagesShown(), 10000);

    const qint64 nearest = panel->data()->neighbors(2).front()->neighbor;
    emit detail->captionActivated(nearest);  // as a click on the neighbour does
    QCOMPARE(panel->currentCaption(), nearest);
    QVERIFY(panel->canGoBack());
    QVERIFY(!panel->canGoForward());
    panel->goBack();
    QCOMPARE(panel->currentCaption(), qint64(2));
    QCOMPARE(detail->caption(), qint64(2));
    QVERIFY(panel->canGoForward());
    panel->goForward();
    QCOMPARE(panel->currentCaption(), nearest);
    // A new selection after Back drops the forward part of the history.
    panel->goBack();
    panel->selectCaption(5);
    QVERIFY(!panel->canGoForward());
    panel->goBack();
    QCOMPARE(panel->currentCaption(), qint64(2));

    // Selecting a row in the list shows that caption.
    auto* view = panel->listView();
    const QModelIndex row = panel->listProxy()->mapFromSource(panel->listModel()->index(7, 0));
    view->setCurrentIndex(row);
    QCOMPARE(panel->currentCaption(), qint64(7));
  }

  void exports() {
    auto panel = make_panel();
    QSignalSpy loaded(panel.get(), &CaptionsPanel::geometryLoaded);
    panel->reload();
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    const QString out = QString::fromStdString((*dir_ / "exports").string());
    QDir().mkpath(out);
    for (const QString& chart : hnclip::gui::CaptionOverviewCharts::chartNames()) {
      for (const QString& ext :
           {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
        const QString path = out + QStringLiteral("/%1.%2").arg(chart, ext);
        QString error;
        QVERIFY2(panel->exportChart(chart, path, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 500);
      }
    }
    QVERIFY(!QImage(out + QStringLiteral("/pairwise.png")).isNull());
    QString error;
    QVERIFY(!panel->exportChart(QStringLiteral("nope"), out + QStringLiteral("/x.png"), &error));
    QVERIFY(error.contains(QStringLiteral("nope")));
    QVERIFY(
        !panel->exportChart(QStringLiteral("pairwise"), out + QStringLiteral("/x.bmpx"), &error));

    const QString csv = out + QStringLiteral("/pairs.csv");
    QVERIFY2(panel->exportPairsCsv(csv, &error), qPrintable(error));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines =
        QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QStringLiteral("rank,cosine,caption_a,caption_b,text_a,text_b"));
    QCOMPARE(lines.size() - 1, static_cast<int>(panel->data()->record.pairs.size()));
    const auto& top = panel->data()->record.pairs.front();
    QVERIFY2(lines.at(1).startsWith(
                 QStringLiteral("1,%1,%2,%3,").arg(top.cosine, 0, 'f', 6).arg(top.a).arg(top.b)),
             qPrintable(lines.at(1)));
    QVERIFY(lines.at(1).contains(panel->data()->texts[static_cast<size_t>(top.a)].left(20)));

    // The overview page as a picture, for looking at (kept with HNCLIP_KEEP_TEST_DIRS).
    panel->pages()->setCurrentIndex(0);
    QTest::qWait(200);  // the queued replots and the layout of the now visible page
    QVERIFY(panel->grab().save(out + QStringLiteral("/overview-page.png")));
    QVERIFY(panel->charts()->tableRowText().contains(
        QString::number(panel->data()->record.stats.captions)));

    panel->showCaptionsPage();
    panel->selectCaption(1);
    QTRY_VERIFY_WITH_TIMEOUT(panel->detailView()->allImagesShown(), 10000);
    const QString png = out + QStringLiteral("/detail.png");
    QVERIFY2(panel->saveDetailPng(png, &error), qPrintable(error));
    const QImage detail(png);
    QVERIFY(detail.width() > 300 && detail.height() > 300);
    QVERIFY(!panel->saveDetailPng(out + QStringLiteral("/no/such/folder/detail.png"), &error));
  }

  void overlay_draws_both_encoders() {
    auto panel = make_panel();
    QSignalSpy loaded(panel.get(), &CaptionsPanel::geometryLoaded);
    // The same encoder twice is enough to check that both series are drawn and labelled.
    panel->setOverlayEncoder(QStringLiteral("init:pretrained"));
    panel->reload();
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    auto* charts = panel->charts();
    QCOMPARE(static_cast<int>(charts->entries().size()), 2);
    QCOMPARE(charts->chart(QStringLiteral("pairwise"))->graphCount(), 2);
    QCOMPARE(charts->chart(QStringLiteral("hardest"))->graphCount(), 2);
    QCOMPARE(charts->chart(QStringLiteral("pairwise"))->itemCount(), 2);  // the dotted mean lines
    QCOMPARE(charts->tableRowText().split(QLatin1Char('\n')).size(), 3);  // header + 2 rows
  }

  // While a load runs, its progress bar and Cancel stand beside the status line: in the source
  // bar they made the page 1014 pixels wide, and the window, grown to fit, stayed that wide.
  void fits_a_narrow_screen_while_loading_and_after() {
    auto panel = make_panel();
    QSignalSpy loaded(panel.get(), &CaptionsPanel::geometryLoaded);
    panel->setOverlayEncoder(QStringLiteral("init:pretrained"));
    panel->reload();
    QVERIFY(panel->busy());
    QVERIFY(panel->findChild<QProgressBar*>()->isVisible());
    QVERIFY2(panel->minimumSizeHint().width() <= hnclip::test::kTabWidthBudget,
             qPrintable(QString::number(panel->minimumSizeHint().width())));
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    QVERIFY2(panel->minimumSizeHint().width() <= hnclip::test::kTabWidthBudget,
             qPrintable(QString::number(panel->minimumSizeHint().width())));
  }
};

QTEST_MAIN(TestCaptionsPanel)
#include "test_captions_panel.moc"
