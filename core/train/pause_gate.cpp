#include "train/pause_gate.h"

#include <chrono>

namespace hnclip {
namespace {
constexpr int kStopPollMs = 50;  // a stop request while paused is seen within this time
}  // namespace

void PauseGate::set_paused(bool paused) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    paused_ = paused;
  }
  changed_.notify_all();
}

bool PauseGate::paused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return paused_;
}

double PauseGate::wait_while_paused(const std::atomic<bool>& stop) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> lock(mutex_);
  if (!paused_) return 0.0;
  const auto start = Clock::now();
  while (paused_ && !stop.load()) changed_.wait_for(lock, std::chrono::milliseconds(kStopPollMs));
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace hnclip
