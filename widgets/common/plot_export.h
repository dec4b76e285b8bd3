#pragma once
// Saving a QCustomPlot as a picture — PNG (raster), SVG or PDF (vector) by the path's extension —
// for every chart of the workbench (Train tab curves, Captions tab histograms and heatmaps).

#include <QString>

class QCustomPlot;

namespace hnclip::gui {

// Writes `plot` at width×height to `path`; the format comes from the extension (.png, .svg,
// .pdf). Returns false with a message naming the path on an unknown extension or a failed write.
bool save_plot(QCustomPlot* plot, const QString& path, int width, int height, const QString& title,
               QString* error = nullptr);

}  // namespace hnclip::gui
