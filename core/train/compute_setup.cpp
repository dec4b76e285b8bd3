#include "train/compute_setup.h"

#include <dlfcn.h>
#include <torch/torch.h>

#include <stdexcept>

namespace hnclip {

namespace {
// OpenBLAS is reached through LibTorch, not linked by us: look its setter up at run time, so the
// code also runs against a LibTorch built on MKL (where the symbol is absent and this is a no-op).
void set_blas_threads(int n) {
  using SetThreads = void (*)(int);
  if (auto* f = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) f(n);
}
}  // namespace

void configure_threads(int threads) {
  if (threads < 1) throw std::invalid_argument("--threads must be >= 1");
  at::set_num_threads(threads);
  set_blas_threads(1);
}

c10::Device resolve_device(const std::string& spec) {
  if (spec == "cpu") return c10::Device(c10::kCPU);
  if (spec == "auto") return torch::cuda::is_available() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  if (spec.rfind("cuda", 0) == 0) {
    if (!torch::cuda::is_available()) {
      throw std::runtime_error("--device " + spec +
                               ": CUDA is not available (this LibTorch build or machine has no GPU)");
    }
    c10::Device d(spec);
    if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count())) {
      throw std::runtime_error("--device " + spec + ": only " +
                               std::to_string(torch::cuda::device_count()) + " CUDA device(s)");
    }
    return d.has_index() ? d : c10::Device(c10::kCUDA, 0);
  }
  throw std::runtime_error("--device must be auto, cpu or cuda[:N] (got '" + spec + "')");
}

}  // namespace hnclip
