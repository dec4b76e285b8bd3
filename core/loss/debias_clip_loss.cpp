#include "loss/debias_clip_loss.h"

#include <torch/torch.h>

#include <stdexcept>

#include "loss/hn_contrastive_loss.h"
#include "loss/long_clip_loss.h"

namespace hnclip {

DebiasClipLoss debias_clip_loss(const at::Tensor& image, const at::Tensor& text,
                                const at::Tensor& text_augmented, const at::Tensor& scale, bool hn,
                                double gamma, const at::Tensor& text_for_g,
                                double label_smoothing) {
  if (text_augmented.sizes() != text.sizes()) {
    throw std::invalid_argument(
        "debias_clip_loss: full and augmented caption features differ in shape");
  }
  DebiasClipLoss out;
  out.global_term = hn ? hn_contrastive_loss(image, text, scale, gamma, text_for_g).loss
                       : smoothed_clip_loss(image, text, scale, label_smoothing);
  out.augmented_term = smoothed_clip_loss(image, text_augmented, scale, label_smoothing);
  out.loss = out.global_term + out.augmented_term;
  return out;
}

}  // namespace hnclip
