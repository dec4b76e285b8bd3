// Tests core/train/family_batches: families from group ids, nearest-neighbour clusters for data
// without groups, restriction to a subset, and packing into full batches that keep families
// whole (a family is split only when nothing else fits, at most one per batch boundary).

#include "train/family_batches.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <set>

namespace hnclip {
namespace {

TEST(FamilyBatches, FamiliesFromGroupsKeepFirstAppearanceAndSingletons) {
  const auto f = families_from_groups({"a", "b", "a", "", "b", "c", ""});
  const ImageFamilies want{{0, 2}, {1, 4}, {3}, {5}, {6}};
  EXPECT_EQ(f, want);
}

TEST(FamilyBatches, NearestNeighbourFamiliesClusterNearCaptionsUpToTheSize) {
  // Three tight pairs of directions and one loner; a fourth member of a pair's direction would be
  // joined too, but never beyond max_size.
  auto dirs = torch::eye(4);
  std::vector<torch::Tensor> rows;
  const std::vector<int64_t> of{0, 1, 0, 2, 1, 2, 3};
  for (size_t i = 0; i < of.size(); ++i) rows.push_back(dirs[of[i]] + 0.01 * static_cast<double>(i) * dirs[(of[i] + 1) % 4]);
  auto f = torch::nn::functional::normalize(torch::stack(rows),
                                            torch::nn::functional::NormalizeFuncOptions().dim(1));
  const auto families = nearest_neighbour_families(f, 2, 2);
  const ImageFamilies want{{0, 2}, {1, 4}, {3, 5}, {6}};
  EXPECT_EQ(families, want);
  // With max_size 1 every image stands alone.
  EXPECT_EQ(nearest_neighbour_families(f, 1, 3).size(), of.size());
  // Deterministic.
  EXPECT_EQ(nearest_neighbour_families(f, 3, 3), nearest_neighbour_families(f, 3, 3));
  for (const auto& fam : nearest_neighbour_families(f, 3, 3)) EXPECT_LE(fam.size(), 3u);
}

TEST(FamilyBatches, RestrictKeepsOrderAndDropsEmptyFamilies) {
  const ImageFamilies f{{0, 2}, {1, 4}, {3}, {5, 6}};
  const ImageFamilies want{{2}, {1, 4}, {6}};
  EXPECT_EQ(restrict_families(f, {1, 2, 4, 6}), want);
}

TEST(FamilyBatches, PackFillsEveryBatchAndKeepsFamiliesWhole) {
  // 100 families of sizes 2..4 in a fixed order.
  ImageFamilies families;
  std::vector<int64_t> family_of;
  int64_t next = 0;
  for (int f = 0; f < 100; ++f) {
    const int size = 2 + (f * 7) % 3;
    families.emplace_back();
    for (int k = 0; k < size; ++k) {
      families.back().push_back(next++);
      family_of.push_back(f);
    }
  }
  const int64_t total = next, b = 16;
  const auto batches = pack_family_batches(families, b);
  ASSERT_EQ(static_cast<int64_t>(batches.size()), total / b);  // same coverage as random batches
  std::set<int64_t> seen;
  std::map<int64_t, int> batches_of_family;
  for (const auto& batch : batches) {
    EXPECT_EQ(static_cast<int64_t>(batch.size()), b);
    std::set<int64_t> families_here;
    for (auto i : batch) {
      EXPECT_TRUE(seen.insert(i).second) << "image " << i << " twice";
      families_here.insert(family_of[static_cast<size_t>(i)]);
    }
    for (auto fam : families_here) ++batches_of_family[fam];
  }
  int split = 0;
  for (const auto& [fam, n] : batches_of_family) {
    EXPECT_LE(n, 2) << "family " << fam;
    split += n > 1;
  }
  EXPECT_LE(split, static_cast<int>(batches.size()));  // at most one per batch boundary
  EXPECT_EQ(static_cast<int64_t>(seen.size()), total / b * b);
  // Same-family pairs: nearly every family is whole, so the batches hold about all of them.
  int64_t pairs = 0, all_pairs = 0;
  for (const auto& batch : batches) pairs += same_family_pairs(batch, family_of);
  for (const auto& fam : families) all_pairs += static_cast<int64_t>(fam.size() * (fam.size() - 1) / 2);
  EXPECT_GT(pairs, all_pairs * 8 / 10);
}

TEST(FamilyBatches, PackSplitsAFamilyOnlyWhenNothingFits) {
  // Batch 4 from families of 3: every batch must split one.
  const ImageFamilies families{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}};
  const auto batches = pack_family_batches(families, 4);
  // {3,4,5} fits nowhere after {0,1,2}: split; then {4,5} fits and {6,7,8} is split; and so on.
  const std::vector<std::vector<int64_t>> want{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}};
  EXPECT_EQ(batches, want);
  // A smaller family later in the order fills the gap before anything is split.
  const auto b2 = pack_family_batches({{0, 1, 2}, {3, 4, 5}, {6}}, 4);
  ASSERT_EQ(b2.size(), 1u);
  EXPECT_EQ(b2[0], (std::vector<int64_t>{0, 1, 2, 6}));
  EXPECT_THROW(pack_family_batches(families, 0), std::invalid_argument);
}

TEST(FamilyBatches, FamilyPairsInBatchesCountsThoseSharingABatch) {
  const ImageFamilies families{{0, 1, 2}, {3, 4}, {5}};
  // Family {0,1,2}: pairs (0,1) together, (0,2) (1,2) apart; {3,4} together; 5 alone; 6 unknown.
  const auto c = family_pairs_in_batches({{0, 1, 3, 4}, {2, 5, 6}}, families, 7);
  EXPECT_EQ(c.together, 2);
  EXPECT_EQ(c.total, 4);
  // Only images in the batches count: without image 2 family {0,1,2} has one pair.
  const auto d = family_pairs_in_batches({{0, 3}, {1, 4}}, families, 7);
  EXPECT_EQ(d.together, 0);
  EXPECT_EQ(d.total, 2);
}

TEST(FamilyBatches, SameFamilyPairsCountsPairs) {
  EXPECT_EQ(same_family_pairs({0, 1, 2, 3}, {7, 7, 7, 8}), 3);
  EXPECT_EQ(same_family_pairs({0, 3}, {7, 7, 7, 8}), 0);
}

}  // namespace
}  // namespace hnclip
