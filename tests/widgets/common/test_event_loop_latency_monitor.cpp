// EventLoopLatencyMonitor: nearest-rank percentiles, and a blocked event loop shows up as lateness.
#include <QThread>
#include <QtTest>

#include "widgets/common/event_loop_latency_monitor.h"

using hnclip::gui::EventLoopLatencyMonitor;

class TestEventLoopLatencyMonitor : public QObject {
  Q_OBJECT
 private slots:
  void percentiles_are_nearest_rank() {
    std::vector<double> v;
    for (int i = 100; i >= 1; --i) v.push_back(i);  // unsorted on purpose
    QCOMPARE(EventLoopLatencyMonitor::percentile(v, 50), 50.0);
    QCOMPARE(EventLoopLatencyMonitor::percentile(v, 95), 95.0);
    QCOMPARE(EventLoopLatencyMonitor::percentile(v, 100), 100.0);
    QCOMPARE(EventLoopLatencyMonitor::percentile(v, 0), 1.0);
    QCOMPARE(EventLoopLatencyMonitor::percentile({}, 95), 0.0);
    QCOMPARE(EventLoopLatencyMonitor::percentile({7.0}, 95), 7.0);
  }

  void a_blocked_loop_is_measured_as_late() {
    EventLoopLatencyMonitor monitor(10);
    monitor.start();
    QTest::qWait(200);
    // Block the GUI thread the way a slow slot would.
    QTimer::singleShot(0, [] { QThread::msleep(300); });
    QTest::qWait(400);
    monitor.stop();
    const auto s = monitor.summary();
    QVERIFY(s.samples > 5);
    QVERIFY2(s.max_ms >= 250.0,
             qPrintable(QString::number(s.max_ms)));  // the 300 ms block, less one interval
  }
};

QTEST_MAIN(TestEventLoopLatencyMonitor)
#include "test_event_loop_latency_monitor.moc"
