#pragma once
// 2-D tensors to and from JSON arrays of rows: how the tests hand cases to a python3-torch
// reference script and read its float64 results back. Header-only (the support library has no
// LibTorch).

#include <torch/torch.h>

#include <vector>

#include <nlohmann/json.hpp>

namespace hnclip::test {

inline nlohmann::json to_json_matrix(const torch::Tensor& t) {
  const auto a = t.detach().to(torch::kDouble).contiguous();
  nlohmann::json rows = nlohmann::json::array();
  for (int64_t i = 0; i < a.size(0); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int64_t j = 0; j < a.size(1); ++j) row.push_back(a[i][j].item<double>());
    rows.push_back(row);
  }
  return rows;
}

inline torch::Tensor from_json_matrix(const nlohmann::json& rows) {
  std::vector<double> flat;
  for (const auto& r : rows)
    for (const auto& v : r) flat.push_back(v.get<double>());
  return torch::tensor(flat, torch::kDouble).view({static_cast<int64_t>(rows.size()), -1});
}

// Any rank: nested arrays (a 0-d tensor is a number).
inline nlohmann::json to_json_array(const torch::Tensor& t) {
  const auto a = t.detach().to(torch::kDouble).contiguous();
  if (a.dim() == 0) return a.item<double>();
  nlohmann::json out = nlohmann::json::array();
  for (int64_t i = 0; i < a.size(0); ++i) out.push_back(to_json_array(a[i]));
  return out;
}

inline torch::Tensor from_json_array(const nlohmann::json& j) {
  if (j.is_number()) return torch::tensor(j.get<double>(), torch::kDouble);
  std::vector<torch::Tensor> parts;
  for (const auto& e : j) parts.push_back(from_json_array(e));
  return torch::stack(parts);
}

}  // namespace hnclip::test
