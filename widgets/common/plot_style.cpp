#include "widgets/common/plot_style.h"

#include <QAbstractButton>
#include <QFont>
#include <QPalette>

#include "qcustomplot.h"

namespace hnclip::gui {

void apply_plot_palette(QCustomPlot* plot, const QPalette& pal) {
  const QColor text = pal.color(QPalette::WindowText);
  // Grid lines as translucent text colour: visible on light and dark backgrounds alike.
  QColor grid = text;
  grid.setAlpha(50);
  QColor sub_grid = text;
  sub_grid.setAlpha(20);
  plot->setBackground(pal.brush(QPalette::Window));
  plot->axisRect()->setBackground(pal.brush(QPalette::Base));
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis, plot->xAxis2, plot->yAxis2}) {
    axis->setBasePen(QPen(text, 1));
    axis->setTickPen(QPen(text, 1));
    axis->setSubTickPen(QPen(text, 1));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(sub_grid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(QPen(grid, 1));
  }
  QColor legend = pal.color(QPalette::Base);
  legend.setAlpha(210);
  plot->legend->setBrush(legend);
  plot->legend->setBorderPen(QPen(grid));
  plot->legend->setTextColor(pal.color(QPalette::Text));
}

void apply_toggle_palette(QAbstractButton* button, const QPalette& pal) {
  QColor border = pal.color(QPalette::WindowText);
  border.setAlpha(90);
  button->setStyleSheet(
      QStringLiteral("QToolButton { border: 1px solid %1; border-radius: 3px; padding: 1px 5px; }"
                     "QToolButton:checked { background-color: %2; color: %3; }")
          .arg(border.name(QColor::HexArgb), pal.color(QPalette::Highlight).name(),
               pal.color(QPalette::HighlightedText).name()));
}

void apply_plot_fonts(QCustomPlot* plot, const QFont& base) {
  QFont small = base;
  small.setPointSizeF(base.pointSizeF() * 0.85);
  plot->xAxis->setTickLabelFont(small);
  plot->yAxis->setTickLabelFont(small);
  plot->xAxis->setLabelFont(small);
  plot->yAxis->setLabelFont(small);
  plot->legend->setFont(small);
  plot->legend->setRowSpacing(-3);
}

}  // namespace hnclip::gui
