#pragma once
// OpenBLAS's own thread pool. LibTorch hands each matrix product to its BLAS in one call, so the
// pool's size decides how many cores one product uses; LibTorch's own threads (at::set_num_threads)
// run everything else. OpenBLAS is reached through LibTorch, not linked by the workbench: its
// functions are looked up at run time, and against a LibTorch built on MKL or another BLAS (where
// they are absent) these are no-ops.

namespace hnclip {

// The pool's size, or 0 where the BLAS is not OpenBLAS.
int blas_threads();

// Sets the pool's size (n >= 1); a no-op where the BLAS is not OpenBLAS.
void set_blas_threads(int n);

// One thread per product for a scope, restored after: for code that multiplies on each of
// LibTorch's threads itself (retrieval tiles, caption geometry), where a pool per product would
// put more threads than cores to work. Construct it on the calling thread, outside the parallel
// region.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int before_;
};

}  // namespace hnclip
