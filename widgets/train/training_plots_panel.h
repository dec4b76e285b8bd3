#pragma once
// TrainingPlotsPanel: the Train tab's live plots (loss on a log axis with the "solved" line,
// per-epoch solved (every step) / zero-gradient (probes) fractions, where the gradient goes under
// plain and boosted logits, gradient norms, ratio and cosine, learning rate, recall), one
// QCustomPlot per chart, every run in its run_color, in two columns that reflow to one when the
// page is narrow. It is the view of a TrainingCurves (the data of every run it
// was given: the live run through append*(), stored runs through setRunHistory()); each chart is a
// TrainingChart, which mirrors the model's series into graphs. The panel lays the charts out and
// owns the smoothing slider, the replot throttling, the run labels and the CSV export.
//
// Threading: GUI thread only. append*() feeds the model, copies the new points into the graphs
// (QCPGraph::addData) and marks the chart dirty; a QTimer replots dirty charts at most kReplotHz
// times a second, so a burst of events costs one replot. Axis bounds and the smoothed curves are
// kept incrementally by the model (O(1) per point).

#include <cstdint>
#include <map>
#include <vector>

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

#include "store/run_store.h"
#include "train/train_events.h"
#include "widgets/train/training_chart.h"
#include "widgets/train/training_curves.h"

class QCPBars;
class QCPGraph;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QScrollArea;
class QSlider;
class QTimer;

namespace hnclip::gui {

class TrainingPlotsPanel : public QWidget {
  Q_OBJECT

 public:
  // Which of a series' graphs: the faint raw curve, its EMA on top (smoothed charts only), or the
  // markers of values that were 0 and are drawn at kZeroClamp (gradient norms only).
  using GraphRole = TrainingChart::GraphRole;

  static constexpr double kZeroClamp =
      TrainingCurves::kZeroClamp;       // a zero gradient norm on a log axis
  static constexpr int kReplotHz = 15;  // coalesced replots per second at most

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
  void setRunHistory(int64_t run_id, const QString& label,
                     const std::vector<hnclip::StepMetricRow>& steps,
                     const std::vector<hnclip::ProbeRow>& probes,
                     const std::vector<hnclip::EpochEvalRow>& evals);
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
  // The stacked bars of one Ḡ bucket on a gradient-mass chart ("gradient_mass_plain" /
  // "gradient_mass_boosted"), nullptr when absent; a chart itself; the column it is laid out in.
  QCPBars* massBars(const QString& chart, int64_t run_id, int bucket) const;
  TrainingChart* chart(const QString& chart) const;
  int columnOf(const QString& chart) const;
  int columnCount() const { return columns_; }
  // Resets a chart's view to follow the data again (what a double-click does).
  void resetView(const QString& chart);

 protected:
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  TrainingChart* findChart(const QString& chart) const;  // by name or index; nullptr when unknown
  void layoutCharts(int columns);
  QString labelOf(int64_t run_id) const;
  void mirrorChanges();
  void applyPalette();
  void markDirty(TrainingChart& chart);
  void onReplotTick();
  void exportChartInteractive(TrainingChart& chart, const QString& format);

  TrainingCurves curves_;
  std::vector<TrainingChart*> charts_;  // children, in TrainingCurves::charts() order
  std::map<int64_t, QString> labels_;   // runs without one are "run <id>"
  QSlider* smoothingSlider_ = nullptr;
  QLabel* smoothingLabel_ = nullptr;
  QTimer* replotTimer_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QGridLayout* grid_ = nullptr;
  int columns_ = 0;
  bool lossTermsShown_ = false;  // laid out: some run has recorded loss terms
};

}  // namespace hnclip::gui
