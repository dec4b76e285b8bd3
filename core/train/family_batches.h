#pragma once
// Family batches (batch_sampler = families): near-twin families of training images kept together
// inside a batch, so that the batch holds the hard negatives the HN margins single out. Random
// batches of 128 from 8,000 scenes rarely hold a near-twin pair; on real dense-caption sets nearly
// every batch does (mean pairwise caption cosine 0.84 in the paper).
//
// The pieces are plain functions so that each is tested alone; the Trainer shuffles the families
// with its seeded RNG and packs them. A family is a list of image indices of one split.

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

using ImageFamilies = std::vector<std::vector<int64_t>>;

// Families from each image's group id (data/sample.h `group`), in order of first appearance; an
// image with an empty group is a family of its own.
ImageFamilies families_from_groups(const std::vector<std::string>& group_of_image);

// Families for data without groups: clusters of each image's `neighbours` nearest images by
// cosine of `features` ([n, d], rows L2-normalised; the starting text encoder's caption features).
// The edges (i, j, cosine) are merged strongest first (ties: lower i, then lower j) as long as the
// merged cluster has at most `max_size` images, so a cluster is a chain of nearest neighbours.
// Deterministic for the same features.
ImageFamilies nearest_neighbour_families(const at::Tensor& features, int64_t max_size,
                                         int64_t neighbours);

// The families restricted to `subset` (sorted image indices, e.g. the data_fraction subset),
// empty ones dropped, order kept.
ImageFamilies restrict_families(const ImageFamilies& families, const std::vector<int64_t>& subset);

// Batches of exactly `batch_size` images from the families in the given order, as many as the
// images allow (floor(total / batch_size), like random batches, so an epoch covers the same number
// of images). Each batch takes, in order, every pending family that still fits whole; a family
// that fits nowhere waits for the next batch. Only when no pending family fits the space left is
// the next one split across two batches (at most one family per batch boundary). Images left over
// at the end are dropped, as random batches drop their last incomplete batch.
std::vector<std::vector<int64_t>> pack_family_batches(const ImageFamilies& families_in_order,
                                                      int64_t batch_size);

// How many pairs of images in `batch` share a family (for reporting what a sampler puts together).
int64_t same_family_pairs(const std::vector<int64_t>& batch, const std::vector<int64_t>& family_of_image);

// Of the near-twin pairs among the batches' images (pairs of one family), how many share a batch:
// the quantity batch_sampler changes. `num_images`: the split's size (family_of_image's domain).
struct FamilyPairCount {
  int64_t together = 0;
  int64_t total = 0;
};
FamilyPairCount family_pairs_in_batches(const std::vector<std::vector<int64_t>>& batches,
                                        const ImageFamilies& families, int64_t num_images);

}  // namespace hnclip
