#pragma once
// Compute setup: thread counts and the device, chosen at run time (never at build time), so one
// binary runs on a CPU laptop and on a CUDA server built against an official LibTorch 2.x.

#include <string>

#include <c10/core/Device.h>

namespace hnclip {

// Sets LibTorch's intra-op threads to `threads` and OpenBLAS's own pool to one thread when LibTorch
// runs several (measured on 2 cores: 2 LibTorch threads with OpenBLAS's default pool on top were
// 1.6x slower than 1 thread — oversubscription). Safe to call more than once.
void configure_threads(int threads);

// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Throws std::runtime_error
// naming the flag value when CUDA is asked for but not available in this build or machine.
c10::Device resolve_device(const std::string& spec);

}  // namespace hnclip
