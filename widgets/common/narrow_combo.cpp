#include "widgets/common/narrow_combo.h"

#include <QComboBox>
#include <QEvent>
#include <QHelpEvent>
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

}  // namespace hnclip::gui
