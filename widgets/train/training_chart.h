#pragma once
// TrainingChart: one chart of the Train tab — its frame (title, log toggle, export menu, the
// QCustomPlot), its log / linear scale, the auto-range that follows the model's bounds until the
// user zooms or pans, its palette and tooltip, and the QCPGraphs that mirror one chart of a
// TrainingCurves (per run and series: the raw curve, its EMA, the zero-gradient markers).
//
// It only reads the model; TrainingPlotsPanel owns the model, lays the charts out, decides when
// to mirror and replot, and answers logToggled() / exportRequested().
// Threading: GUI thread only.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include <QString>
#include <QWidget>

#include "widgets/train/training_curves.h"

class QCPGraph;
class QCustomPlot;
class QPointF;
class QToolButton;

namespace hnclip::gui {

class TrainingChart : public QWidget {
  Q_OBJECT

 public:
  // Which of a series' graphs: the faint raw curve, its EMA on top (smoothed charts only), or the
  // markers of values that were 0 and are drawn at kZeroClamp (gradient norms only).
  enum class GraphRole { Raw, Smoothed, ZeroMarks };
  using LabelFn = std::function<QString(int64_t run_id)>;

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

  bool logScale() const { return log_; }
  void setLogScale(bool log);  // also forgets the user's view: it means nothing on the other scale
  void resetView();            // follow the data again and replot (what a double-click does)

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
  struct SeriesSpec;
  struct ChartSpec;
  struct SeriesGraphs;
  static const std::vector<ChartSpec>& specs();

  void buildFrame(const QFont& font);
  void mirrorSeries(int64_t run_id, int series, const CurveSeries& model, SeriesGraphs& view);
  void styleSeries(int64_t run_id, int series, SeriesGraphs& s);
  void applyAutoRange();
  void applyScale();
  void showTooltip(const QPointF& pos);

  const TrainingCurves& curves_;
  const int index_;
  const ChartSpec* spec_ = nullptr;
  const CurveChartSpec* data_ = nullptr;
  LabelFn label_;
  QCustomPlot* plot_ = nullptr;
  QToolButton* logButton_ = nullptr;
  std::map<int64_t, std::vector<SeriesGraphs>> runs_;  // per run: one entry per spec series
  uint64_t seenChanges_ = 0;                           // the model's changeCount() last mirrored
  bool dirty_ = false;
  bool userView_ = false;  // the user zoomed or panned: keep their view
  bool log_ = false;
  bool settingRange_ = false;  // our own range changes are not the user's
};

}  // namespace hnclip::gui
