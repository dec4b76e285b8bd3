#pragma once
// PauseGate: lets another thread pause a training run between optimiser steps. The trainer asks
// the gate before each step and blocks while it is closed; the time spent blocked is reported so
// that the run's wall time (and every ETA built on it) excludes pauses.
// Threading: set_paused() from any thread; wait_while_paused() from the training thread only.

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace hnclip {

class PauseGate {
 public:
  void set_paused(bool paused);
  bool paused() const;
  // Returns at once when open; otherwise blocks until set_paused(false) or `stop` becomes true
  // (checked at least every kStopPollMs, as nothing notifies the gate when stop is set).
  // Returns the seconds spent blocked.
  double wait_while_paused(const std::atomic<bool>& stop);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool paused_ = false;
};

}  // namespace hnclip
