#include "loss/tensor_shape_text.h"

#include <sstream>

namespace hnclip {

std::string tensor_shape_text(const at::Tensor& t) {
  if (!t.defined()) return "undefined";
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

}  // namespace hnclip
