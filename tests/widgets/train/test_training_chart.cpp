// TrainingChart: the loss chart opens on a log axis that keeps the "solved" line 1e-3 in sight, an
// all-zero chart shows a [0, 1] axis, an empty chart says what to do in lines that fit its axis
// rect, a zoom stops following the data and the Follow button or F restores it, legends sit
// outside the axis rect with one row group per run, a chart without a legend still spans its
// plot's width, and the toggles show their checked state in a dark palette.
#include <QtTest>

#include <cmath>

#include "qcustomplot.h"
#include "widgets/common/elided_legend_item.h"
#include "widgets/train/training_chart.h"
#include "widgets/train/training_curves.h"

using hnclip::StepMetricRow;
using hnclip::gui::TrainingChart;
using hnclip::gui::TrainingCurves;

namespace {

StepMetricRow step(int64_t s, double loss, double lr = 1e-4) {
  StepMetricRow r;
  r.step = s;
  r.epoch = 1;
  r.wall_time_s = static_cast<double>(s);
  r.loss = loss;
  r.loss_standard = loss;
  r.lr = lr;
  return r;
}

QString label(int64_t run) { return QStringLiteral("run %1").arg(run); }

void add_eval(TrainingCurves& c, int64_t run, int64_t at) {
  c.beginEval(run, at, "test");
  for (const char* direction : {"t2i", "i2t"}) {
    for (const int k : {1, 5, 10}) c.addRecall(run, at, "test", direction, k, 10.0 * k);
  }
}

}  // namespace

