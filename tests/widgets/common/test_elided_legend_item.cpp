// ElidedLegendItem: a long name keeps its start and its end (the run's seed, the series) around
// "…" in the width the legend gives it, asks for no more than a short name's width, and the
// plottable keeps its full name after a draw.
#include <QtTest>

#include "qcustomplot.h"
#include "widgets/common/elided_legend_item.h"
#include "widgets/common/legend_below.h"

using hnclip::gui::ElidedLegendItem;

namespace {
const QString kStart = QStringLiteral("s52 · InfoNCE · s 50 fixed · lr 1e-3 · batch 64");
}  // namespace

class TestElidedLegendItem : public QObject {
  Q_OBJECT
 private slots:
  void long_names_keep_both_ends_in_a_narrow_legend() {
    QCustomPlot plot;
    plot.resize(480, 300);  // a chart of a two-column page on a 1400-pixel window
    plot.setAutoAddPlottableToLegend(false);
    plot.legend->clearItems();
    QList<ElidedLegendItem*> items;
    for (int seed : {1, 2}) {
      QCPGraph* g = plot.addGraph();
      g->setName(kStart + QStringLiteral(" · seed %1 · standard").arg(seed));
      g->addData(QVector<double>{0, 1}, QVector<double>{0, 1});
      auto* item = new ElidedLegendItem(plot.legend, g);
      plot.legend->addElement(0, seed - 1, item);
      items << item;
    }
    hnclip::gui::place_legend_below(&plot);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();

    const QFontMetrics metrics(plot.legend->font());
    for (int i = 0; i < 2; ++i) {
      ElidedLegendItem* item = items[i];
      const QString name = item->plottable()->name();
      QCOMPARE(name, kStart + QStringLiteral(" · seed %1 · standard").arg(i + 1));  // kept
      // Each of the two columns has about half the plot; the name is far wider.
      QVERIFY(item->outerRect().width() < metrics.horizontalAdvance(name));
      QVERIFY2(item->outerRect().right() <= plot.width(), "the legend stays inside the plot");
      const QString shown = item->shownText(item->outerRect().width());
      QVERIFY2(shown.contains(QChar(0x2026)), qPrintable(shown));
      QVERIFY2(shown.startsWith(QStringLiteral("s52")), qPrintable(shown));
      QVERIFY2(shown.endsWith(QStringLiteral("%1 · standard").arg(i + 1)), qPrintable(shown));
    }
    // A short name is shown whole.
    items[0]->plottable()->setName(QStringLiteral("run 1 · loss"));
    QCOMPARE(items[0]->shownText(items[0]->outerRect().width()), QStringLiteral("run 1 · loss"));
  }
};

QTEST_MAIN(TestElidedLegendItem)
#include "test_elided_legend_item.moc"
