#include "widgets/train/training_chart_look.h"

#include "train/probe_summary.h"

namespace hnclip::gui {

const std::vector<TrainingChartLook>& training_chart_looks() {
  using SS = QCPScatterStyle;
  static const std::vector<TrainingChartLook> kLooks = {
      {"Training loss",
       "loss (nats)",
       true,
       {{"boosted", Qt::SolidLine, SS::ssNone}, {"standard", Qt::DashLine, SS::ssNone}},
       false,
       false,
       kSolvedLoss,
       "The optimised loss (boosted) and plain InfoNCE on the same batch; the dotted line is the "
       "\"solved\" threshold 1e-3."},
      {"Gradient norm (probes)",
       "‖∇θ‖₂ (zero → 1e-10, ⊗)",
       true,
       {{"boosted", Qt::SolidLine, SS::ssNone}, {"standard", Qt::DashLine, SS::ssNone}}},
      {"Gradient ratio boosted / standard",
       "ratio (×)",
       true,
       {{"ratio", Qt::SolidLine, SS::ssNone}}},
      {"Gradient cosine standard vs boosted",
       "cosine",
       false,
       {{"cosine", Qt::SolidLine, SS::ssNone}}},
      {"Solved steps and zero gradients per epoch",
       "fraction",
       false,
       {{"solved (every step)", Qt::SolidLine, SS::ssDisc},
        {"zero grad. (probes)", Qt::DashLine, SS::ssSquare}},
       true,
       false,
       0,
       "Solved: the fraction of the epoch's steps whose plain InfoNCE loss is below 1e-3 (every "
       "step, as the CLI prints it). Zero gradient: the fraction of gradient probes whose fp32 "
       "standard gradient norm is exactly 0."},
      {"Learning rate", "learning rate", false, {{"lr", Qt::SolidLine, SS::ssNone}}},
      {"Recall per epoch (t2i solid, i2t dashed)",
       "recall (%)",
       false,
       {{"t2i R@1", Qt::SolidLine, SS::ssDisc},
        {"t2i R@5", Qt::SolidLine, SS::ssSquare},
        {"t2i R@10", Qt::SolidLine, SS::ssTriangle},
        {"i2t R@1", Qt::DashLine, SS::ssCircle},
        {"i2t R@5", Qt::DashLine, SS::ssDiamond},
        {"i2t R@10", Qt::DashLine, SS::ssTriangleInverted}}},
      {"Where the gradient goes \u2014 plain InfoNCE",
       "share of negatives' gradient, by \u1e20",
       false,
       {},
       true,
       true,
       0,
       "Per epoch (mean over its gradient probes): how the gradient on the negatives' logits "
       "(their softmax probabilities) splits over the negatives' caption similarity \u1e20, under "
       "plain InfoNCE logits s\u00b7S. Both directions pooled. One bar per run, outlined in the "
       "run's colour."},
      {"Where the gradient goes \u2014 boosted (s\u00b7(S + \u03b3\u1e20))",
       "share of negatives' gradient, by \u1e20",
       false,
       {},
       true,
       true,
       0,
       "The same split under the boosted logits the run optimises: the margins \u03b3\u1e20 move "
       "the gradient towards near-twin negatives (high \u1e20). Equal to the plain chart for "
       "\u03b3 = 0."},
      {"Loss terms (framework runs)",
       "term (nats, unweighted)",
       true,
       {{"global", Qt::SolidLine, SS::ssNone},
        {"token", Qt::DashDotLine, SS::ssNone},
        {"short", Qt::DashLine, SS::ssNone},
        {"augmented", Qt::DotLine, SS::ssNone},
        {"fine", Qt::DashDotDotLine, SS::ssNone},
        {"crop", Qt::DashLine, SS::ssCircle},
        {"patch", Qt::DotLine, SS::ssSquare},
        {"span", Qt::DashDotLine, SS::ssTriangle},
        {"structure", Qt::DashLine, SS::ssDiamond},
        {"consistency", Qt::DotLine, SS::ssCross},
        {"local", Qt::DashDotLine, SS::ssPlus}},
       false,
       false,
       0,
       "What the optimised loss is made of when it has more than the global term: each term "
       "before its weight. global: the term the HN margins replace (Long-CLIP's long-caption "
       "branch); token: the token-level term; short: Long-CLIP's short-caption branch; "
       "augmented: DeBias-CLIP's augmented-caption branch; fine: FineLIP's fine-grained triplet "
       "loss (summed over the batch); crop, patch, span: GOAL's crop-image \u2194 sentence CLIP "
       "term, box tokens \u2194 crop and sentence span \u2194 sentence cosine terms; structure, "
       "consistency, local: StructXLIP's edge map \u2194 filtered caption CLIP term, RGB \u2194 "
       "edge map cosine term and edge segments \u2194 caption chunks term. Shown once a run "
       "records terms."},
  };
  return kLooks;
}

}  // namespace hnclip::gui
