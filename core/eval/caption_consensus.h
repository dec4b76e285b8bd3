#pragma once
// Caption consensus at evaluation (text→image): a query caption's score for an image fuses its
// similarity to the image with its similarity to the image's *other* captions,
//
//   fused(q, i) = (1 − α) · ⟨q, v_i⟩ + α · mean_{c ∈ captions(i), c ≠ q} ⟨q, t_c⟩,
//
// so an image whose other captions say what the query says is pulled up. The query caption is
// never among the captions it is compared with (it would make its own image win at α = 1 by
// matching itself). An image with no other caption — the query's own image when every image has
// one caption, the leave-one-out case — has no consensus term: its fused score is its image
// score, so α only moves the other candidates. α = 0 is the plain image score.

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

#include "eval/retrieval_metrics.h"

namespace hnclip {

// Throws std::invalid_argument unless 0 <= α <= 1 (the flag's own check names the flag).
void check_consensus_alpha(double alpha);

// The fused scores of query captions [from, to) against every image: [to − from, num_images].
// captions: [C, d] and images: [I, d], L2-normalised; caption_image[c]: the image of caption c.
at::Tensor caption_consensus_scores(const at::Tensor& captions, const at::Tensor& images,
                                    const std::vector<int64_t>& caption_image, double alpha,
                                    int64_t from, int64_t to);

// Text→image recall with the fused scores (direction "t2i_consensus"); every caption is a query
// and its own image its ground truth, as in the plain ranking.
RetrievalResult rank_with_caption_consensus(const at::Tensor& captions, const at::Tensor& images,
                                            const std::vector<int64_t>& caption_image,
                                            double alpha, const RetrievalOptions& options = {});

// How many captions have no other caption on their own image (their own image gets no consensus).
int64_t captions_without_siblings(const std::vector<int64_t>& caption_image, int64_t num_images);

}  // namespace hnclip
