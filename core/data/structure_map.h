#pragma once
// StructXLIP's structure map: the image's edges, found with OpenCV's Canny, drawn white on black.
// StructXLIP encodes it with the image tower and matches it to the caption with its colour,
// material and texture words removed (that caption side lives with the text code, not here). The
// map is an ordinary 8-bit BGR image of the input's size, so it goes through
// ImagePipeline::process (data/image_pipeline.h) unchanged and the image tower sees it like any
// other image.
//
// Edges are found on the colour image, not on a grey conversion: at each pixel Canny takes the
// gradient of the channel where it is strongest (OpenCV's multi-channel Canny). Structure is what
// separates regions, whatever their colours; a grey conversion would lose the outline between two
// colours of about the same brightness (in the built-in benchmark a green object on the grey
// background differs by 6 grey levels; a third of the benchmark's objects lost every edge that
// way).
// A grey input gives exactly the map of its BGR conversion.
//
// StructXLIP's paper and code were not available when this was written, so the defaults below
// follow common Canny practice rather than its settings; each says why it was chosen.
// Threading: a free function without state; safe to call from several threads.

#include <opencv2/core/mat.hpp>

namespace hnclip {

struct StructureMapOptions {
  // Hysteresis thresholds on the gradient magnitude: a pixel above high_threshold starts an edge,
  // one above low_threshold continues it. Fixed, the OpenCV tutorial's cv::Canny(img, 100, 200),
  // rather than the "auto Canny" 0.67 / 1.33 x the median intensity: with the 3x3 Sobel aperture
  // a straight step of h levels has magnitude 4h, so these mean "an edge starts at a step of more
  // than 50 levels in some channel and continues down to 25" in every image, a contrast. The
  // median rule scales with brightness instead: a dark photo (median near 0) turns every ripple
  // of noise into an edge, and a bright one asks for far more contrast than a dim one. Either is
  // a pure function of the image; on the built-in benchmark both give the same maps.
  double low_threshold = 100.0;
  double high_threshold = 200.0;
  // Sobel aperture: 3, 5 or 7. Magnitudes grow quickly with it (rescale the thresholds).
  int aperture = 3;
  // Magnitude as sqrt(dx^2 + dy^2) rather than OpenCV's default |dx| + |dy|: the L1 norm makes a
  // diagonal edge up to sqrt(2) stronger than an upright one of the same contrast, so a circle's
  // or triangle's outline would pass the thresholds unevenly around it.
  bool l2_gradient = true;
  // Standard deviation, in pixels, of a Gaussian blur before Canny; 0 = none. None by default:
  // the tutorial's 100/200 are meant for the unblurred image, Canny's Sobel aperture already
  // smooths along the edge ([1 2 1]), and the built-in benchmark's 48x48 images are noise-free
  // with outlines 1.25-2 px wide, where a 1-px blur (scikit-image's default) cost about a tenth
  // of the objects every edge and merged some hollow objects' inner and outer outlines. For
  // noisy or grainy photos set about 1.0.
  double blur_sigma = 0.0;
};

// The structure map of an 8-bit grey, BGR or BGRA image (alpha is dropped, as
// ImagePipeline::process drops it): a new CV_8UC3 image of the same size, (255, 255, 255) on edge
// pixels and (0, 0, 0) elsewhere. Deterministic: the same image and options give the same bytes.
// The input is not modified. Throws std::invalid_argument naming what is wrong for an empty
// image, a depth other than 8-bit, a channel count other than 1, 3 or 4, or an option out of
// range (a negative or non-finite threshold or blur_sigma, low_threshold above high_threshold,
// an aperture other than 3, 5 or 7).
cv::Mat structure_map(const cv::Mat& bgr, const StructureMapOptions& options = {});

}  // namespace hnclip
