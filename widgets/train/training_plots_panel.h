#pragma once
// TrainingPlotsPanel: the Train tab's live plots (loss, gradient norms, gradient ratio, gradient
// cosine, per-epoch solved / zero-gradient fractions, learning rate, recall), one QCustomPlot per
// chart, every run in its run_color. It owns the plotted data of every run it was given: the live
// run through append*(), stored runs through setRunHistory().
//
// Threading: GUI thread only. append*() only adds points (QCPGraph::addData) and marks the chart
// dirty; a QTimer replots dirty charts at most kReplotHz times a second, so a burst of events
// costs one replot. Axis bounds and the smoothed curves are kept incrementally (O(1) per point).

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

#include "store/run_store.h"
#include "train/train_events.h"

class QCPGraph;
class QCustomPlot;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace hnclip::gui {

class TrainingPlotsPanel : public QWidget {
  Q_OBJECT

 public:
  // Which of a series' graphs: the faint raw curve, its EMA on top (smoothed charts only), or the
  // markers of values that were 0 and are drawn at kZeroClamp (gradient norms only).
  enum class GraphRole { Raw, Smoothed, ZeroMarks };

  static constexpr double kZeroClamp = 1e-10;  // where a zero gradient norm is drawn on a log axis
  static constexpr int kReplotHz = 15;         // coalesced replots per second at most

  explicit TrainingPlotsPanel(QWidget* parent = nullptr);
  ~TrainingPlotsPanel() override;

  // Live feed (GUI thread; called for every event of the running run). A step at or before the
  // run's last plotted step (a resumed run repeating steps after its checkpoint) first drops the
  // points from that step on, so the curve continues instead of doubling back.
  void appendStep(int64_t run_id, const hnclip::StepEvent& e);
  void appendProbe(int64_t run_id, const hnclip::ProbeEvent& e);
  void appendEval(int64_t run_id, const hnclip::EvalEvent& e);

  // A stored run's history (replaces whatever the panel had for that run): for overlaying
  // finished runs and for a resumed run's earlier curves, which append*() then continues.
  void setRunHistory(int64_t run_id, const QString& label, const std::vector<hnclip::StepMetricRow>& steps,
                     const std::vector<hnclip::ProbeRow>& probes, const std::vector<hnclip::EpochEvalRow>& evals);
  void setRunLabel(int64_t run_id, const QString& label);  // default label: "run <id>"
  void removeRun(int64_t run_id);
  void clearRuns();
  QList<int64_t> runs() const;  // ascending ids

  // Exports. `chart` is a name from chartNames() or its index ("0", "1", ...). exportChart picks
  // the format from the extension (.png, .svg, .pdf). exportCsv writes
  // "step,wall_time_s,<every series of that chart>" with series named "run<id>:<series>"
  // (raw values, "_smoothed" EMA columns on smoothed charts, "_zero" = 1 where a zero gradient norm
  // was clamped); one row per (run, step), runs in ascending id, so wall_time_s is that run's.
  bool exportChart(const QString& chart, const QString& path, QString* error = nullptr);
  bool exportCsv(const QString& chart, const QString& path, QString* error = nullptr);
  QStringList chartNames() const;
  QString chartTitle(const QString& chart) const;
  QStringList seriesNames(const QString& chart) const;  // e.g. "loss_boosted", "t2i_R@1"

  // Plot options for QSettings persistence by the main window: "smoothing" (0–0.99) and
  // "log/<chart>" (bool) for every chart.
  QVariantMap options() const;
  void setOptions(const QVariantMap& options);
  double smoothing() const;
  void setSmoothing(double weight);  // clamped to [0, 0.99]; recomputes every smoothed curve
  bool logScale(const QString& chart) const;
  void setLogScale(const QString& chart, bool log);

  // For tests and the benchmark: the plot of a chart, a graph of one run's series (nullptr when
  // absent), and an immediate replot of every chart (what the timer does when data changed).
  QCustomPlot* plot(const QString& chart) const;
  QCPGraph* graph(const QString& chart, int64_t run_id, const QString& series,
                  GraphRole role = GraphRole::Raw) const;
  void replotNow();
  // Resets a chart's view to follow the data again (what a double-click does).
  void resetView(const QString& chart);

 protected:
  void changeEvent(QEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  struct SeriesSpec;
  struct ChartSpec;
  struct Ema;
  struct SeriesGraphs;
  struct Bounds;
  struct Chart;
  struct RunData;
  static const std::vector<ChartSpec>& specs();

  void buildCharts();
  QWidget* buildChartFrame(Chart& chart);
  int chartIndex(const QString& chart) const;  // -1 when unknown
  Chart* findChart(const QString& chart) const;
  RunData& ensureRun(int64_t run_id);
  SeriesGraphs& ensureSeries(Chart& chart, int64_t run_id, int series);
  void addPoint(Chart& chart, int64_t run_id, int series, double step, double value);
  void feedStep(int64_t run_id, const hnclip::StepMetricRow& row);
  void feedProbe(int64_t run_id, const hnclip::ProbeRow& row);
  void beginEval(int64_t run_id, int64_t step, const std::string& split);
  void feedRecall(int64_t run_id, int64_t step, const std::string& split, const std::string& direction, int k,
                  double recall);
  void truncate(int64_t run_id, int source, double step);
  void updateFractionPoint(int64_t run_id, int epoch, int64_t step);
  void rebuildFractions(int64_t run_id);
  void recomputeSmoothed(SeriesGraphs& s);
  void recomputeBounds(Chart& chart);
  void applyAutoRange(Chart& chart);
  void applyScale(Chart& chart);
  void applyPalette();
  void applyPalette(Chart& chart);
  void styleSeries(Chart& chart, int64_t run_id, int series, SeriesGraphs& s);
  void renameRunGraphs(int64_t run_id);
  void markDirty(Chart& chart);
  void onReplotTick();
  void showTooltip(Chart& chart, const QPointF& pos);
  double wallTimeAt(int64_t run_id, double step) const;
  void exportChartInteractive(Chart& chart, const QString& format);

  std::vector<std::unique_ptr<Chart>> charts_;
  std::map<int64_t, std::unique_ptr<RunData>> runs_;  // RunData is defined in the .cpp
  double smoothing_ = 0.6;
  QSlider* smoothingSlider_ = nullptr;
  QLabel* smoothingLabel_ = nullptr;
  QTimer* replotTimer_ = nullptr;
};

}  // namespace hnclip::gui
