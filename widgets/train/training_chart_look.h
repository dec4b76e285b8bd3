#pragma once
// How each chart of the Train tab looks — title, axis label, default scale, per-series legend
// label, pen and marker, and the chart's kind (curves, [0, 1] fractions, per-epoch stacked bars,
// a threshold line) — index for index with what it holds, TrainingCurves::charts().
// Threading: constant tables; any thread.

#include <vector>

#include "qcustomplot.h"

namespace hnclip::gui {

struct TrainingSeriesLook {
  const char* label;  // legend suffix
  Qt::PenStyle style;
  QCPScatterStyle::ScatterShape shape;
};

struct TrainingChartLook {
  const char* title;
  const char* yLabel;
  bool logDefault;
  std::vector<TrainingSeriesLook> series;
  bool unitRange = false;    // fractions: the y axis is always [0, 1]
  bool bars = false;         // per-epoch stacked bars (GradientMassBars) instead of curves
  double threshold = 0;      // > 0: a horizontal line there, always in range (loss: kSolvedLoss)
  const char* tooltip = "";  // on the title: what the chart shows and where its data comes from
};

const std::vector<TrainingChartLook>& training_chart_looks();

}  // namespace hnclip::gui
