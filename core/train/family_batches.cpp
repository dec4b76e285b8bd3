#include "train/family_batches.h"

#include <torch/torch.h>

#include <algorithm>
#include <list>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace hnclip {

namespace {
constexpr int64_t kSimilarityRows = 1024;  // rows of the n x n cosine matrix held at once

// Union–find over image indices with the size of each root's set.
class DisjointSets {
 public:
  explicit DisjointSets(int64_t n) : parent_(static_cast<size_t>(n)), size_(static_cast<size_t>(n), 1) {
    std::iota(parent_.begin(), parent_.end(), int64_t{0});
  }
  int64_t find(int64_t x) {
    while (parent_[static_cast<size_t>(x)] != x) {
      auto& p = parent_[static_cast<size_t>(x)];
      p = parent_[static_cast<size_t>(p)];  // path halving
      x = p;
    }
    return x;
  }
  int64_t size(int64_t root) const { return size_[static_cast<size_t>(root)]; }
  void unite(int64_t a, int64_t b) {  // a, b: distinct roots
    if (size(a) < size(b) || (size(a) == size(b) && b < a)) std::swap(a, b);
    parent_[static_cast<size_t>(b)] = a;
    size_[static_cast<size_t>(a)] += size_[static_cast<size_t>(b)];
  }

 private:
  std::vector<int64_t> parent_;
  std::vector<int64_t> size_;
};
}  // namespace

ImageFamilies families_from_groups(const std::vector<std::string>& group_of_image) {
  ImageFamilies families;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < group_of_image.size(); ++i) {
    const auto& g = group_of_image[i];
    const auto image = static_cast<int64_t>(i);
    if (g.empty()) {
      families.push_back({image});
      continue;
    }
    const auto [it, added] = index.emplace(g, families.size());
    if (added) families.emplace_back();
    families[it->second].push_back(image);
  }
  return families;
}

ImageFamilies nearest_neighbour_families(const at::Tensor& features, int64_t max_size,
                                         int64_t neighbours) {
  if (features.dim() != 2) throw std::invalid_argument("nearest_neighbour_families: features must be [n, d]");
  if (max_size < 1 || neighbours < 1)
    throw std::invalid_argument("nearest_neighbour_families: max_size and neighbours must be >= 1");
  torch::NoGradGuard no_grad;
  const auto f = features.to(torch::kCPU, torch::kFloat).contiguous();
  const int64_t n = f.size(0);
  const int64_t k = std::min(neighbours, n - 1);
  struct Edge {
    float cosine;
    int64_t i, j;
  };
  std::vector<Edge> edges;
  if (k > 0) {
    edges.reserve(static_cast<size_t>(n * k));
    for (int64_t start = 0; start < n; start += kSimilarityRows) {
      const int64_t rows = std::min(kSimilarityRows, n - start);
      auto sim = torch::mm(f.narrow(0, start, rows), f.t());
      // An image is never its own neighbour.
      sim.narrow(1, start, rows).fill_diagonal_(-std::numeric_limits<float>::infinity());
      const auto top = sim.topk(k, 1);
      const auto values = std::get<0>(top).contiguous();
      const auto ids = std::get<1>(top).contiguous();
      const float* v = values.data_ptr<float>();
      const int64_t* id = ids.data_ptr<int64_t>();
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < k; ++c) {
          const int64_t a = start + r, b = id[r * k + c];
          edges.push_back({v[r * k + c], std::min(a, b), std::max(a, b)});
        }
      }
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
    return std::tie(y.cosine, x.i, x.j) < std::tie(x.cosine, y.i, y.j);  // cosine descending
  });
  DisjointSets sets(n);
  for (const auto& e : edges) {
    const auto a = sets.find(e.i), b = sets.find(e.j);
    if (a != b && sets.size(a) + sets.size(b) <= max_size) sets.unite(a, b);
  }
  // Families in order of their smallest image, each sorted.
  ImageFamilies families;
  std::unordered_map<int64_t, size_t> of_root;
  for (int64_t i = 0; i < n; ++i) {
    const auto [it, added] = of_root.emplace(sets.find(i), families.size());
    if (added) families.emplace_back();
    families[it->second].push_back(i);
  }
  return families;
}

ImageFamilies restrict_families(const ImageFamilies& families, const std::vector<int64_t>& subset) {
  ImageFamilies out;
  for (const auto& family : families) {
    std::vector<int64_t> kept;
    for (const auto image : family)
      if (std::binary_search(subset.begin(), subset.end(), image)) kept.push_back(image);
    if (!kept.empty()) out.push_back(std::move(kept));
  }
  return out;
}

std::vector<std::vector<int64_t>> pack_family_batches(const ImageFamilies& families_in_order,
                                                      int64_t batch_size) {
  if (batch_size < 1) throw std::invalid_argument("pack_family_batches: batch_size must be >= 1");
  std::list<std::vector<int64_t>> pending(families_in_order.begin(), families_in_order.end());
  pending.remove_if([](const std::vector<int64_t>& f) { return f.empty(); });
  int64_t left = 0;
  for (const auto& f : pending) left += static_cast<int64_t>(f.size());
  std::vector<std::vector<int64_t>> batches;
  while (left >= batch_size) {
    std::vector<int64_t> batch;
    batch.reserve(static_cast<size_t>(batch_size));
    for (auto it = pending.begin(); it != pending.end() && static_cast<int64_t>(batch.size()) < batch_size;) {
      if (static_cast<int64_t>(it->size()) <= batch_size - static_cast<int64_t>(batch.size())) {
        batch.insert(batch.end(), it->begin(), it->end());
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    if (static_cast<int64_t>(batch.size()) < batch_size) {
      // No whole family fits the space left: split the first pending one. `left` >= batch_size
      // guarantees it has enough images.
      auto& first = pending.front();
      const auto take = static_cast<size_t>(batch_size) - batch.size();
      batch.insert(batch.end(), first.begin(), first.begin() + static_cast<std::ptrdiff_t>(take));
      first.erase(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(take));
    }
    left -= batch_size;
    batches.push_back(std::move(batch));
  }
  return batches;
}

int64_t same_family_pairs(const std::vector<int64_t>& batch, const std::vector<int64_t>& family_of_image) {
  std::unordered_map<int64_t, int64_t> count;
  for (const auto image : batch) ++count[family_of_image.at(static_cast<size_t>(image))];
  int64_t pairs = 0;
  for (const auto& [family, c] : count) pairs += c * (c - 1) / 2;
  return pairs;
}

FamilyPairCount family_pairs_in_batches(const std::vector<std::vector<int64_t>>& batches,
                                        const ImageFamilies& families, int64_t num_images) {
  std::vector<int64_t> family_of(static_cast<size_t>(num_images), -1);
  for (size_t f = 0; f < families.size(); ++f)
    for (const auto image : families[f]) family_of.at(static_cast<size_t>(image)) = static_cast<int64_t>(f);
  std::unordered_map<int64_t, int64_t> seen;  // family -> its images among the batches
  FamilyPairCount out;
  for (const auto& batch : batches) {
    std::unordered_map<int64_t, int64_t> here;
    for (const auto image : batch) {
      const auto f = family_of.at(static_cast<size_t>(image));
      if (f < 0) continue;
      ++here[f];
      ++seen[f];
    }
    for (const auto& [f, c] : here) out.together += c * (c - 1) / 2;
  }
  for (const auto& [f, c] : seen) out.total += c * (c - 1) / 2;
  return out;
}

}  // namespace hnclip
