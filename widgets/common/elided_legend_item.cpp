#include "widgets/common/elided_legend_item.h"

#include <algorithm>

#include <QFontMetrics>

namespace hnclip::gui {

ElidedLegendItem::ElidedLegendItem(QCPLegend* parent, QCPAbstractPlottable* plottable)
    : QCPPlottableLegendItem(parent, plottable) {}

QString ElidedLegendItem::shownText(int width) const {
  if (!mPlottable) return {};
  const int text_width = width - mParentLegend->iconSize().width() -
                         mParentLegend->iconTextPadding() - mMargins.left() - mMargins.right();
  return QFontMetrics(getFont()).elidedText(mPlottable->name(), Qt::ElideMiddle,
                                            std::max(0, text_width));
}

void ElidedLegendItem::draw(QCPPainter* painter) {
  if (!mPlottable) return;
  // The base class draws the icon (the plottable's drawLegendIcon is open to it alone) and the
  // name: hand it the elided name for the time of the drawing. setName is a plain setter.
  const QString full = mPlottable->name();
  mPlottable->setName(shownText(mOuterRect.width()));
  QCPPlottableLegendItem::draw(painter);
  mPlottable->setName(full);
}

QSize ElidedLegendItem::minimumOuterSizeHint() const {
  QSize size = QCPPlottableLegendItem::minimumOuterSizeHint();
  if (!mPlottable) return size;
  const QFontMetrics metrics(getFont());
  const int text = metrics.horizontalAdvance(mPlottable->name());
  const int shortest = metrics.averageCharWidth() * kMinimumCharacters;
  if (text > shortest) size.setWidth(size.width() - text + shortest);
  return size;
}

}  // namespace hnclip::gui
