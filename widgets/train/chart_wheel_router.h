#pragma once
// ChartWheelRouter: decides who gets the mouse wheel over a chart of a scrolling page. The page
// does (the nearest enclosing QAbstractScrollArea scrolls), unless the user asked the chart for
// it: Ctrl held, or the chart has focus (a click gives it) — then QCustomPlot zooms as usual.
// F on a focused chart calls `follow` (the chart's "follow the data again").
//
// An event filter installed on the plot, owned by (a child of) it. Threading: GUI thread only.

#include <functional>

#include <QObject>

class QWidget;

namespace hnclip::gui {

class ChartWheelRouter : public QObject {
  Q_OBJECT

 public:
  ChartWheelRouter(QWidget* plot, std::function<void()> follow);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* plot_;
  std::function<void()> follow_;
};

}  // namespace hnclip::gui
