// ChartWheelRouter: over a chart on a scrolling page the plain wheel scrolls the page and leaves
// the chart's axes alone; Ctrl+wheel, or the wheel over a focused chart, zooms; F follows.
#include <QtTest>

#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "qcustomplot.h"
#include "widgets/train/chart_wheel_router.h"

using hnclip::gui::ChartWheelRouter;

namespace {

// A page taller than its scroll area, with one chart at the top.
struct Page {
  QScrollArea area;
  QCustomPlot* plot = nullptr;
  int follows = 0;
  Page() {
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    plot = new QCustomPlot;
    plot->setMinimumHeight(300);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->xAxis->setRange(0, 100);
    plot->yAxis->setRange(0, 10);
    layout->addWidget(plot);
    auto* filler = new QWidget;
    filler->setMinimumHeight(2000);
    layout->addWidget(filler);
    area.setWidgetResizable(true);
    area.setWidget(content);
    area.resize(500, 400);
    new ChartWheelRouter(plot, [this] { ++follows; });
  }
  void wheel(Qt::KeyboardModifiers modifiers) {
    const QPointF at(plot->axisRect()->center());
    QWheelEvent e(at, plot->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, modifiers,
                  Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(plot, &e);
  }
};

}  // namespace

class TestChartWheelRouter : public QObject {
  Q_OBJECT
 private slots:
  void plain_wheel_scrolls_the_page_and_does_not_zoom() {
    Page page;
    page.area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page.area));
    page.plot->replot();
    QCOMPARE(page.area.verticalScrollBar()->value(), 0);
    page.wheel(Qt::NoModifier);
    QVERIFY(page.area.verticalScrollBar()->value() > 0);
    QCOMPARE(page.plot->xAxis->range().lower, 0.0);
    QCOMPARE(page.plot->xAxis->range().upper, 100.0);
  }

  void ctrl_wheel_zooms_and_leaves_the_page() {
    Page page;
    page.area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page.area));
    page.plot->replot();
    page.wheel(Qt::ControlModifier);
    QCOMPARE(page.area.verticalScrollBar()->value(), 0);
    QVERIFY(page.plot->xAxis->range().size() != 100.0);
  }

  void a_focused_chart_zooms_with_the_plain_wheel_and_follows_on_f() {
    Page page;
    page.area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page.area));
    page.plot->replot();
    QCOMPARE(page.plot->focusPolicy(), Qt::ClickFocus);
    page.area.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&page.area));
    page.plot->setFocus();
    QTRY_VERIFY(page.plot->hasFocus());
    page.wheel(Qt::NoModifier);
    QVERIFY(page.plot->xAxis->range().size() != 100.0);
    QCOMPARE(page.area.verticalScrollBar()->value(), 0);
    QTest::keyClick(page.plot, Qt::Key_F);
    QCOMPARE(page.follows, 1);
  }
};

QTEST_MAIN(TestChartWheelRouter)
#include "test_chart_wheel_router.moc"
