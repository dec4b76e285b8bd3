// TrainingPlotsPanel: events become exactly the plotted points, smoothing is TensorBoard's debiased
// EMA, zero gradient norms are clamped and flagged, per-epoch probe fractions agree with the core's
// summarize_probes, history + live append continue one curve, exports write the right bytes.
#include <QLabel>
#include <QtTest>

#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>

#include <cmath>
#include <limits>

#include "qcustomplot.h"
#include "train/probe_summary.h"
#include "widgets/common/run_colors.h"
#include "widgets/train/training_chart.h"
#include "widgets/train/training_plots_panel.h"

using hnclip::gui::TrainingPlotsPanel;
using Role = TrainingPlotsPanel::GraphRole;

namespace {

hnclip::StepEvent step(int64_t s, double loss, double loss_standard, double lr = 1e-4,
                       int epoch = 1) {
  hnclip::StepEvent e;
  e.step = s;
  e.epoch = epoch;
  e.wall_time_s = 0.5 * static_cast<double>(s);
  e.loss = loss;
  e.loss_standard = loss_standard;
  e.lr = lr;
  return e;
}

hnclip::ProbeEvent probe(int64_t s, int epoch, double loss_standard, double gn_standard,
                         double gn_boosted) {
  hnclip::ProbeEvent p;
  p.step = s;
  p.epoch = epoch;
  p.loss_standard = loss_standard;
  p.loss_boosted = loss_standard * 2;
  p.grad_norm_standard = gn_standard;
  p.grad_norm_boosted = gn_boosted;
  p.grad_ratio =
      gn_standard == 0 ? std::numeric_limits<double>::infinity() : gn_boosted / gn_standard;
  p.grad_cosine = gn_standard == 0 ? std::numeric_limits<double>::quiet_NaN() : 0.5;
  return p;
}

hnclip::EvalEvent eval(int epoch, int64_t s, double base) {
  hnclip::EvalEvent e;
  e.epoch = epoch;
  e.step = s;
  e.split = "test";
  e.t2i.direction = "t2i";
  e.t2i.recall = {{1, base}, {5, base + 10}, {10, base + 20}};
  e.i2t.direction = "i2t";
  e.i2t.recall = {{1, base + 1}, {5, base + 11}, {10, base + 21}};
  return e;
}

std::vector<std::pair<double, double>> points(const QCPGraph* g) {
  std::vector<std::pair<double, double>> out;
  if (!g) return out;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    out.emplace_back(it->key, it->value);
  return out;
}

// TensorBoard's smoothing, written independently of the widget.
std::vector<double> reference_ema(const std::vector<double>& values, double w) {
  std::vector<double> out;
  double last = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    last = last * w + (1 - w) * values[i];
    const double debias = w == 0 ? 1 : 1 - std::pow(w, static_cast<double>(i + 1));
    out.push_back(last / debias);
  }
  return out;
}

QStringList read_lines(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
  QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
  if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
  return lines;
}

QByteArray head(const QString& path, int n) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.read(n);
}

}  // namespace

class TestTrainingPlotsPanel : public QObject {
  Q_OBJECT
 private slots:
  void appended_steps_are_exactly_the_points() {
    TrainingPlotsPanel panel;
    panel.appendStep(3, step(1, 4.0, 3.5, 1e-5));
    panel.appendStep(3, step(2, 3.0, 2.5, 2e-5));
    panel.appendStep(3, step(3, 2.0, 1.5, 3e-5));
    const std::vector<std::pair<double, double>> boosted{{1, 4.0}, {2, 3.0}, {3, 2.0}};
    const std::vector<std::pair<double, double>> standard{{1, 3.5}, {2, 2.5}, {3, 1.5}};
    const std::vector<std::pair<double, double>> lr{{1, 1e-5}, {2, 2e-5}, {3, 3e-5}};
    QVERIFY(points(panel.graph("loss", 3, "loss_boosted")) == boosted);
    QVERIFY(points(panel.graph("loss", 3, "loss_standard")) == standard);
    QVERIFY(points(panel.graph("lr", 3, "lr")) == lr);
    QCOMPARE(panel.runs(), QList<int64_t>{3});
    // Nothing was invented on the probe charts.
    QVERIFY(panel.graph("grad_norm", 3, "grad_norm_standard") == nullptr);
    // Each run keeps its colour: the EMA is drawn in run_color, the raw curve in a faint version of
    // it.
    QCOMPARE(panel.graph("loss", 3, "loss_boosted", Role::Smoothed)->pen().color(),
             hnclip::gui::run_color(3));
    QCOMPARE(panel.graph("loss", 3, "loss_boosted")->pen().color().rgb(),
             hnclip::gui::run_color(3).rgb());
    QCOMPARE(panel.graph("lr", 3, "lr")->pen().color(), hnclip::gui::run_color(3));
  }

