#pragma once
// The Captions tab's overview of a split's geometry under one or two text encoders: histograms of
// all pairwise caption cosines and of each caption's hardest-neighbour cosine, each with a dotted
// line at its mean (paper Fig. 1) and an x range fitted to the non-empty bins, the expected
// hardness composition of one batch's in-batch negatives as stacked bars (Fig. A6; on a log axis,
// side by side, at a click), and the Table-A1-style row per encoder. A second encoder is
// drawn over the first (e.g. before vs after fine-tuning) so the shift is visible.
// Threading: GUI thread.

#include <vector>

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "store/caption_geometry_record.h"

class QCheckBox;
class QCustomPlot;
class QLabel;

namespace hnclip::gui {

class CaptionOverviewCharts : public QWidget {
  Q_OBJECT

 public:
  struct Entry {
    QString label;  // the encoder as the user chose it
    hnclip::CaptionStatsRow stats;
    QColor color;
  };

  explicit CaptionOverviewCharts(QWidget* parent = nullptr);

  void setEntries(
      const std::vector<Entry>& entries);  // first = the selected encoder, then the overlay
  const std::vector<Entry>& entries() const { return entries_; }
  QString tableRowText() const;  // the Table-A1 rows as plain text

  static QStringList chartNames();  // "pairwise", "hardest", "buckets"
  QCustomPlot* chart(const QString& name) const;
  // The hardness chart on a log axis (buckets side by side) so the ≥ 0.9 bucket is visible.
  void setBucketsLogScale(bool on);
  bool bucketsLogScale() const;
  // PNG/SVG/PDF by extension (plot_export.h); false with `error` for an unknown chart or format.
  bool exportChart(const QString& name, const QString& path, QString* error = nullptr) const;

 private:
  void drawHistogram(QCustomPlot* plot, bool hardest);
  void drawBuckets();
  void styleAxes(QCustomPlot* plot);

  QCustomPlot* pairwise_ = nullptr;
  QCustomPlot* hardest_ = nullptr;
  QCustomPlot* buckets_ = nullptr;
  QLabel* table_ = nullptr;
  QCheckBox* log_scale_ = nullptr;
  std::vector<Entry> entries_;
};

}  // namespace hnclip::gui
