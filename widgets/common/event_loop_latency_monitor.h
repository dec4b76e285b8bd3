#pragma once
// EventLoopLatencyMonitor: measures how responsive the GUI thread is. A precise timer asks to fire
// every interval; how late each firing comes is the time the event loop was busy with something
// else (a replot, a SQLite read, a long slot). The 95th percentile of that lateness is the
// workbench's responsiveness figure (target: < 50 ms while training).
// Threading: GUI thread (the thread whose event loop it measures).

#include <vector>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace hnclip::gui {

struct LatencySummary {
  int samples = 0;
  double p50_ms = 0;
  double p95_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

class EventLoopLatencyMonitor : public QObject {
  Q_OBJECT
 public:
  explicit EventLoopLatencyMonitor(int interval_ms = 10, QObject* parent = nullptr);
  void start();
  void stop();
  void reset();
  LatencySummary summary() const;
  // Nearest-rank percentile of `values` (unsorted), p in [0, 100]; 0 for an empty list.
  static double percentile(std::vector<double> values, double p);

 private:
  void onTick();
  int interval_ms_;
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ns_ = -1;
  std::vector<double> lateness_ms_;
};

}  // namespace hnclip::gui
