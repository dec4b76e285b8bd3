// CaptionOverviewCharts on hand-made statistics: the hardest-neighbour histogram's x range fits
// its non-empty bins, the hardness chart stacks its buckets on a linear axis and, on the log
// scale, stands them side by side on a logarithmic axis that reaches down to the ≥ 0.9 bucket;
// long encoder labels are wrapped so they cannot overlap, nor widen the page past a narrow
// screen's.
#include <QCheckBox>
#include <QtTest>

#include "qcustomplot.h"
#include "support/test_dirs.h"
#include "widgets/captions/caption_overview_charts.h"
#include "widgets/common/elided_legend_item.h"
#include "widgets/narrow_screen.h"

using hnclip::gui::CaptionOverviewCharts;

namespace {
constexpr int kBins = 40;  // bins of width 0.05 over [-1, 1]

hnclip::CaptionStatsRow stats() {
  hnclip::CaptionStatsRow s;
  s.captions = 100;
  s.batch_size = 32;
  s.mean_pairwise = 0.6;
  s.mean_hardest = 0.93;
  s.bucket_fractions = {0.9, 0.08, 0.015, 0.004, 0.001};
  s.pairwise_histogram.assign(kBins, 0);
  s.hardest_histogram.assign(kBins, 0);
  for (int b = 28; b < 38; ++b) s.pairwise_histogram[static_cast<size_t>(b)] = 10;  // [0.4, 0.9)
  s.hardest_histogram[35] = 20;                                                     // [0.75, 0.8)
  s.hardest_histogram[38] = 80;                                                     // [0.9, 0.95)
  return s;
}
}  // namespace

class TestCaptionOverviewCharts : public QObject {
  Q_OBJECT
 private slots:
  void histogram_range_fits_the_data() {
    CaptionOverviewCharts charts;
    charts.setEntries({{QStringLiteral("pretrained"), stats(), Qt::blue}});
    const QCPRange hardest = charts.chart(QStringLiteral("hardest"))->xAxis->range();
    QVERIFY2(hardest.lower > 0.7 && hardest.lower <= 0.75,
             qPrintable(QString::number(hardest.lower)));
    QVERIFY2(hardest.upper >= 0.95 && hardest.upper < 1.0,
             qPrintable(QString::number(hardest.upper)));
    const QCPRange pairwise = charts.chart(QStringLiteral("pairwise"))->xAxis->range();
    QVERIFY(pairwise.lower > 0.3 && pairwise.lower <= 0.4);
    QVERIFY(pairwise.upper >= 0.9 && pairwise.upper < 0.95);
    // Nothing loaded: a plain [0, 1].
    charts.setEntries({});
    QCOMPARE(charts.chart(QStringLiteral("hardest"))->xAxis->range().lower, 0.0);
    QCOMPARE(charts.chart(QStringLiteral("hardest"))->xAxis->range().upper, 1.0);
  }

  // With nothing loaded (a geometry is being computed) the charts keep their axes' width: an
  // empty legend left in the layout squeezed each axis rect to QCustomPlot's 50-pixel minimum.
  void empty_charts_keep_their_width() {
    CaptionOverviewCharts charts;
    charts.resize(900, 500);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    for (int round = 0; round < 2; ++round) {
      charts.setEntries(round == 0 ? std::vector<CaptionOverviewCharts::Entry>{}
                                   : std::vector<CaptionOverviewCharts::Entry>{
                                         {QStringLiteral("pretrained"), stats(), Qt::blue}});
      charts.setEntries({});  // loaded, then cleared again
      for (const char* name : {"pairwise", "hardest", "buckets"}) {
        QCustomPlot* plot = charts.chart(QString::fromLatin1(name));
        plot->replot();
        QVERIFY2(plot->axisRect()->width() > plot->width() / 2,
                 qPrintable(QStringLiteral("%1: axes %2 of %3 pixels")
                                .arg(QLatin1String(name))
                                .arg(plot->axisRect()->width())
                                .arg(plot->width())));
        QVERIFY(!plot->legend->visible());
      }
    }
    // A histogram's entry keeps its mean, at the end of its name, however long the encoder's.
    charts.setEntries({{QStringLiteral("Run 12: a run with a rather long name, and longer still"),
                        stats(), Qt::red}});
    QCustomPlot* plot = charts.chart(QStringLiteral("hardest"));
    plot->replot();
    auto* item = dynamic_cast<hnclip::gui::ElidedLegendItem*>(plot->legend->item(0));
    QVERIFY(item);
    const QString shown = item->shownText(item->outerRect().width());
    QVERIFY2(shown.contains(QChar(0x2026)) && shown.endsWith(QStringLiteral("(mean 0.930)")),
             qPrintable(shown));
  }

