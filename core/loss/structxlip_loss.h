#pragma once
// StructXLIP's fine-tuning loss, as the workbench builds it (its paper and code were not
// available here; what is ours is said below and in the README). Besides matching each image to
// its caption, StructXLIP matches the image's *structure map* (its Canny edges,
// data/structure_map.h, encoded by the same image tower) to the caption with its colour, material
// and texture words removed (text/structure_word_list.h), since edges cannot show those:
//
//   L = global + w_s·structure + w_c·consistency + w_l·local
//   global      = CE(s·V Tᵀ) ⊕ CE(s·T Vᵀ)       (the HN-CLIP loss when the margins are on)
//   structure   = CE(s·E Fᵀ) ⊕ CE(s·F Eᵀ)       E the structure maps', F the filtered captions'
//   consistency = mean_i (1 − cos(V_i, E_i))     torch's CosineEmbeddingLoss with target 1
//   local       = multi-positive InfoNCE between edge segments and caption chunks (below)
//
// with CE the cross-entropy to the diagonal and ⊕ the mean of the two directions; the weights
// default to StructXLIP's published 0.5, 0.05 and 0.1.
//
// The local term: each edge segment k (the structure map cut to one object's box, encoded) has
// as positives the chunks of the sentence that describes that object (consecutive word n-grams of
// the filtered sentence, encoded alone), and every other chunk of the batch as a negative:
//   segment → chunks: −log( Σ_{j ∈ P(k)} exp(s·e_k·c_j) / Σ_j exp(s·e_k·c_j) )  (MIL-NCE's form:
//                     the positives' probabilities summed, so one well-matched chunk suffices)
//   chunk → segments: the ordinary cross-entropy to its own segment
// and the term is the mean of the two directions' means. The ordering of positives by word
// position, any hard-negative mining and StructXLIP's own chunking rule are not reproduced.

#include <ATen/core/Tensor.h>

namespace hnclip {

struct StructxlipWeights {
  double structure = 0.5;     // structure map ↔ filtered caption
  double consistency = 0.05;  // RGB ↔ structure embedding
  double local = 0.1;         // edge segments ↔ caption chunks
};

struct StructxlipLoss {
  at::Tensor loss;              // global + the weighted terms below, the optimised loss
  at::Tensor global_term;       // image ↔ caption (the HN loss when the margins are on)
  at::Tensor structure_term;    // structure map ↔ filtered caption, unweighted
  at::Tensor consistency_term;  // 1 − cos(RGB, structure), unweighted
  at::Tensor local_term;        // edge segments ↔ chunks, unweighted; 0 with no segments
};

// anchors [n, E], candidates [m, E] (L2-normalised), owner [m] int64: candidate j is a positive
// of anchor owner[j] and a negative of every other anchor. The two-direction multi-positive
// InfoNCE described above. Throws std::invalid_argument for mismatched shapes, an owner out of
// [0, n), or an anchor without any positive (naming it); n = 0 is refused too (no term).
at::Tensor multi_positive_info_nce(const at::Tensor& anchors, const at::Tensor& candidates,
                                   const at::Tensor& owner, const at::Tensor& scale);

// image, text, structure, filtered: [B, E] L2-normalised (image ↔ caption, structure map ↔
// filtered caption); segment_edges [n, E], chunks [m, E] and chunk_owner [m] as for
// multi_positive_info_nce, or all three undefined / empty for a batch without segments (the
// local term is then 0 and adds nothing); scale: s (one element). With hn the global term is
// hn_contrastive_loss(image, text, scale, gamma, text_for_g), else plain InfoNCE. Throws
// std::invalid_argument for shape mismatches, a weight that is negative or not finite, or
// (from the HN loss) a bad γ.
StructxlipLoss structxlip_loss(const at::Tensor& image, const at::Tensor& text,
                               const at::Tensor& structure, const at::Tensor& filtered,
                               const at::Tensor& segment_edges, const at::Tensor& chunks,
                               const at::Tensor& chunk_owner, const at::Tensor& scale, bool hn,
                               double gamma, const at::Tensor& text_for_g,
                               const StructxlipWeights& weights = {});

}  // namespace hnclip
