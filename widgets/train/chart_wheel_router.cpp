#include "widgets/train/chart_wheel_router.h"

#include <utility>

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <QWidget>

namespace hnclip::gui {

ChartWheelRouter::ChartWheelRouter(QWidget* plot, std::function<void()> follow)
    : QObject(plot), plot_(plot), follow_(std::move(follow)) {
  plot_->setFocusPolicy(Qt::ClickFocus);
  plot_->installEventFilter(this);
}

// A chart page is scrolled far more often than a chart is zoomed: the wheel is the page's unless
// the user asked the chart for it.
bool ChartWheelRouter::eventFilter(QObject* watched, QEvent* event) {
  if (watched != plot_) return QObject::eventFilter(watched, event);
  if (event->type() == QEvent::Wheel) {
    auto* wheel = static_cast<QWheelEvent*>(event);
    if (wheel->modifiers().testFlag(Qt::ControlModifier) || plot_->hasFocus()) return false;
    for (QWidget* w = plot_->parentWidget(); w; w = w->parentWidget()) {
      if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
        QScrollBar* bar =
            wheel->angleDelta().y() != 0 ? area->verticalScrollBar() : area->horizontalScrollBar();
        QCoreApplication::sendEvent(bar, wheel);
        break;
      }
    }
    return true;  // never a zoom
  }
  if (event->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->key() == Qt::Key_F) {
    follow_();
    return true;
  }
  return false;
}

}  // namespace hnclip::gui
