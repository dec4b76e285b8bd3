#include "widgets/common/event_loop_latency_monitor.h"

#include <algorithm>
#include <cmath>

namespace hnclip::gui {

EventLoopLatencyMonitor::EventLoopLatencyMonitor(int interval_ms, QObject* parent)
    : QObject(parent), interval_ms_(interval_ms) {
  timer_.setTimerType(Qt::PreciseTimer);
  timer_.setInterval(interval_ms_);
  connect(&timer_, &QTimer::timeout, this, &EventLoopLatencyMonitor::onTick);
}

void EventLoopLatencyMonitor::start() {
  clock_.start();
  last_ns_ = -1;
  timer_.start();
}

void EventLoopLatencyMonitor::stop() { timer_.stop(); }

void EventLoopLatencyMonitor::reset() {
  lateness_ms_.clear();
  last_ns_ = -1;
}

void EventLoopLatencyMonitor::onTick() {
  const qint64 now = clock_.nsecsElapsed();
  if (last_ns_ >= 0) {
    const double gap_ms = static_cast<double>(now - last_ns_) / 1e6;
    lateness_ms_.push_back(std::max(0.0, gap_ms - interval_ms_));
  }
  last_ns_ = now;
}

double EventLoopLatencyMonitor::percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

LatencySummary EventLoopLatencyMonitor::summary() const {
  LatencySummary s;
  s.samples = static_cast<int>(lateness_ms_.size());
  s.p50_ms = percentile(lateness_ms_, 50);
  s.p95_ms = percentile(lateness_ms_, 95);
  s.p99_ms = percentile(lateness_ms_, 99);
  s.max_ms =
      lateness_ms_.empty() ? 0.0 : *std::max_element(lateness_ms_.begin(), lateness_ms_.end());
  return s;
}

}  // namespace hnclip::gui
