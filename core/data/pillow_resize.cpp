#include "data/pillow_resize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip {
namespace {

constexpr double kBicubicA = -0.5;          // Pillow's bicubic kernel parameter (Keys' a)
constexpr double kBicubicSupport = 2.0;     // kernel radius in source pixels when not shrinking
constexpr int kPrecisionBits = 32 - 8 - 2;  // weight fraction bits: 8 for the value, 2 for overshoot
constexpr int32_t kRoundingHalf = int32_t{1} << (kPrecisionBits - 1);  // accumulator start: rounds
constexpr double kOne = static_cast<double>(int32_t{1} << kPrecisionBits);  // 1.0 in fixed point

// Written with Pillow's operation order so the doubles, and hence the rounded integer weights, are
// bit-identical (the build uses -std=c++17, where GCC does not contract into FMAs).
double bicubic(double x) {
  if (x < 0.0) x = -x;
  if (x < 1.0) return ((kBicubicA + 2.0) * x - (kBicubicA + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * kBicubicA;
  return 0.0;
}

// The taps of one 1-D pass: output position i reads count[i] consecutive source samples starting
// at first[i], weighted by weights[i * width + j] (fixed point).
struct Taps {
  int width = 0;  // weights stored per output position (the most any position uses)
  std::vector<int> first;
  std::vector<int> count;
  std::vector<int32_t> weights;
};

Taps compute_taps(int in_size, int out_size) {
  // Pillow's box is (0, in_size) as floats; in_size - 0 is exact for any image size.
  const double scale = static_cast<double>(in_size) / out_size;
  // Shrinking stretches the kernel over `scale` source pixels per output pixel (antialiasing).
  const double filter_scale = std::max(scale, 1.0);
  const double support = kBicubicSupport * filter_scale;
  const double inv_filter_scale = 1.0 / filter_scale;

  Taps t;
  t.width = static_cast<int>(std::ceil(support)) * 2 + 1;
  t.first.resize(static_cast<size_t>(out_size));
  t.count.resize(static_cast<size_t>(out_size));
  t.weights.assign(static_cast<size_t>(out_size) * static_cast<size_t>(t.width), 0);
  std::vector<double> w(static_cast<size_t>(t.width));
  for (int i = 0; i < out_size; ++i) {
    const double center = (i + 0.5) * scale;
    // Pillow rounds the window ends with a truncating cast (toward zero), then clamps.
    const int lo = std::max(static_cast<int>(center - support + 0.5), 0);
    const int hi = std::min(static_cast<int>(center + support + 0.5), in_size);
    const int n = hi - lo;
    if (n < 1 || n > t.width) {
      throw std::logic_error("pillow_resize: tap window of " + std::to_string(n) + " samples at " +
                             std::to_string(i) + " (in " + std::to_string(in_size) + ", out " +
                             std::to_string(out_size) + ")");
    }
    double sum = 0.0;
    for (int j = 0; j < n; ++j) {
      w[j] = bicubic((j + lo - center + 0.5) * inv_filter_scale);
      sum += w[j];
    }
    int32_t* out = &t.weights[static_cast<size_t>(i) * static_cast<size_t>(t.width)];
    for (int j = 0; j < n; ++j) {
      const double normalised = sum != 0.0 ? w[j] / sum : w[j];
      // Round half away from zero, as Pillow's (int)(x +- 0.5).
      out[j] = normalised < 0 ? static_cast<int32_t>(-0.5 + normalised * kOne)
                              : static_cast<int32_t>(0.5 + normalised * kOne);
    }
    t.first[i] = lo;
    t.count[i] = n;
  }
  return t;
}

// Fixed point -> 8 bits: floor (arithmetic shift), then clamp, like Pillow's clip8 table.
inline uint8_t clip8(int32_t acc) {
  const int32_t v = acc >> kPrecisionBits;
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// dst(r, c) = horizontal resample of src row (row0 + r) at output column (col0 + c).
template <int C>
void horizontal_pass(const cv::Mat& src, int row0, const Taps& taps, int col0, cv::Mat& dst) {
  for (int r = 0; r < dst.rows; ++r) {
    const uint8_t* in = src.ptr<uint8_t>(row0 + r);
    uint8_t* out = dst.ptr<uint8_t>(r);
    for (int c = 0; c < dst.cols; ++c) {
      const int x = col0 + c;
      const int32_t* w = &taps.weights[static_cast<size_t>(x) * static_cast<size_t>(taps.width)];
      const uint8_t* p = in + static_cast<ptrdiff_t>(taps.first[x]) * C;
      const int n = taps.count[x];
      int32_t acc[C];
      for (int ch = 0; ch < C; ++ch) acc[ch] = kRoundingHalf;
      for (int j = 0; j < n; ++j) {
        for (int ch = 0; ch < C; ++ch) acc[ch] += p[j * C + ch] * w[j];
      }
      for (int ch = 0; ch < C; ++ch) out[c * C + ch] = clip8(acc[ch]);
    }
  }
}

// dst(r, c) = vertical resample at output row (row0 + r) of `src`, whose row 0 is source row
// `src_row0`. Accumulates whole rows (same additions per pixel, in the same order, as Pillow).
void vertical_pass(const cv::Mat& src, int src_row0, const Taps& taps, int row0, cv::Mat& dst) {
  const int values = dst.cols * dst.channels();
  std::vector<int32_t> acc(static_cast<size_t>(values));
  for (int r = 0; r < dst.rows; ++r) {
    const int y = row0 + r;
    const int32_t* w = &taps.weights[static_cast<size_t>(y) * static_cast<size_t>(taps.width)];
    std::fill(acc.begin(), acc.end(), kRoundingHalf);
    for (int j = 0; j < taps.count[y]; ++j) {
      const uint8_t* in = src.ptr<uint8_t>(taps.first[y] - src_row0 + j);
      const int32_t wj = w[j];
      for (int k = 0; k < values; ++k) acc[k] += in[k] * wj;
    }
    uint8_t* out = dst.ptr<uint8_t>(r);
    for (int k = 0; k < values; ++k) out[k] = clip8(acc[k]);
  }
}

void horizontal_pass_any(const cv::Mat& src, int row0, const Taps& taps, int col0, cv::Mat& dst) {
  switch (src.channels()) {
    case 1: return horizontal_pass<1>(src, row0, taps, col0, dst);
    case 2: return horizontal_pass<2>(src, row0, taps, col0, dst);
    case 3: return horizontal_pass<3>(src, row0, taps, col0, dst);
    default: return horizontal_pass<4>(src, row0, taps, col0, dst);
  }
}

}  // namespace

cv::Mat pillow_resize(const cv::Mat& src, cv::Size size) {
  return pillow_resize(src, size, cv::Rect(0, 0, size.width, size.height));
}

cv::Mat pillow_resize(const cv::Mat& src, cv::Size size, cv::Rect window) {
  if (src.empty() || src.depth() != CV_8U || src.channels() > 4) {
    throw std::invalid_argument("pillow_resize: expected a non-empty 8-bit image with 1-4 channels");
  }
  if (size.width <= 0 || size.height <= 0) {
    throw std::invalid_argument("pillow_resize: output size must be positive, got " +
                                std::to_string(size.width) + "x" + std::to_string(size.height));
  }
  if (window.empty() || (window & cv::Rect(0, 0, size.width, size.height)) != window) {
    throw std::invalid_argument("pillow_resize: window must be a non-empty part of the output");
  }
  // Pillow skips a pass whose size does not change; the other pass then reads the source as is.
  const bool need_horizontal = size.width != src.cols;
  const bool need_vertical = size.height != src.rows;

  // Source rows the window's output rows read (all passes are monotone in position).
  Taps vertical;
  int row_first = window.y;
  int row_end = window.y + window.height;
  if (need_vertical) {
    vertical = compute_taps(src.rows, size.height);
    row_first = vertical.first[window.y];
    row_end = 0;
    for (int y = window.y; y < window.y + window.height; ++y) {
      row_first = std::min(row_first, vertical.first[y]);
      row_end = std::max(row_end, vertical.first[y] + vertical.count[y]);
    }
  }

  // The 8-bit intermediate: those source rows, at the window's output columns.
  cv::Mat rows;
  if (need_horizontal) {
    const Taps horizontal = compute_taps(src.cols, size.width);
    rows.create(row_end - row_first, window.width, src.type());
    horizontal_pass_any(src, row_first, horizontal, window.x, rows);
  } else {
    rows = src(cv::Rect(window.x, row_first, window.width, row_end - row_first));
  }
  if (!need_vertical) return need_horizontal ? rows : rows.clone();

  cv::Mat out(window.height, window.width, src.type());
  vertical_pass(rows, row_first, vertical, window.y, out);
  return out;
}

}  // namespace hnclip
