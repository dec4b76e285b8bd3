#pragma once
// TowerOutputs: what a tower's forward returns besides the pooled feature. With the pooled
// feature alone the last block computes only the row that feature reads (the class token, a
// caption's end token): its other rows feed nothing, so leaving them out is exact and saves most
// of that block (queries, out-projection and MLP on every other row), about 1/layers of a tower.

namespace hnclip {

enum class TowerOutputs {
  Pooled,  // the pooled feature only; `hidden`, patches / tokens and the mask stay undefined
  Hidden,  // and the transformer's whole output (GOAL pools boxes and sentence spans of it)
  Tokens,  // and every position after the head (patches, word tokens and their mask) too
};

}  // namespace hnclip
