#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace hnclip {

// TEST SEAM, not a feature. Each call site names one short moment of a run (a checkpoint between
// its temporary file and the rename, a metrics transaction before its commit, ...) so that the
// kill tests (tests/reliability/kill_anywhere.sh) can stop a process exactly there, which a kill
// from outside at a random time almost never hits.
//
// With HNCLIP_FAULT_POINT=NAME:N in the environment, the N-th time (counting from 1) this process
// reaches the point NAME it raises SIGKILL on itself: no destructor, no flush, no handler, exactly
// like `kill -9` from outside. Without the variable a call is one branch on a cached value.
// A malformed value throws std::invalid_argument naming the variable at the first point reached.
// Any thread may call it.
void fault_point(const char* name);

// The parsed variable and the count of times its point has been reached (what fault_point keeps
// for the process; its own class so the tests can check the counting without dying).
class FaultPlan {
 public:
  // `spec` is NAME:N with N >= 1, or null / empty for "no fault".
  explicit FaultPlan(const char* spec);
  bool armed() const { return !name_.empty(); }
  // True exactly once: on the N-th call with the armed name.
  bool reached(const char* name);

 private:
  std::string name_;
  int64_t target_ = 0;
  std::atomic<int64_t> hits_{0};
};

}  // namespace hnclip