  void smoothed_series_is_the_debiased_ema() {
    TrainingPlotsPanel panel;
    panel.setSmoothing(0.8);
    std::vector<double> values;
    for (int i = 1; i <= 40; ++i) {
      const double v = 2.0 + std::sin(i * 0.7) + 0.01 * i;
      values.push_back(v);
      panel.appendStep(1, step(i, v, v / 2));
    }
    auto check = [&](double w) {
      const auto smoothed = points(panel.graph("loss", 1, "loss_boosted", Role::Smoothed));
      const auto expected = reference_ema(values, w);
      QCOMPARE(smoothed.size(), expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(smoothed[i].first, static_cast<double>(i + 1));
        QVERIFY2(std::abs(smoothed[i].second - expected[i]) < 1e-12,
                 qPrintable(QString::number(i)));
      }
    };
    check(0.8);
    panel.setSmoothing(0.3);  // recomputed from the raw curve
    check(0.3);
    for (int i = 41; i <= 60; ++i) {  // appended after the change: incremental EMA continues
      const double v = 1.0 / i;
      values.push_back(v);
      panel.appendStep(1, step(i, v, v));
    }
    check(0.3);
    panel.setSmoothing(0.0);
    check(0.0);
    QCOMPARE(points(panel.graph("loss", 1, "loss_boosted", Role::Smoothed)),
             points(panel.graph("loss", 1, "loss_boosted")));
    panel.setSmoothing(5);  // clamped
    QCOMPARE(panel.smoothing(), 0.99);
  }

  void zero_gradient_norm_is_clamped_and_flagged() {
    TrainingPlotsPanel panel;
    panel.appendProbe(2, probe(10, 1, 0.5, 0.25, 0.75));
    panel.appendProbe(2, probe(20, 1, 1e-5, 0.0, 0.125));
    const auto standard = points(panel.graph("grad_norm", 2, "grad_norm_standard"));
    QCOMPARE(standard.size(), size_t(2));
    QCOMPARE(standard[0].second, 0.25);
    QCOMPARE(standard[1].second, TrainingPlotsPanel::kZeroClamp);
    const auto zeros = points(panel.graph("grad_norm", 2, "grad_norm_standard", Role::ZeroMarks));
    QCOMPARE(zeros.size(), size_t(1));
    QCOMPARE(zeros[0].first, 20.0);
    QCOMPARE(zeros[0].second, 1e-10);
    const QCPGraph* marks = panel.graph("grad_norm", 2, "grad_norm_standard", Role::ZeroMarks);
    QCOMPARE(marks->lineStyle(), QCPGraph::lsNone);
    QVERIFY(marks->scatterStyle().shape() != QCPScatterStyle::ssNone);
    QVERIFY(panel.graph("grad_norm", 2, "grad_norm_boosted", Role::ZeroMarks) ==
            nullptr);  // never zero
    // The infinite ratio and undefined cosine of that probe are not points.
    QCOMPARE(points(panel.graph("grad_ratio", 2, "grad_ratio")).size(), size_t(1));
    QCOMPARE(points(panel.graph("grad_ratio", 2, "grad_ratio"))[0].second, 3.0);
    QCOMPARE(points(panel.graph("grad_cosine", 2, "grad_cosine")).size(), size_t(1));
    QVERIFY(panel.logScale("grad_norm"));
    QVERIFY(panel.logScale("grad_ratio"));
    QCOMPARE(panel.plot("grad_norm")->yAxis->scaleType(), QCPAxis::stLogarithmic);
  }

