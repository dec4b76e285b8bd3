#include "train/autocast_guard.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <ATen/autocast_mode.h>

#include <stdexcept>

// LibTorch 2.4 made the autocast C++ API device-generic (is/set_autocast_enabled(device, ...),
// get/set_autocast_dtype(device, ...)) and deprecated the per-device names used by 1.13
// (set_enabled, set_cpu_enabled, set_autocast_gpu_dtype, ...), which warn at compile and run time.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define HNCLIP_AUTOCAST_BY_DEVICE 1
#else
#define HNCLIP_AUTOCAST_BY_DEVICE 0
#endif

namespace hnclip {

namespace {
void require_supported(c10::DeviceType device) {
  if (device != c10::DeviceType::CUDA && device != c10::DeviceType::CPU) {
    throw std::invalid_argument(std::string("autocast is only used on cuda and cpu, not ") +
                                c10::DeviceTypeName(device, /*lower_case=*/true));
  }
}

void set_enabled(c10::DeviceType device, bool enabled) {
#if HNCLIP_AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_cpu_enabled(enabled);
  }
#endif
}

c10::ScalarType get_dtype(c10::DeviceType device) {
#if HNCLIP_AUTOCAST_BY_DEVICE
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
#endif
}

void set_dtype(c10::DeviceType device, c10::ScalarType dtype) {
#if HNCLIP_AUTOCAST_BY_DEVICE
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}
}  // namespace

bool AutocastGuard::is_enabled(c10::DeviceType device) {
  require_supported(device);
#if HNCLIP_AUTOCAST_BY_DEVICE
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                         : at::autocast::is_cpu_enabled();
#endif
}

c10::ScalarType AutocastGuard::dtype(c10::DeviceType device) {
  require_supported(device);
  return get_dtype(device);
}

AutocastGuard::AutocastGuard(c10::DeviceType device, bool enabled, c10::ScalarType dtype)
    : device_(device), active_(enabled) {
  if (!active_) return;
  require_supported(device);
  previous_enabled_ = is_enabled(device);
  previous_dtype_ = get_dtype(device);
  // The dtype first: LibTorch refuses some (1.13's CPU autocast takes only bf16), and then nothing
  // has been switched on yet.
  set_dtype(device, dtype);
  set_enabled(device, true);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!active_) return;
  // As Python's autocast.__exit__: the cast-weight cache lives until the outermost scope ends.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_enabled(device_, previous_enabled_);
  set_dtype(device_, previous_dtype_);
}

bool use_bf16_autocast(const std::string& precision, c10::DeviceType device) {
  if (precision == "auto") return device == c10::DeviceType::CUDA;
  if (precision == "fp32") return false;
  if (precision == "bf16") {
    // On the CPU too (the encoders' LayerNorms run in fp32 for it: model/layer_norm_fp32.h); the
    // CPU default stays fp32 because bf16 there is a choice to make knowing its measured speed and
    // recall (README, "bf16 on the CPU").
    if (device != c10::DeviceType::CUDA && device != c10::DeviceType::CPU) {
      throw std::invalid_argument(std::string("--precision bf16 needs a CUDA device or the CPU, not ") +
                                  c10::DeviceTypeName(device, /*lower_case=*/true));
    }
    return true;
  }
  throw std::invalid_argument("--precision must be auto, fp32 or bf16 (got '" + precision + "')");
}

bool use_bf16_autocast(Precision precision, c10::DeviceType device) {
  return use_bf16_autocast(to_string(precision), device);
}

}  // namespace hnclip
