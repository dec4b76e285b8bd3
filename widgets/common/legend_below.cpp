#include "widgets/common/legend_below.h"

#include "qcustomplot.h"

namespace hnclip::gui {

namespace {
constexpr double kLegendRowStretch = 0.001;  // the legend's row keeps its minimum height

// itemCount() counts the legend grid's cells, empty ones included.
bool has_items(QCPLegend* legend) {
  for (int i = 0; i < legend->itemCount(); ++i) {
    if (legend->item(i)) return true;
  }
  return false;
}
}  // namespace

void place_legend_below(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  QCPLayoutInset* inset = plot->axisRect()->insetLayout();
  if (legend->layout() == inset) inset->take(legend);
  QCPLayoutGrid* layout = plot->plotLayout();
  const bool shown = has_items(legend);
  legend->setVisible(shown);
  if (shown == (legend->layout() == layout)) return;
  if (shown) {
    layout->addElement(1, 0, legend);
    layout->setRowStretchFactor(1, kLegendRowStretch);
  } else {
    layout->take(legend);
    layout->simplify();  // drops the legend's empty row
  }
}

}  // namespace hnclip::gui
