#include "plot_export.h"

#include <QFileInfo>
#include <QObject>
#include <QSvgGenerator>

#include "qcustomplot.h"

namespace hnclip::gui {

bool save_plot(QCustomPlot* p, const QString& path, int w, int h, const QString& title, QString* error) {
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  const QString suffix = QFileInfo(path).suffix().toLower();
  bool ok = false;
  if (suffix == QLatin1String("png")) {
    ok = p->savePng(path, w, h);
  } else if (suffix == QLatin1String("pdf")) {
    ok = p->savePdf(path, w, h, QCP::epAllowCosmetic, QStringLiteral("HN-CLIP Workbench"), title);
  } else if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(QSize(w, h));
    svg.setViewBox(QRect(0, 0, w, h));
    svg.setTitle(title);
    svg.setDescription(QStringLiteral("HN-CLIP Workbench"));
    QCPPainter painter;
    if (painter.begin(&svg)) {
      painter.setMode(QCPPainter::pmVectorized);
      painter.setMode(QCPPainter::pmNoCaching);
      p->toPainter(&painter, w, h);
      ok = painter.end();
    }
  } else {
    return fail(QObject::tr("%1: unsupported image format '%2' (use .png, .svg or .pdf)").arg(path, suffix));
  }
  if (!ok || QFileInfo(path).size() == 0) return fail(QObject::tr("%1: could not write the chart").arg(path));
  return true;
}

}  // namespace hnclip::gui
