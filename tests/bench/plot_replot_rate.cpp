// Replot rate of the Train tab's plots (TrainingPlotsPanel) with many points per curve: fills every
// chart with --points points per curve for --runs runs (worst case: one probe and one evaluation
// per step, so even the per-epoch charts carry --points points), then times --replots immediate
// replots of every chart and prints replots per second. Run it offscreen or under a real X server:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/plot_replot_rate
//   xvfb-run -a -s "-screen 0 1920x1200x24" build/dev/tests/plot_replot_rate
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <vector>

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QGuiApplication>

#include "qcustomplot.h"
#include "widgets/train/training_plots_panel.h"

namespace {
double threadCpuSeconds() {  // this thread's CPU time: the machine may be shared with other work
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

constexpr int kWidth = 1400;  // a maximised window's share for the plots
constexpr int kHeight = 1100;

hnclip::StepEvent makeStep(int64_t step, double noise) {
  hnclip::StepEvent e;
  e.step = step;
  e.epoch = static_cast<int>(step);
  e.wall_time_s = 0.05 * static_cast<double>(step);
  e.loss = 4.0 * std::exp(-static_cast<double>(step) / 20000.0) + 0.2 * noise;
  e.loss_standard = e.loss * 0.8;
  e.lr = 1e-4 * std::cos(static_cast<double>(step) / 70000.0);
  return e;
}
}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QCommandLineParser cli;
  cli.addHelpOption();
  cli.addOption({"points", "Points per curve.", "n", "100000"});
  cli.addOption({"runs", "Runs overlaid.", "n", "2"});
  cli.addOption({"replots", "Timed replots of every chart.", "n", "30"});
  cli.process(app);
  const int points = cli.value("points").toInt();
  const int runs = cli.value("runs").toInt();
  const int replots = cli.value("replots").toInt();

  hnclip::gui::TrainingPlotsPanel panel;
  panel.resize(kWidth, kHeight);
  panel.show();
  QCoreApplication::processEvents();

  QElapsedTimer fill;
  fill.start();
  uint64_t state = 12345;  // deterministic noise (xorshift), no <random> distributions
  auto noise = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<double>(state % 10000) / 10000.0 - 0.5;
  };
  for (int run = 1; run <= runs; ++run) {
    for (int i = 1; i <= points; ++i) {
      panel.appendStep(run, makeStep(i, noise()));
      hnclip::ProbeEvent p;
      p.step = i;
      p.epoch = i;
      p.loss_standard = std::abs(noise()) * 1e-2;
      p.loss_boosted = p.loss_standard * 3;
      p.grad_norm_standard = i % 97 == 0 ? 0.0 : std::abs(noise()) + 1e-3;
      p.grad_norm_boosted = std::abs(noise()) + 0.5;
      p.grad_ratio =
          p.grad_norm_standard == 0 ? INFINITY : p.grad_norm_boosted / p.grad_norm_standard;
      p.grad_cosine = noise();
      panel.appendProbe(run, p);
      hnclip::EvalEvent e;
      e.epoch = i;
      e.step = i;
      e.split = "test";
      e.t2i.direction = "t2i";
      e.i2t.direction = "i2t";
      const double base = 40 + 10 * noise();
      e.t2i.recall = {{1, base}, {5, base + 20}, {10, base + 30}};
      e.i2t.recall = {{1, base + 2}, {5, base + 22}, {10, base + 32}};
      panel.appendEval(run, e);
    }
  }
  const double fill_s = fill.nsecsElapsed() * 1e-9;
  QCoreApplication::processEvents();

  int graphs = 0;
  int64_t total = 0;
  const QStringList charts = panel.chartNames();
  for (const QString& name : charts) {
    QCustomPlot* p = panel.plot(name);
    graphs += p->graphCount();
    for (int g = 0; g < p->graphCount(); ++g) total += p->graph(g)->data()->size();
  }
  std::printf(
      "platform %s, panel %dx%d, %d runs x %d points per curve: %d graphs, %lld points in all\n",
      qPrintable(QGuiApplication::platformName()), kWidth, kHeight, runs, points, graphs,
      static_cast<long long>(total));
  std::printf("fill: %.2f s (%.0f events/s, each step + probe + evaluation)\n", fill_s,
              3.0 * runs * points / fill_s);

  panel.replotNow();  // warm-up: layouts, tick label caches
  std::vector<double> per_chart_ms(static_cast<size_t>(charts.size()), 0.0);
  QElapsedTimer all;
  all.start();
  const double cpu0 = threadCpuSeconds();
  for (int r = 0; r < replots; ++r) {
    for (int c = 0; c < charts.size(); ++c) {
      QElapsedTimer one;
      one.start();
      panel.plot(charts[c])->replot(QCustomPlot::rpImmediateRefresh);
      per_chart_ms[static_cast<size_t>(c)] += one.nsecsElapsed() * 1e-6;
    }
  }
  const double all_s = all.nsecsElapsed() * 1e-9;
  const double cpu_s = threadCpuSeconds() - cpu0;
  double worst = 0;
  for (int c = 0; c < charts.size(); ++c) {
    const double ms = per_chart_ms[static_cast<size_t>(c)] / replots;
    worst = std::max(worst, ms);
    std::printf("  %-16s %7.2f ms/replot  (%6.1f replots/s)\n", qPrintable(charts[c]), ms,
                1000.0 / ms);
  }
  std::printf(
      "whole panel (all %lld charts): %.1f replots/s (%.1f ms each, wall clock); slowest chart "
      "%.1f replots/s\n",
      static_cast<long long>(charts.size()), replots / all_s, 1000.0 * all_s / replots,
      1000.0 / worst);
  std::printf(
      "whole panel by this thread's CPU time: %.1f replots/s (%.1f ms each); CPU/wall %.2f\n",
      replots / cpu_s, 1000.0 * cpu_s / replots, cpu_s / all_s);
  return 0;
}