class TestTrainingChart : public QObject {
  Q_OBJECT
 private slots:
  void loss_opens_on_log_with_the_solved_line_in_range() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kLoss, label, QFont());
    QVERIFY(chart.logScale());
    QCOMPARE(chart.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    for (int i = 1; i <= 5; ++i) curves.addStep(1, step(i, 2.0 + i));
    chart.mirror();
    chart.replot(true);
    // Losses 3..7 alone would give [2, 10.5]; the solved line 1e-3 stays visible below them.
    QVERIFY(chart.plot()->yAxis->range().lower < 1e-3);
    QVERIFY(chart.plot()->yAxis->range().upper > 7.0);
    QCOMPARE(chart.plot()->itemCount(), 3);  // the line, its label, the (hidden) empty message
    auto* line = qobject_cast<QCPItemStraightLine*>(chart.plot()->item(0));
    QVERIFY(line);
    QCOMPARE(line->point1->coords().y(), 1e-3);
    QCOMPARE(line->point2->coords().y(), 1e-3);
  }

  // Neighbouring tick labels never read alike. A log axis over less than about 1.6 decades gets
  // linear ticks from QCustomPlot, which the powers-of-ten format printed as 5·10⁻¹, 5·10⁻¹,
  // 4·10⁻¹ (a gradient norm) or 10⁰, 10⁰, 10⁰ (a gradient ratio near 1); over decades the
  // labels stay powers of ten.
  void tick_labels_differ_on_a_narrow_log_range() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kLoss, label, QFont());
    chart.resize(400, 300);
    for (int i = 1; i <= 5; ++i) curves.addStep(1, step(i, 0.4 + 0.05 * i));
    chart.mirror();
    chart.replot(true);
    const auto labels = [&] {
      chart.plot()->replot();
      const QVector<QString> l = chart.plot()->yAxis->tickVectorLabels();
      return QStringList(l.begin(), l.end());
    };
    QStringList wide = labels();
    QVERIFY2(wide.size() >= 3, qPrintable(wide.join(" | ")));
    // Powers of ten (QCustomPlot draws "1e-03" as 10⁻³).
    QVERIFY2(wide.contains(QStringLiteral("1e-03")), qPrintable(wide.join(" | ")));
    for (const QCPRange& range :
         {QCPRange(0.35, 0.65), QCPRange(0.7, 1.4), QCPRange(0.999, 1.003)}) {
      chart.plot()->yAxis->setRange(range);
      const QStringList narrow = labels();
      QVERIFY2(narrow.size() >= 3, qPrintable(narrow.join(" | ")));
      QCOMPARE(QSet<QString>(narrow.begin(), narrow.end()).size(), narrow.size());
    }
  }

  void all_zero_values_show_a_unit_axis() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kLr, label, QFont());
    QVERIFY(!chart.logScale());
    for (int i = 1; i <= 3; ++i) curves.addStep(1, step(i, 1.0, 0.0));
    chart.mirror();
    chart.replot(true);
    QCOMPARE(chart.plot()->yAxis->range().lower, 0.0);
    QCOMPARE(chart.plot()->yAxis->range().upper, 1.0);
    // A constant non-zero value keeps a range around it.
    TrainingCurves other;
    TrainingChart lr(other, TrainingCurves::kLr, label, QFont());
    for (int i = 1; i <= 3; ++i) other.addStep(1, step(i, 1.0, 2e-5));
    lr.mirror();
    lr.replot(true);
    QVERIFY(lr.plot()->yAxis->range().contains(2e-5));
    QVERIFY(lr.plot()->yAxis->range().size() < 1e-4);
  }

  void empty_chart_says_what_to_do() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kGradNorm, label, QFont());
    chart.resize(TrainingChart::kMinWidth, 350);  // the narrowest a chart is laid out
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replot(true);
    const QString message = chart.emptyMessage();
    QVERIFY2(message.contains(QStringLiteral("press Start (Ctrl+R)")) &&
                 message.contains(QStringLiteral("select a run")),
             qPrintable(message));
    // Every line fits the axis rect, so none is clipped.
    auto* item = qobject_cast<QCPItemText*>(chart.plot()->item(chart.plot()->itemCount() - 1));
    QVERIFY(item && item->text() == message);
    const QFontMetrics metrics(item->font());
    for (const QString& line : message.split(QLatin1Char('\n'))) {
      QVERIFY2(metrics.horizontalAdvance(line) < chart.plot()->axisRect()->width(),
               qPrintable(QStringLiteral("'%1': %2 px in a %3 px axis rect")
                              .arg(line)
                              .arg(metrics.horizontalAdvance(line))
                              .arg(chart.plot()->axisRect()->width())));
    }
    hnclip::ProbeRow p;
    p.step = 5;
    p.epoch = 1;
    p.grad_norm_standard = 1.0;
    p.grad_norm_boosted = 2.0;
    curves.addProbe(1, p);
    chart.mirror();
    chart.replot(true);
    QCOMPARE(chart.emptyMessage(), QString());
  }

  void follow_is_restored_after_a_zoom_by_button_and_key() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kLr, label, QFont());
    chart.resize(500, 350);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    for (int i = 1; i <= 10; ++i) curves.addStep(1, step(i, 1.0));
    chart.mirror();
    chart.replot(true);
    QVERIFY(chart.following());
    QVERIFY(chart.followButton()->isChecked());
    chart.plot()->xAxis->setRange(2, 3);  // what a drag or Ctrl+wheel does
    QVERIFY(!chart.following());
    QVERIFY(!chart.followButton()->isChecked());
    curves.addStep(1, step(11, 1.0));
    chart.mirror();
    chart.replot(true);
    QCOMPARE(chart.plot()->xAxis->range().upper, 3.0);  // the user's view is kept
    chart.followButton()->click();
    QVERIFY(chart.following());
    QCOMPARE(chart.plot()->xAxis->range().upper, 11.0);

    chart.plot()->xAxis->setRange(4, 5);
    QVERIFY(!chart.following());
    chart.plot()->setFocus();
    QTest::keyClick(chart.plot(), Qt::Key_F);
    QVERIFY(chart.following());
    QCOMPARE(chart.plot()->xAxis->range().upper, 11.0);
    QVERIFY(chart.followButton()->toolTip().contains(QStringLiteral("press F")));
  }

  void legend_is_outside_the_axis_rect_and_grouped_by_run() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kRecall, label, QFont());
    chart.resize(900, 420);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    add_eval(curves, 3, 0);
    add_eval(curves, 8, 0);
    add_eval(curves, 3, 10);
    add_eval(curves, 8, 10);
    chart.mirror();
    chart.replot(true);
    QCPLegend* legend = chart.plot()->legend;
    QVERIFY(legend->visible());
    QVERIFY(!legend->outerRect().intersects(chart.plot()->axisRect()->rect()));
    // Six series per run, three to a row: rows 0-1 are run 3 (t2i, then i2t), rows 2-3 run 8.
    QCOMPARE(legend->rowCount(), 4);
    auto at = [legend](int row, int column) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->element(row, column));
      return item ? item->plottable() : nullptr;
    };
    using Role = TrainingChart::GraphRole;
    QCOMPARE(at(0, 0), chart.graph(3, "t2i_R@1", Role::Raw));
    QCOMPARE(at(0, 2), chart.graph(3, "t2i_R@10", Role::Raw));
    QCOMPARE(at(1, 0), chart.graph(3, "i2t_R@1", Role::Raw));
    QCOMPARE(at(2, 0), chart.graph(8, "t2i_R@1", Role::Raw));
    QCOMPARE(at(3, 2), chart.graph(8, "i2t_R@10", Role::Raw));
    // Entries elide long names in the middle (ElidedLegendItem), not at their right edge.
    for (int row = 0; row < legend->rowCount(); ++row)
      for (int column = 0; column < legend->columnCount(); ++column)
        QVERIFY(dynamic_cast<hnclip::gui::ElidedLegendItem*>(legend->element(row, column)));
  }

  // QCustomPlot caps a layout column at the smallest maximum width of the elements in it, and an
  // empty legend's maximum width is its margins: a chart with no data, or whose runs were all
  // removed, must still give its axis rect the plot's width, not the axis rect's minimum.
  void an_empty_chart_spans_the_plot_width() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kLoss, label, QFont());
    chart.resize(600, 350);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCustomPlot* plot = chart.plot();
    // After each change: the legend shows exactly while a run is on the chart, below the axis
    // rect, and the axis rect keeps most of the plot's width either way.
    const auto check = [&](const char* when, bool with_run) {
      chart.mirror();
      chart.replot(true);
      QCOMPARE(plot->legend->visible(), with_run);
      if (with_run) QVERIFY(plot->legend->outerRect().top() >= plot->axisRect()->bottom());
      QVERIFY2(plot->axisRect()->width() > plot->width() / 2,
               qPrintable(QStringLiteral("%1: axis rect %2 px of a %3 px plot")
                              .arg(QString::fromLatin1(when))
                              .arg(plot->axisRect()->width())
                              .arg(plot->width())));
    };
    const auto add_run = [&curves](int64_t run) {
      for (int i = 1; i <= 5; ++i) curves.addStep(run, step(i, 1.0 + i));
    };
    check("before any run", false);
    add_run(1);
    check("with a run", true);
    curves.removeRun(1);
    check("after its run was removed", false);
    add_run(2);
    check("with a run again", true);
  }

  void toggles_show_their_state_in_a_dark_palette() {
    TrainingCurves curves;
    TrainingChart chart(curves, TrainingCurves::kLoss, label, QFont());
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, QColor(225, 225, 225));
    dark.setColor(QPalette::Base, QColor(30, 30, 32));
    dark.setColor(QPalette::Highlight, QColor(42, 130, 218));
    dark.setColor(QPalette::HighlightedText, Qt::black);
    chart.applyPalette(dark);
    QVERIFY(chart.logButton()->isChecked());
    QVERIFY2(chart.logButton()->styleSheet().contains(QStringLiteral(":checked")) &&
                 chart.logButton()->styleSheet().contains(QColor(42, 130, 218).name()),
             qPrintable(chart.logButton()->styleSheet()));
    QVERIFY(chart.followButton()->styleSheet().contains(QColor(42, 130, 218).name()));
    // The empty-chart message is drawn in the palette's text colour, not a fixed dark grey.
    chart.replot(true);
    auto* message = qobject_cast<QCPItemText*>(chart.plot()->item(chart.plot()->itemCount() - 1));
    QVERIFY(message);
    QCOMPARE(message->color().rgb(), QColor(225, 225, 225).rgb());
  }
};

QTEST_MAIN(TestTrainingChart)
#include "test_training_chart.moc"