  void zero_gradient_fractions_match_summarize_probes() {
    TrainingPlotsPanel panel;
    std::vector<hnclip::ProbeEvent> all;
    // epoch 1: 4 probes, 0 zero; epoch 2: 5 probes, 2 zero; epoch 3: 1 probe, 1 zero.
    const std::vector<hnclip::ProbeEvent> probes{
        probe(2, 1, 0.9, 1, 2),     probe(4, 1, 1e-4, 1, 2),  probe(6, 1, 2e-3, 1, 2),
        probe(8, 1, 1e-3, 1, 2),    probe(10, 2, 1e-4, 0, 2), probe(12, 2, 5e-4, 0, 2),
        probe(14, 2, 9.9e-4, 1, 2), probe(16, 2, 0.3, 1, 2),  probe(18, 2, 0.2, 1, 2),
        probe(20, 3, 0, 0, 0)};
    for (const auto& p : probes) {
      panel.appendProbe(5, p);
      all.push_back(p);
      // The epoch's point follows its newest probe.
      const auto zero = points(panel.graph("probe_fractions", 5, "zero_grad_fraction"));
      QCOMPARE(zero.back().first, static_cast<double>(p.step));
    }
    const auto expected = hnclip::summarize_probes(all);
    const auto zero = points(panel.graph("probe_fractions", 5, "zero_grad_fraction"));
    QCOMPARE(zero.size(), expected.size());
    const std::vector<double> last_steps{8, 18, 20};
    for (size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(zero[i].first, last_steps[i]);
      QCOMPARE(zero[i].second, expected[i].zero_grad_fraction);
    }
    QCOMPARE(zero[1].second, 0.4);
    QCOMPARE(zero[2].second, 1.0);
    // Probes alone make no solved point: that fraction comes from the steps.
    QVERIFY(points(panel.graph("probe_fractions", 5, "solved_fraction")).empty());
  }

  void solved_fraction_per_epoch_comes_from_every_step() {
    TrainingPlotsPanel panel;
    // Epoch 1: 10 steps, 3 with a plain loss below 1e-3 -> 0.3; epoch 2: 4 steps, all solved.
    const double epoch1[] = {2.0, 1e-4, 0.5, 0.3, 5e-4, 0.2, 0.1, 0.05, 2e-4, 1e-3};
    for (int i = 0; i < 10; ++i) panel.appendStep(6, step(i + 1, 1.0, epoch1[i], 1e-4, 1));
    for (int i = 0; i < 4; ++i) panel.appendStep(6, step(11 + i, 0.5, 1e-5, 1e-4, 2));
    // A probe of epoch 1 that happens to be unsolved does not change the count.
    panel.appendProbe(6, probe(5, 1, 0.9, 1, 2));
    const auto solved = points(panel.graph("probe_fractions", 6, "solved_fraction"));
    QVERIFY((solved == std::vector<std::pair<double, double>>{{10, 0.3}, {14, 1.0}}));
  }

  void recall_per_epoch_both_directions() {
    TrainingPlotsPanel panel;
    panel.appendEval(4, eval(0, 0, 10));
    panel.appendEval(4, eval(1, 50, 30));
    QVERIFY((points(panel.graph("recall", 4, "t2i_R@1")) ==
             std::vector<std::pair<double, double>>{{0, 10}, {50, 30}}));
    QVERIFY((points(panel.graph("recall", 4, "i2t_R@10")) ==
             std::vector<std::pair<double, double>>{{0, 31}, {50, 51}}));
    QCOMPARE(panel.graph("recall", 4, "t2i_R@5")->pen().style(), Qt::SolidLine);
    QCOMPARE(panel.graph("recall", 4, "i2t_R@5")->pen().style(), Qt::DashLine);
  }

