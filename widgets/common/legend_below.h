#pragma once
// A chart's legend in a row of its own below the axis rect, so it never covers the data. The
// legend is in the plot's layout only while it has items: QCustomPlot caps a layout column at the
// smallest maximum width of the elements in it, visible or not, and an empty legend's maximum
// width is its margins, so an empty legend left below the axis rect squeezes the axis rect to its
// minimum width (50 px of a 600 px plot) until a series arrives.

class QCustomPlot;

namespace hnclip::gui {

// Takes the legend out of the axis rect's inset layout (the place QCustomPlot gives it), then puts
// it below the axis rect and shows it when it has items, or takes it out of the layout and hides
// it when it has none. Call after the legend's items change, before the replot.
void place_legend_below(QCustomPlot* plot);

}  // namespace hnclip::gui
