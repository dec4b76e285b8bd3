#include "widgets/common/plot_export.h"

#include <QFileInfo>
#include <QObject>
#include <QSvgGenerator>

#include <qcustomplot.h>

namespace hnclip::gui {

bool save_plot(QCustomPlot* plot, const QString& path, int width, int height, const QString& title,
               QString* error) {
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  const QString suffix = QFileInfo(path).suffix().toLower();
  bool ok = false;
  if (suffix == QLatin1String("png")) {
    ok = plot->savePng(path, width, height);
  } else if (suffix == QLatin1String("pdf")) {
    ok = plot->savePdf(path, width, height, QCP::epAllowCosmetic,
                       QStringLiteral("HN-CLIP Workbench"), title);
  } else if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(QSize(width, height));
    svg.setViewBox(QRect(0, 0, width, height));
    svg.setTitle(title);
    svg.setDescription(QStringLiteral("HN-CLIP Workbench"));
    QCPPainter painter;
    if (painter.begin(&svg)) {
      // Vector output: no cached pixmaps, so lines and text stay vectors.
      painter.setMode(QCPPainter::pmVectorized);
      painter.setMode(QCPPainter::pmNoCaching);
      plot->toPainter(&painter, width, height);
      ok = painter.end();
    }
  } else {
    return fail(QObject::tr("%1: unsupported image format '%2' (use .png, .svg or .pdf)")
                    .arg(path, suffix));
  }
  if (!ok || QFileInfo(path).size() == 0)
    return fail(QObject::tr("%1: could not write the chart").arg(path));
  return true;
}

}  // namespace hnclip::gui