  void history_then_live_append_continues_the_curve() {
    TrainingPlotsPanel panel;
    panel.setSmoothing(0.5);
    std::vector<hnclip::StepMetricRow> steps;
    std::vector<double> values;
    for (int i = 1; i <= 5; ++i) {
      steps.push_back({i, 1, 0.5 * i, 5.0 - i, 4.0 - i, 1e-4, 4.6, 1.0});
      values.push_back(5.0 - i);
    }
    std::vector<hnclip::ProbeRow> probes{
        {2, 1, 0.5, 1.0, 0.0, 0.5, std::numeric_limits<double>::infinity(), 0.1},
        {4, 1, 1e-4, 1.0, 0.2, 0.5, 2.5, 0.1}};
    std::vector<hnclip::EpochEvalRow> evals{{0, 0, "test", "t2i", 1, 5.0},
                                            {0, 0, "test", "i2t", 1, 6.0},
                                            {1, 5, "test", "t2i", 1, 15.0},
                                            {1, 5, "test", "i2t", 1, 16.0}};
    panel.setRunHistory(9, QStringLiteral("resumed"), steps, probes, evals);
    QCOMPARE(points(panel.graph("loss", 9, "loss_boosted")).size(), size_t(5));
    QCOMPARE(points(panel.graph("grad_norm", 9, "grad_norm_standard", Role::ZeroMarks)).size(),
             size_t(1));
    QCOMPARE(points(panel.graph("recall", 9, "t2i_R@1")).size(), size_t(2));
    QCOMPARE(points(panel.graph("recall", 9, "i2t_R@1")).size(), size_t(2));
    QCOMPARE(panel.graph("loss", 9, "loss_boosted", Role::Smoothed)->name(),
             QStringLiteral("resumed · boosted"));

    panel.appendStep(9, step(6, 0.5, 0.25));
    values.push_back(0.5);
    const auto raw = points(panel.graph("loss", 9, "loss_boosted"));
    QCOMPARE(raw.size(), size_t(6));
    QCOMPARE(raw.back(), std::make_pair(6.0, 0.5));
    const auto smoothed = points(panel.graph("loss", 9, "loss_boosted", Role::Smoothed));
    const auto expected = reference_ema(values, 0.5);
    for (size_t i = 0; i < expected.size(); ++i)
      QVERIFY(std::abs(smoothed[i].second - expected[i]) < 1e-12);
    // The fractions of epoch 1 continue from the stored history: the solved fraction from every
    // step (plain losses 3, 2, 1, 0, -1 stored, 0.25 live: 2 of 6), the zero-gradient fraction
    // from the probes (1 zero of 3).
    panel.appendProbe(9, probe(6, 1, 1e-4, 0.5, 1.0));
    const auto solved = points(panel.graph("probe_fractions", 9, "solved_fraction"));
    QCOMPARE(solved.size(), size_t(1));
    QCOMPARE(solved[0].first, 6.0);
    QCOMPARE(solved[0].second, 2.0 / 6.0);
    QCOMPARE(points(panel.graph("probe_fractions", 9, "zero_grad_fraction"))[0].second, 1.0 / 3.0);

    // A resumed run repeats steps after its checkpoint: the curve restarts at the repeated step.
    panel.appendStep(9, step(4, 7.0, 6.0));
    const auto redone = points(panel.graph("loss", 9, "loss_boosted"));
    QVERIFY((redone == std::vector<std::pair<double, double>>{{1, 4}, {2, 3}, {3, 2}, {4, 7}}));
    const auto resmoothed = points(panel.graph("loss", 9, "loss_boosted", Role::Smoothed));
    const auto expected2 = reference_ema({4, 3, 2, 7}, 0.5);
    QCOMPARE(resmoothed.size(), size_t(4));
    for (size_t i = 0; i < 4; ++i) QVERIFY(std::abs(resmoothed[i].second - expected2[i]) < 1e-12);

    // setRunHistory replaces what the panel had for that run.
    panel.setRunHistory(9, QStringLiteral("again"), {steps[0]}, {}, {});
    QCOMPARE(points(panel.graph("loss", 9, "loss_boosted")).size(), size_t(1));
    QVERIFY(panel.graph("recall", 9, "t2i_R@1") == nullptr);
  }

