#pragma once
// Compute setup: thread counts and the device, chosen at run time (never at build time), so one
// binary runs on a CPU laptop and on a CUDA server built against an official LibTorch 2.x.

#include <cstdint>
#include <string>

#include <c10/core/Device.h>

namespace hnclip {

struct ClipConfig;

// Models at least this wide (the wider of the two towers, in channels) multiply through a BLAS
// pool as large as LibTorch's thread count; narrower ones through one thread.
constexpr int64_t kBlasPoolWidth = 256;

// Sets LibTorch's intra-op threads to `threads`, and OpenBLAS's own pool (numeric/blas_threads.h)
// to `threads` for a model at least kBlasPoolWidth wide, else to one thread. Measured on 2 cores,
// 2 LibTorch threads, one training step (tests/bench/train_step_vs_pytorch): for ViT-B/32 (768
// wide) at batch 32 a one-thread pool made the step 1.43x slower (25.7 against 18.0 s) — LibTorch
// gives each product to the BLAS in one call, so it ran on one core; for tiny (64 wide) at batch
// 128 a two-thread pool made it 1.75x slower (0.34 against 0.19 s) — many small products, whose
// pool threads compete with LibTorch's. Only those two widths were measured; 256 lies between.
// `model` null (no model: retrieval, geometry) means one thread. It also keeps memory that is
// freed in the process's heap for reuse instead of returning it to the system block by block
// (compute_setup.cpp says why). Safe to call more than once.
void configure_threads(int threads, const ClipConfig* model = nullptr);

// The size configure_threads gives OpenBLAS's pool: `threads` for a model at least kBlasPoolWidth
// wide, else (or with no model) 1.
int blas_pool_size(int threads, const ClipConfig* model);

// The glibc settings configure_threads makes (mallopt, in bytes). Another process (a benchmark's
// peer) gets the same through the environment: MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_.
inline constexpr int kMallocMmapThreshold = 256 << 20;
inline constexpr int kMallocTrimThreshold = 1 << 30;

// The width configure_threads compares with kBlasPoolWidth: the wider of the two towers.
int64_t model_width(const ClipConfig& model);

// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Throws std::runtime_error
// naming the flag value when CUDA is asked for but not available in this build or machine.
c10::Device resolve_device(const std::string& spec);

}  // namespace hnclip
