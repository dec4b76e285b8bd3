#include "loss/structxlip_loss.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "loss/hn_contrastive_loss.h"
#include "loss/tensor_shape_text.h"

namespace hnclip {

namespace {

void check_like(const at::Tensor& image, const at::Tensor& feature, const char* name) {
  if (!feature.defined() || feature.dim() != 2 || feature.sizes() != image.sizes()) {
    throw std::invalid_argument(std::string("structxlip_loss: ") + name + " is " +
                                tensor_shape_text(feature) + " but image is " + tensor_shape_text(image) +
                                "; the global features must be [B, E] of one B and E");
  }
}

void check_weight(double w, const char* name) {
  if (!std::isfinite(w) || w < 0) {
    throw std::invalid_argument(std::string("structxlip_loss: the ") + name +
                                " weight must be finite and >= 0, got " + std::to_string(w));
  }
}

bool empty_or_undefined(const at::Tensor& t) { return !t.defined() || t.numel() == 0; }

}  // namespace

at::Tensor multi_positive_info_nce(const at::Tensor& anchors, const at::Tensor& candidates,
                                   const at::Tensor& owner, const at::Tensor& scale) {
  if (!anchors.defined() || !candidates.defined() || anchors.dim() != 2 || candidates.dim() != 2 ||
      anchors.size(1) != candidates.size(1) || anchors.size(0) == 0 || candidates.size(0) == 0) {
    throw std::invalid_argument("multi_positive_info_nce: anchors " + tensor_shape_text(anchors) +
                                " and candidates " + tensor_shape_text(candidates) +
                                " must be non-empty [n, E] and [m, E]");
  }
  if (!owner.defined() || owner.dim() != 1 || owner.size(0) != candidates.size(0) ||
      owner.scalar_type() != torch::kLong) {
    throw std::invalid_argument("multi_positive_info_nce: owner is " + tensor_shape_text(owner) +
                                ", must be int64 [m] with m = " +
                                std::to_string(candidates.size(0)));
  }
  const int64_t n = anchors.size(0);
  const auto owner_cpu = owner.to(torch::kCPU);
  if (owner_cpu.min().item<int64_t>() < 0 || owner_cpu.max().item<int64_t>() >= n) {
    throw std::invalid_argument("multi_positive_info_nce: an owner is outside [0, " +
                                std::to_string(n) + ")");
  }
  const auto counts = torch::bincount(owner_cpu, {}, n);
  const auto lonely = (counts == 0).nonzero();
  if (lonely.size(0) > 0) {
    throw std::invalid_argument("multi_positive_info_nce: anchor " +
                                std::to_string(lonely[0][0].item<int64_t>()) +
                                " has no positive candidate");
  }
  const auto logits = scale * torch::matmul(anchors, candidates.t());  // [n, m]
  // positive[k][j]: candidate j belongs to anchor k.
  const auto positive =
      owner.unsqueeze(0) == torch::arange(n, owner.options()).unsqueeze(1);
  const auto all = torch::logsumexp(logits, 1);
  const auto pos = torch::logsumexp(
      logits.masked_fill(positive.logical_not(), -std::numeric_limits<double>::infinity()), 1);
  const auto anchor_to_candidates = (all - pos).mean();
  const auto candidate_to_anchor =
      torch::nn::functional::cross_entropy(logits.t(), owner);
  return 0.5 * (anchor_to_candidates + candidate_to_anchor);
}

StructxlipLoss structxlip_loss(const at::Tensor& image, const at::Tensor& text,
                               const at::Tensor& structure, const at::Tensor& filtered,
                               const at::Tensor& segment_edges, const at::Tensor& chunks,
                               const at::Tensor& chunk_owner, const at::Tensor& scale, bool hn,
                               double gamma, const at::Tensor& text_for_g,
                               const StructxlipWeights& weights) {
  if (!image.defined() || image.dim() != 2) {
    throw std::invalid_argument("structxlip_loss: image is " + tensor_shape_text(image) +
                                ", must be [B, E]");
  }
  check_like(image, text, "text");
  check_like(image, structure, "structure");
  check_like(image, filtered, "filtered");
  if (!scale.defined() || scale.numel() != 1) {
    throw std::invalid_argument("structxlip_loss: scale is " + tensor_shape_text(scale) +
                                ", must be one element");
  }
  check_weight(weights.structure, "structure");
  check_weight(weights.consistency, "consistency");
  check_weight(weights.local, "local");
  StructxlipLoss out;
  out.global_term = hn ? hn_contrastive_loss(image, text, scale, gamma, text_for_g).loss
                       : hn_contrastive_loss(image, text, scale, 0.0, at::Tensor()).loss;
  out.structure_term = info_nce_loss(structure, filtered, scale);
  // PyTorch's own CosineEmbeddingLoss with target 1, mean(1 − cos): the cosine's gradient keeps to
  // the unit sphere, where a plain dot product's would not.
  namespace F = torch::nn::functional;
  out.consistency_term = F::cosine_embedding_loss(
      image, structure, torch::ones({image.size(0)}, image.options()),
      F::CosineEmbeddingLossFuncOptions().margin(0.0).reduction(torch::kMean));
  if (empty_or_undefined(segment_edges) && empty_or_undefined(chunks) &&
      empty_or_undefined(chunk_owner)) {
    out.local_term = torch::zeros({}, image.options());
  } else {
    if (segment_edges.defined() && segment_edges.dim() == 2 &&
        segment_edges.size(1) != image.size(1)) {
      throw std::invalid_argument("structxlip_loss: segment_edges is " + tensor_shape_text(segment_edges) +
                                  " but image is " + tensor_shape_text(image) + "; E must agree");
    }
    out.local_term = multi_positive_info_nce(segment_edges, chunks, chunk_owner, scale);
  }
  out.loss = out.global_term + weights.structure * out.structure_term +
             weights.consistency * out.consistency_term + weights.local * out.local_term;
  return out;
}

}  // namespace hnclip
