#include "widgets/common/narrow_combo.h"

#include <QComboBox>
#include <QEvent>
#include <QHelpEvent>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <QToolTip>

namespace hnclip::gui {
namespace {

// Composes the tooltip when it is asked for: the items change under signal blockers (a refilled
// list keeps its choice), so a tooltip kept up to date by signals could name a previous item.
class FullTextTooltip : public QObject {
 public:
  using QObject::QObject;

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::ToolTip) return false;
    auto* combo = static_cast<QComboBox*>(watched);
    const QString text = combo->currentText();
    const QString purpose = combo->toolTip();
    QString tip = text;
    if (!purpose.isEmpty())
      tip = text.isEmpty() ? purpose : text + QStringLiteral("\n\n") + purpose;
    if (tip.isEmpty()) return false;
    QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), tip, combo);
    return true;
  }
};

}  // namespace

void make_narrow_combo(QComboBox* combo, int characters) {
  combo->setMinimumContentsLength(characters);
  combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo->installEventFilter(new FullTextTooltip(combo));
}

NarrowComboBox::NarrowComboBox(int characters, QWidget* parent) : QComboBox(parent) {
  make_narrow_combo(this, characters);
}

QString NarrowComboBox::elided(const QStyleOptionComboBox& option) const {
  QRect field =
      style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, this);
  if (!option.currentIcon.isNull()) field.setLeft(field.left() + option.iconSize.width() + 4);
  return fontMetrics().elidedText(option.currentText, Qt::ElideMiddle, field.width());
}

QString NarrowComboBox::shownText() const {
  QStyleOptionComboBox option;
  initStyleOption(&option);
  return elided(option);
}

// QComboBox::paintEvent, with the label's text elided in the middle.
void NarrowComboBox::paintEvent(QPaintEvent*) {
  QStylePainter painter(this);
  painter.setPen(palette().color(QPalette::Text));
  QStyleOptionComboBox option;
  initStyleOption(&option);
  painter.drawComplexControl(QStyle::CC_ComboBox, option);
  if (currentIndex() < 0 && !placeholderText().isEmpty()) {
    option.palette.setBrush(QPalette::ButtonText, option.palette.placeholderText());
    option.currentText = placeholderText();
  }
  if (!isEditable()) option.currentText = elided(option);
  painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

}  // namespace hnclip::gui
