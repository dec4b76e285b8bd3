#include "numeric/blas_threads.h"

#include <dlfcn.h>

namespace hnclip {

namespace {
template <typename F>
F openblas(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}
}  // namespace

int blas_threads() {
  using Get = int (*)();
  static const auto get = openblas<Get>("openblas_get_num_threads");
  return get ? get() : 0;
}

void set_blas_threads(int n) {
  using Set = void (*)(int);
  static const auto set = openblas<Set>("openblas_set_num_threads");
  if (set && n >= 1) set(n);
}

SingleThreadedBlas::SingleThreadedBlas() : before_(blas_threads()) {
  if (before_ > 1) set_blas_threads(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (before_ > 1) set_blas_threads(before_);
}

}  // namespace hnclip