  void log_scale_shows_the_hardest_bucket() {
    CaptionOverviewCharts charts;
    charts.setEntries({{QStringLiteral("Run 12: a run with a rather long name"), stats(), Qt::red},
                       {QStringLiteral("Pretrained starting checkpoint"), stats(), Qt::blue}});
    QCustomPlot* plot = charts.chart(QStringLiteral("buckets"));
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
    QVERIFY(!charts.bucketsLogScale());
    auto* top = qobject_cast<QCPBars*>(plot->plottable(4));
    QVERIFY(top && top->barBelow());  // stacked
    // The ≥ 0.9 bucket: 0.001 × 32 × 31 ≈ 1 of ~992 negatives, under 1% of the linear axis.
    const double hard = 0.001 * 32 * 31;
    QVERIFY(hard / plot->yAxis->range().upper < 0.01);

    auto* box = charts.findChild<QCheckBox*>(QStringLiteral("bucketsLogScale"));
    QVERIFY(box);
    box->setChecked(true);
    QVERIFY(charts.bucketsLogScale());
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
    top = qobject_cast<QCPBars*>(plot->plottable(4));
    QVERIFY(top && !top->barBelow() && top->barsGroup());  // side by side
    QVERIFY(plot->yAxis->range().lower < hard);
    QVERIFY(plot->yAxis->range().upper > 0.9 * 32 * 31);
    // On screen the ≥ 0.9 bar stands a good many pixels tall (on the linear axis: about one).
    charts.resize(1200, 500);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    plot->replot();
    const double bar_px =
        plot->yAxis->coordToPixel(plot->yAxis->range().lower) - plot->yAxis->coordToPixel(hard);
    QVERIFY2(bar_px > 20, qPrintable(QString::number(bar_px)));
    // The picture, for looking at (kept with HNCLIP_KEEP_TEST_DIRS).
    hnclip::test::ScratchDir dir;
    QVERIFY(charts.grab().save(QString::fromStdString((dir / "overview-log.png").string())));

    // Encoder labels are wrapped into short lines.
    auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    for (const QString& label : ticker->ticks()) {
      QVERIFY(label.contains(QLatin1Char('\n')));
      for (const QString& line : label.split(QLatin1Char('\n')))
        QVERIFY2(line.size() <= 16, qPrintable(line));
    }
    charts.setBucketsLogScale(false);
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
  }

  // An encoder's label is a run's name, of any length. Neither it nor the three charts' titles
  // side by side widen the page past a narrow screen's (the titles wrap, and so does a long row of
  // the Table A1 text, at a space); the table still holds the whole name.
  void long_encoder_labels_do_not_widen_the_page() {
    const QString a = QStringLiteral(
        "s52 · HN γ 0.5 · s learnt · seed 1 · lr 1e-3 · batch 64 · ViT-B/16 from "
        "OpenAI weights, long-caption recipe (#1)");
    QString b = a;
    b.replace(QStringLiteral("seed 1"), QStringLiteral("seed 2"));
    CaptionOverviewCharts charts;
    charts.setEntries({{a, stats(), Qt::red}, {b, stats(), Qt::blue}});
    charts.resize(1200, 700);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    QVERIFY2(charts.minimumSizeHint().width() <= hnclip::test::kTabWidthBudget,
             qPrintable(QString::number(charts.minimumSizeHint().width())));
    QVERIFY(charts.tableRowText().contains(a));
    QVERIFY(charts.tableRowText().contains(b));
  }
};

QTEST_MAIN(TestCaptionOverviewCharts)
#include "test_caption_overview_charts.moc"
