// Tests core/data/segment_patches: a box in the original image's pixels → the patches of the
// model's input it touches, through the pipeline's resize and centre crop — at the grid's edges,
// on patch boundaries (touching is not overlapping), in the cropped-off margin, and for images
// wider or taller than square.

#include "data/segment_patches.h"

#include <gtest/gtest.h>

namespace hnclip {
namespace {

using Patches = std::vector<int64_t>;

TEST(SegmentPatches, SquareImageAtTheInputSize) {
  // 48 x 48 input, 16-px patches: a 3 x 3 grid, no resize, no crop.
  EXPECT_EQ(segment_patches({0, 0, 16, 16}, 48, 48, 48, 16), (Patches{0}));
  EXPECT_EQ(segment_patches({0, 0, 17, 16}, 48, 48, 48, 16), (Patches{0, 1}));
  EXPECT_EQ(segment_patches({15, 15, 17, 17}, 48, 48, 48, 16), (Patches{0, 1, 3, 4}));
  // The bottom-right edge: the last patch, index 8, and nothing past the grid.
  EXPECT_EQ(segment_patches({40, 40, 48, 48}, 48, 48, 48, 16), (Patches{8}));
  EXPECT_EQ(segment_patches({32, 32, 48, 48}, 48, 48, 48, 16), (Patches{8}));
  EXPECT_EQ(segment_patches({0, 0, 48, 48}, 48, 48, 48, 16), (Patches{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  // A box starting exactly on a boundary does not touch the patch before it.
  EXPECT_EQ(segment_patches({16, 32, 32, 48}, 48, 48, 48, 16), (Patches{7}));
  // A one-pixel box in the middle of patch 4.
  EXPECT_EQ(segment_patches({20, 20, 21, 21}, 48, 48, 48, 16), (Patches{4}));
}

TEST(SegmentPatches, ResizedSquareImage) {
  // 96 x 96 → 48 x 48: coordinates halve; (32, 32)-(64, 64) becomes (16, 16)-(32, 32): patch 4.
  EXPECT_EQ(segment_patches({32, 32, 64, 64}, 96, 96, 48, 16), (Patches{4}));
  EXPECT_EQ(segment_patches({31, 32, 64, 64}, 96, 96, 48, 16), (Patches{3, 4}));
}

TEST(SegmentPatches, WideImageLosesItsSides) {
  // 96 x 48 → resized 96 x 48 (short side already 48), crop offset 24 on x.
  EXPECT_EQ(segment_patches({24, 0, 40, 16}, 96, 48, 48, 16), (Patches{0}));
  // A box wholly in the left margin the crop removes: no patch.
  EXPECT_TRUE(segment_patches({0, 0, 24, 48}, 96, 48, 48, 16).empty());
  EXPECT_TRUE(segment_patches({72, 0, 96, 10}, 96, 48, 48, 16).empty());
  // A box straddling the crop's right edge keeps its visible part: the last column.
  EXPECT_EQ(segment_patches({60, 0, 90, 10}, 96, 48, 48, 16), (Patches{2}));
}

TEST(SegmentPatches, TallImageLosesItsTopAndBottom) {
  // 48 x 100 → crop offset round((100 - 48) / 2) = 26 on y.
  EXPECT_EQ(segment_patches({0, 26, 16, 42}, 48, 100, 48, 16), (Patches{0}));
  EXPECT_EQ(segment_patches({0, 90, 48, 100}, 48, 100, 48, 16), (Patches{}));
  EXPECT_EQ(segment_patches({0, 73, 48, 100}, 48, 100, 48, 16), (Patches{6, 7, 8}));
}

TEST(SegmentPatches, RefusesBadSizes) {
  EXPECT_THROW(segment_patches({0, 0, 1, 1}, 0, 48, 48, 16), std::invalid_argument);
  EXPECT_THROW(segment_patches({0, 0, 1, 1}, 48, 48, 48, 20), std::invalid_argument);
}

}  // namespace
}  // namespace hnclip
