#pragma once
// A legend entry whose text is its plottable's name elided in the middle to the width the legend
// gives it. QCustomPlot's own entry asks for its whole name's width and, in a legend below a
// half-width chart, is cut at its right edge: "s52 · InfoNCE · s 50 fixed" for every seed and
// every series of a run, when what tells the entries apart — "seed 2", "· plain" — is at the end.
// Its minimum width is a short name's, so a long name neither widens the chart nor is clipped.
// GUI thread only.

#include "qcustomplot.h"

namespace hnclip::gui {

class ElidedLegendItem : public QCPPlottableLegendItem {
 public:
  // Text never narrower than this many average characters when there is room for it.
  static constexpr int kMinimumCharacters = 12;

  ElidedLegendItem(QCPLegend* parent, QCPAbstractPlottable* plottable);

  // The text as drawn in `width` pixels for the icon and the text together.
  QString shownText(int width) const;

 protected:
  void draw(QCPPainter* painter) override;
  QSize minimumOuterSizeHint() const override;
};

}  // namespace hnclip::gui
