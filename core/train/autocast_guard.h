#pragma once
// AutocastGuard: LibTorch's autocast (automatic mixed precision) switched on for one scope and
// restored on exit, as Python's `with torch.autocast(...)` does — LibTorch 1.13 has no RAII guard.
// Inside the scope, matrix products run in `dtype` (bf16) while reductions such as softmax and
// layer norm stay fp32 (LibTorch's own per-op lists). The trainer wraps the two encoders in it and
// casts their features to fp32 before the loss. Autocast state is thread-local: construct and
// destroy the guard on the same thread. Compiles against LibTorch 1.13 and 2.x (the per-device
// C++ functions became device-generic in 2.4; the old names are deprecated there).

#include <string>

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include "train/train_config.h"

namespace hnclip {

class AutocastGuard {
 public:
  // enabled = false: touches nothing (the fp32 path costs nothing extra). Otherwise `device` must
  // be CUDA or CPU; throws std::invalid_argument for any other device type.
  AutocastGuard(c10::DeviceType device, bool enabled, c10::ScalarType dtype = c10::kBFloat16);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

  bool active() const { return active_; }
  // Whether autocast is on for `device` on this thread right now.
  static bool is_enabled(c10::DeviceType device);
  // The reduced-precision dtype autocast uses for `device` on this thread right now.
  static c10::ScalarType dtype(c10::DeviceType device);

 private:
  c10::DeviceType device_;
  bool active_;
  bool previous_enabled_ = false;
  c10::ScalarType previous_dtype_ = c10::kFloat;
};

// --precision: "auto" = bf16 autocast on CUDA and fp32 elsewhere, "fp32" = never, "bf16" = on CUDA
// and on the CPU (on any other device it throws std::invalid_argument naming --precision, as for
// unknown values).
bool use_bf16_autocast(const std::string& precision, c10::DeviceType device);
bool use_bf16_autocast(Precision precision, c10::DeviceType device);

}  // namespace hnclip
