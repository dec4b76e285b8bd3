#pragma once
// Saving a QCustomPlot chart as PNG, SVG or PDF (format from the file's extension) — one place
// for every tab's chart export (Train plots, Captions overview). Threading: GUI thread.

#include <QString>

class QCustomPlot;

namespace hnclip::gui {

// Renders `plot` at w×h. False with `error` naming the path for an unknown extension or a file
// that could not be written.
bool save_plot(QCustomPlot* plot, const QString& path, int w, int h, const QString& title, QString* error = nullptr);

}  // namespace hnclip::gui
