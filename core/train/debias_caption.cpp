#include "train/debias_caption.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace hnclip {

std::string debias_caption_text(const std::string& caption, double keep_ratio,
                                std::mt19937_64& rng) {
  if (!(keep_ratio > 0 && keep_ratio <= 1)) {
    throw std::invalid_argument("debias_caption_text: keep_ratio must be in (0, 1], not " +
                                std::to_string(keep_ratio));
  }
  const auto sentences = caption_sentences(caption);
  if (sentences.size() < 2) return caption;
  const auto n = static_cast<int64_t>(sentences.size()) - 1;
  const auto keep = std::max<int64_t>(1, std::llround(keep_ratio * static_cast<double>(n)));
  // A uniform subset of size `keep` (selection sampling), in the sentences' order.
  std::vector<size_t> chosen;
  int64_t needed = keep;
  for (int64_t i = 0; i < n && needed > 0; ++i) {
    const int64_t left = n - i;
    if (std::uniform_int_distribution<int64_t>(0, left - 1)(rng) < needed) {
      chosen.push_back(static_cast<size_t>(i + 1));
      --needed;
    }
  }
  std::string out;
  for (const size_t c : chosen) {
    if (!out.empty()) out += ". ";
    out += sentences[c];
  }
  return out;
}

std::vector<int64_t> token_lengths(const at::Tensor& tokens) {
  const auto eot = tokens.argmax(-1).to(torch::kCPU).contiguous();
  std::vector<int64_t> out(static_cast<size_t>(eot.size(0)));
  for (int64_t i = 0; i < eot.size(0); ++i) out[static_cast<size_t>(i)] = eot[i].item<int64_t>() + 1;
  return out;
}

at::Tensor prepend_padding(const at::Tensor& tokens, const std::vector<int64_t>& pad) {
  if (tokens.dim() != 2 || static_cast<int64_t>(pad.size()) != tokens.size(0)) {
    throw std::invalid_argument("prepend_padding: one padding count per token row");
  }
  const auto cpu = tokens.to(torch::kCPU, torch::kLong).contiguous();
  const int64_t rows = cpu.size(0), width = cpu.size(1);
  auto out = torch::zeros_like(cpu);
  const auto lengths = token_lengths(cpu);
  const int64_t* in = cpu.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t p = pad[static_cast<size_t>(r)];
    if (p < 0) throw std::invalid_argument("prepend_padding: a negative padding count");
    const int64_t len = lengths[static_cast<size_t>(r)];  // start … end token
    const int64_t* row = in + r * width;
    int64_t* dst = o + r * width;
    if (len < 2 || width < 2) {  // no room to move anything: the row as it was
      std::copy(row, row + width, dst);
      continue;
    }
    // Start token, p pads (at most what leaves room for the end token), the content, the end.
    const int64_t pads = std::min(p, width - 2);
    const int64_t content = std::min(len - 2, width - 2 - pads);
    dst[0] = row[0];
    std::copy(row + 1, row + 1 + content, dst + 1 + pads);
    dst[1 + pads + content] = row[len - 1];
  }
  return out.to(tokens.device());
}

}  // namespace hnclip
