#pragma once
// TrainingChart: one chart of the Train tab — its frame (title, log and follow toggles, export
// menu, the QCustomPlot), its log / linear scale, the auto-range that follows the model's bounds
// until the user zooms or pans (restored by the Follow button, a double-click or the F key), its
// palette, tooltip, legend (below the axis rect, one row per run, so it covers no curve) and
// empty-chart message, and the plottables that mirror one chart of a TrainingCurves: per run and
// series the raw curve, its EMA and the zero-gradient markers, or for the per-epoch gradient-mass
// charts a GradientMassBars. The mouse wheel scrolls the page the chart sits in; it zooms only
// with Ctrl held or when the chart has focus (a click gives it).
//
// It only reads the model; TrainingPlotsPanel owns the model, lays the charts out, decides when
// to mirror and replot, and answers logToggled() / exportRequested().
// Threading: GUI thread only.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include <QString>
#include <QWidget>

#include "widgets/train/training_curves.h"

class QCPBars;
class QCPGraph;
class QCPRange;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QPointF;
class QToolButton;

namespace hnclip::gui {

class GradientMassBars;
struct TrainingChartLook;

class TrainingChart : public QWidget {
  Q_OBJECT

 public:
  // Which of a series' graphs: the faint raw curve, its EMA on top (smoothed charts only), or the
  // markers of values that were 0 and are drawn at kZeroClamp (gradient norms only).
  enum class GraphRole { Raw, Smoothed, ZeroMarks };
  using LabelFn = std::function<QString(int64_t run_id)>;
  static constexpr int kMinWidth = 300;  // px of the plot; the panel's two columns need two

  // `index` is a TrainingCurves::ChartIndex; `label` names a run in legends and tooltips; `font`
  // is the base of the plot's fonts.
  TrainingChart(const TrainingCurves& curves, int index, LabelFn label, const QFont& font,
                QWidget* parent = nullptr);
  ~TrainingChart() override;

  int index() const { return index_; }
  QString name() const;   // the model's chart name ("loss", ...)
  QString title() const;  // translated
  QCustomPlot* plot() const { return plot_; }
  QCPGraph* graph(int64_t run_id, const QString& series, GraphRole role) const;
  // The bars of one Ḡ bucket of a run (gradient-mass charts only; nullptr elsewhere or absent).
  QCPBars* bars(int64_t run_id, int bucket) const;
  bool following() const { return !userView_; }  // the view follows the data
  QToolButton* followButton() const { return followButton_; }
  QToolButton* logButton() const { return logButton_; }
  QString emptyMessage() const;  // "" while the chart has data

  bool logScale() const { return log_; }
  void setLogScale(bool log);  // also forgets the user's view: it means nothing on the other scale
  void resetView();            // follow the data again and replot (Follow, double-click, F)

  // Brings the graphs up to the model; false when the model's chart did not change since.
  bool mirror();
  // Re-applies names and styles of a run's graphs (its label changed); false when it has none.
  bool restyleRun(int64_t run_id);
  void applyPalette(const QPalette& palette);
  // Follows the data (unless the user moved the view) and replots.
  void replot(bool immediate);
  bool exportTo(const QString& path, QString* error);  // PNG, SVG or PDF by extension

  // Set by whoever schedules replots: the chart changed since its last replot.
  bool dirty() const { return dirty_; }
  void setDirty(bool dirty) { dirty_ = dirty; }

 signals:
  void logToggled(bool log);             // the user clicked the log button
  void exportRequested(QString format);  // "png", "svg", "pdf" or "csv" from the export menu

 private:
  struct SeriesGraphs;

  void buildFrame(const QFont& font);
  void mirrorSeries(int64_t run_id, int series, const CurveSeries& model, SeriesGraphs& view);
  void styleSeries(int64_t run_id, int series, SeriesGraphs& s);
  void rebuildLegend();
  void setUserView(bool user);
  void updateEmptyMessage();
  void applyAutoRange();
  void applyScale();
  // The y axis's tick labels for its range: powers of ten on a log axis over decades, else plain
  // numbers precise enough that neighbouring ticks never read alike.
  void updateTickFormat(const QCPRange& range);
  void showTooltip(const QPointF& pos);

  const TrainingCurves& curves_;
  const int index_;
  const TrainingChartLook* spec_ = nullptr;
  const CurveChartSpec* data_ = nullptr;
  LabelFn label_;
  QCustomPlot* plot_ = nullptr;
  QToolButton* logButton_ = nullptr;
  QToolButton* followButton_ = nullptr;
  QCPItemText* emptyText_ = nullptr;
  QCPItemStraightLine* thresholdLine_ = nullptr;  // the loss chart's "solved" line
  QCPItemText* thresholdText_ = nullptr;
  std::unique_ptr<GradientMassBars> bars_;             // gradient-mass charts only
  std::map<int64_t, std::vector<SeriesGraphs>> runs_;  // per run: one entry per spec series
  uint64_t seenChanges_ = 0;                           // the model's changeCount() last mirrored
  bool dirty_ = false;
  bool userView_ = false;  // the user zoomed or panned: keep their view
  bool log_ = false;
  bool settingRange_ = false;  // our own range changes are not the user's
};

}  // namespace hnclip::gui