  void csv_export_of_two_runs() {
    TrainingPlotsPanel panel;
    panel.setSmoothing(0);
    panel.appendStep(1, step(1, 2.0, 1.0));
    panel.appendStep(1, step(2, 1.5, 0.75));
    panel.appendStep(2, step(1, 3.0, 2.5));
    QTemporaryDir dir;
    const QString path = dir.filePath("loss.csv");
    QString error;
    QVERIFY2(panel.exportCsv("loss", path, &error), qPrintable(error));
    const QStringList lines = read_lines(path);
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines[0],
             QStringLiteral(
                 "step,wall_time_s,run1:loss_boosted,run1:loss_boosted_smoothed,"
                 "run1:loss_standard,run1:loss_standard_smoothed,run2:loss_boosted,"
                 "run2:loss_boosted_smoothed,run2:loss_standard,run2:loss_standard_smoothed"));
    QCOMPARE(lines[1], QStringLiteral("1,0.5,2,2,1,1,,,,"));
    QCOMPARE(lines[2], QStringLiteral("2,1,1.5,1.5,0.75,0.75,,,,"));
    QCOMPARE(lines[3], QStringLiteral("1,0.5,,,,,3,3,2.5,2.5"));
    // By index too, and the zero flag column of the gradient-norm chart.
    panel.appendProbe(1, probe(2, 1, 0.1, 0.0, 0.5));
    QVERIFY(
        panel.exportCsv(QString::number(panel.chartNames().indexOf("grad_norm")), path, &error));
    const QStringList g = read_lines(path);
    QCOMPARE(g[0], QStringLiteral(
                       "step,wall_time_s,run1:grad_norm_boosted,run1:grad_norm_boosted_smoothed,"
                       "run1:grad_norm_standard,run1:grad_norm_standard_smoothed,"
                       "run1:grad_norm_standard_zero"));
    QCOMPARE(g[1], QStringLiteral("2,1,0.5,0.5,1e-10,1e-10,1"));
    QVERIFY(!panel.exportCsv("no_such_chart", path, &error));
    QVERIFY(error.contains("no_such_chart"));
    QVERIFY(!panel.exportCsv("loss", dir.filePath("missing/dir/x.csv"), &error));
    QVERIFY(error.contains("missing/dir/x.csv"));
  }

  void image_exports_have_the_right_magic() {
    TrainingPlotsPanel panel;
    for (int i = 1; i <= 30; ++i) panel.appendStep(1, step(i, 1.0 / i, 0.5 / i));
    panel.appendEval(1, eval(1, 30, 20));
    QTemporaryDir dir;
    QString error;
    for (const QString& chart : {QStringLiteral("loss"), QStringLiteral("recall")}) {
      const QString png = dir.filePath(chart + ".png"), svg = dir.filePath(chart + ".svg"),
                    pdf = dir.filePath(chart + ".pdf");
      QVERIFY2(panel.exportChart(chart, png, &error), qPrintable(error));
      QVERIFY2(panel.exportChart(chart, svg, &error), qPrintable(error));
      QVERIFY2(panel.exportChart(chart, pdf, &error), qPrintable(error));
      QCOMPARE(head(png, 8), QByteArray("\x89PNG\r\n\x1a\n"));
      QCOMPARE(head(pdf, 5), QByteArray("%PDF-"));
      const QByteArray svgHead = head(svg, 4096);
      QVERIFY(svgHead.startsWith("<?xml"));
      QVERIFY(svgHead.contains("<svg"));
      QVERIFY(QFileInfo(svg).size() > 1000);
      QImage image(png);
      QCOMPARE(image.size(), QSize(800, 500));
    }
    QVERIFY(!panel.exportChart("loss", dir.filePath("x.bmpx"), &error));
    QVERIFY(error.contains("x.bmpx"));
  }

  void remove_run_removes_its_graphs_everywhere() {
    TrainingPlotsPanel panel;
    for (int64_t run : {1, 2}) {
      auto with_terms = step(1, 1, 1);  // so that the loss-terms chart has graphs too
      with_terms.loss_terms = {{"global", 1.0, 0.5}, {"short", 1.0, 0.5}};
      panel.appendStep(run, with_terms);
      panel.appendProbe(run, probe(1, 1, 0.1, 0.0, 1));
      auto with_mass = probe(2, 1, 0.1, 0.5, 1);
      with_mass.mass_share_plain = with_mass.mass_share_boosted = {0.2, 0.2, 0.2, 0.2, 0.2};
      panel.appendProbe(run, with_mass);
      panel.appendEval(run, eval(1, 1, 10));
    }
    QHash<QString, int> before;
    for (const QString& chart : panel.chartNames()) {
      before[chart] = panel.plot(chart)->plottableCount();
      QVERIFY(before[chart] > 0);
    }
    panel.removeRun(1);
    QCOMPARE(panel.runs(), QList<int64_t>{2});
    for (const QString& chart :
         {QStringLiteral("gradient_mass_plain"), QStringLiteral("gradient_mass_boosted")}) {
      QCOMPARE(panel.plot(chart)->plottableCount(), before[chart] / 2);
      QVERIFY(!panel.massBars(chart, 1, 0));
      QVERIFY(panel.massBars(chart, 2, 0));
    }
    for (const QString& chart : panel.chartNames()) {
      if (chart.startsWith(QLatin1String("gradient_mass"))) continue;  // bars, checked above
      QCOMPARE(panel.plot(chart)->graphCount(), before[chart] / 2);
      for (const QString& series : panel.seriesNames(chart)) {
        for (Role role : {Role::Raw, Role::Smoothed, Role::ZeroMarks})
          QVERIFY(!panel.graph(chart, 1, series, role));
      }
      for (int i = 0; i < panel.plot(chart)->graphCount(); ++i) {
        QCOMPARE(panel.plot(chart)->graph(i)->pen().color().rgb(), hnclip::gui::run_color(2).rgb());
      }
    }
    panel.clearRuns();
    QVERIFY(panel.runs().isEmpty());
    for (const QString& chart : panel.chartNames())
      QCOMPARE(panel.plot(chart)->plottableCount(), 0);
  }

  void options_round_trip() {
    TrainingPlotsPanel a;
    a.setSmoothing(0.37);
    a.setLogScale("loss", true);
    a.setLogScale("grad_norm", false);
    const QVariantMap options = a.options();
    QCOMPARE(options.value("smoothing").toDouble(), 0.37);
    QCOMPARE(options.value("log/loss").toBool(), true);
    TrainingPlotsPanel b;
    QVERIFY(b.options() != options);
    b.setOptions(options);
    QCOMPARE(b.options(), options);
    QCOMPARE(b.plot("loss")->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(b.plot("grad_norm")->yAxis->scaleType(), QCPAxis::stLinear);
  }

  void replots_are_coalesced_on_a_timer() {
    TrainingPlotsPanel panel;
    panel.resize(900, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    int replots = 0;
    connect(panel.plot("loss"), &QCustomPlot::afterReplot, this, [&] { ++replots; });
    QCoreApplication::processEvents();
    replots = 0;
    for (int i = 1; i <= 500; ++i) panel.appendStep(1, step(i, 1.0, 1.0));
    QCOMPARE(replots, 0);  // no replot per event: only the timer replots
    // Following the data: on the timer's tick the x range covers every step, then it is drawn.
    QTRY_COMPARE(panel.plot("loss")->xAxis->range().upper, 500.0);
    QTRY_VERIFY(replots >= 1);
  }

  void user_view_is_kept_until_double_click() {
    TrainingPlotsPanel panel;
    for (int i = 1; i <= 10; ++i) panel.appendStep(1, step(i, i, i));
    panel.replotNow();
    QCOMPARE(panel.plot("loss")->xAxis->range().upper, 10.0);
    panel.plot("loss")->xAxis->setRange(2, 3);  // what a drag or wheel does
    panel.appendStep(1, step(11, 1, 1));
    panel.replotNow();
    QCOMPARE(panel.plot("loss")->xAxis->range().lower, 2.0);
    QCOMPARE(panel.plot("loss")->xAxis->range().upper, 3.0);
    panel.resetView("loss");
    QCOMPARE(panel.plot("loss")->xAxis->range().upper, 11.0);
  }

  void follows_the_palette() {
    TrainingPlotsPanel panel;
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(30, 30, 30));
    dark.setColor(QPalette::Base, QColor(20, 20, 20));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    dark.setColor(QPalette::Text, QColor(220, 220, 220));
    panel.setPalette(dark);
    QCustomPlot* p = panel.plot("recall");
    QCOMPARE(p->xAxis->tickLabelColor(), QColor(230, 230, 230));
    QCOMPARE(p->yAxis->labelColor(), QColor(230, 230, 230));
    QCOMPARE(p->axisRect()->backgroundBrush().color(), QColor(20, 20, 20));
    QCOMPARE(p->legend->textColor(), QColor(220, 220, 220));
  }

  void wheel_over_the_chart_page_scrolls_it_rather_than_zooming() {
    TrainingPlotsPanel panel;
    panel.resize(1000, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    for (int i = 1; i <= 10; ++i) panel.appendStep(1, step(i, 1.0 + i, 1.0));
    panel.replotNow();
    auto* scroll = panel.findChild<QScrollArea*>();
    QVERIFY(scroll);
    QCOMPARE(scroll->verticalScrollBar()->value(), 0);
    QCustomPlot* p = panel.plot("loss");
    const QCPRange before = p->xAxis->range();
    const QPointF at(p->axisRect()->center());
    QWheelEvent wheel(at, p->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(p, &wheel);
    QVERIFY(scroll->verticalScrollBar()->value() > 0);
    QCOMPARE(p->xAxis->range().lower, before.lower);
    QCOMPARE(p->xAxis->range().upper, before.upper);
    QVERIFY(panel.chart("loss")->following());
  }

  void charts_stand_in_two_columns_that_reflow_to_one() {
    TrainingPlotsPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTRY_COMPARE(panel.columnCount(), 2);
    QCOMPARE(panel.columnOf("loss"), 0);
    QCOMPARE(panel.columnOf("probe_fractions"), 1);
    QCOMPARE(panel.columnOf("gradient_mass_plain"), 0);
    QCOMPARE(panel.columnOf("gradient_mass_boosted"), 1);
    auto* scroll = panel.findChild<QScrollArea*>();
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    // The Train tab's share of the default 1400x900 window: still two columns, and no chart's
    // header (long titles, three buttons) may widen its column past the page.
    panel.resize(660, 700);
    QTRY_COMPARE(panel.columnCount(), 2);
    QTest::qWait(0);
    QVERIFY(scroll->widget()->minimumSizeHint().width() <= scroll->viewport()->width());
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    panel.resize(560, 700);
    QTRY_COMPARE(panel.columnCount(), 1);
    QCOMPARE(panel.columnOf("probe_fractions"), 0);
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
  }

  // The interaction hint (wheel, zoom, pan, follow) takes the panel's width, not what the
  // smoothing slider leaves: at the Train tab's share of a 1024-pixel window (about 360 pixels)
  // it stood in a column six lines tall.
  void interaction_hint_stays_short_on_a_narrow_page() {
    TrainingPlotsPanel panel;
    panel.resize(360, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* hint = panel.findChild<QLabel*>(QStringLiteral("chartHint"));
    QVERIFY(hint);
    QTRY_VERIFY(hint->width() > panel.width() * 3 / 4);
    const int lines = hint->height() / hint->fontMetrics().lineSpacing();
    QVERIFY2(lines <= 3, qPrintable(QStringLiteral("%1 lines").arg(lines)));
  }

  // The loss-terms chart is laid out only while some run records terms: beside the loss chart,
  // pushing the others one place on; it goes again with the last such run.
  void loss_terms_chart_comes_and_goes_with_runs_that_record_terms() {
    TrainingPlotsPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTRY_COMPARE(panel.columnCount(), 2);
    hnclip::StepEvent plain;
    plain.step = 1;
    plain.epoch = 1;
    plain.loss = 2.0;
    plain.loss_standard = 2.0;
    panel.appendStep(1, plain);
    QVERIFY(!panel.chart("loss_terms")->isVisible());
    QCOMPARE(panel.columnOf("probe_fractions"), 1);
    hnclip::StepEvent framework = plain;
    framework.loss = 3.0;
    framework.loss_terms = {{"global", 1.0, 1.0}, {"augmented", 1.0, 2.0}};
    panel.appendStep(2, framework);
    QTRY_VERIFY(panel.chart("loss_terms")->isVisible());
    QCOMPARE(panel.columnOf("loss"), 0);
    QCOMPARE(panel.columnOf("loss_terms"), 1);
    QCOMPARE(panel.columnOf("probe_fractions"), 0);
    panel.replotNow();
    QVERIFY(panel.graph("loss_terms", 2, "augmented"));
    QVERIFY(!panel.graph("loss_terms", 2, "short"));
    QVERIFY(!panel.graph("loss_terms", 1, "global"));
    panel.removeRun(2);
    QTRY_VERIFY(!panel.chart("loss_terms")->isVisible());
    QCOMPARE(panel.columnOf("probe_fractions"), 1);
  }

  void gradient_mass_charts_get_stacked_data_from_probes() {
    TrainingPlotsPanel panel;
    hnclip::ProbeEvent p = probe(5, 1, 0.5, 1.0, 2.0);
    p.mass_share_plain = {0.75, 0.25, 0.0, 0.0, 0.0};
    p.mass_share_boosted = {0.25, 0.25, 0.0, 0.0, 0.5};
    panel.appendProbe(3, p);
    for (const auto& [chart, shares] :
         {std::make_pair(QStringLiteral("gradient_mass_plain"), p.mass_share_plain),
          std::make_pair(QStringLiteral("gradient_mass_boosted"), p.mass_share_boosted)}) {
      double top = 0;
      for (int b = 0; b < 5; ++b) {
        QCPBars* bars = panel.massBars(chart, 3, b);
        QVERIFY(bars);
        QCOMPARE(bars->barBelow(), b == 0 ? nullptr : panel.massBars(chart, 3, b - 1));
        QCOMPARE(bars->dataCount(), 1);
        QCOMPARE(bars->data()->constBegin()->key, 1.0);  // one run: centred on its epoch
        QCOMPARE(bars->data()->constBegin()->value, shares[static_cast<size_t>(b)]);
        top += bars->data()->constBegin()->value;
      }
      QCOMPARE(top, 1.0);
    }
    QVERIFY(panel.chartTitle("gradient_mass_plain")
                .startsWith(QStringLiteral("Where the gradient goes")));
    // The y axis of a share chart is [0, 1] (and a little room), x covers the epoch.
    panel.replotNow();
    QCOMPARE(panel.plot("gradient_mass_boosted")->yAxis->range().lower, 0.0);
    QVERIFY(panel.plot("gradient_mass_boosted")->xAxis->range().contains(1.0));
  }

  void hover_shows_run_step_value_and_wall_time() {
    TrainingPlotsPanel panel;
    panel.resize(900, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRunLabel(7, QStringLiteral("baseline"));
    for (int i = 1; i <= 5; ++i) panel.appendStep(7, step(i, 1.0 + i, 1.0));
    panel.replotNow();
    QCustomPlot* p = panel.plot("lr");
    const QPoint at(static_cast<int>(p->xAxis->coordToPixel(3)),
                    static_cast<int>(p->yAxis->coordToPixel(1e-4)));
    QMouseEvent move(QEvent::MouseMove, QPointF(at), p->mapToGlobal(QPointF(at)), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(p, &move);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains("baseline"), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().contains("run 7"));
    QVERIFY(QToolTip::text().contains("step 3"));
    QVERIFY(QToolTip::text().contains("0.0001"));
    QVERIFY(QToolTip::text().contains("(1.5 s)"));
  }
};

QTEST_MAIN(TestTrainingPlotsPanel)
#include "test_training_plots_panel.moc"
