#pragma once
// How the losses' argument checks name a tensor's shape in their messages: "[4, 8]", or
// "undefined" for a tensor that was never set (the usual caller's bug).
// Threading: a pure function.

#include <string>

#include <ATen/core/Tensor.h>

namespace hnclip {

std::string tensor_shape_text(const at::Tensor& t);

}  // namespace hnclip
