#pragma once
// The narrowest screen the workbench is laid out for is 1024 pixels wide (XGA; a 1366-pixel
// laptop at 125 % scaling offers 1093). The window is a tab page beside the run dock (76 pixels at
// its narrowest) in a frame, so no tab page, nor any row of one, may need more than this, however
// long the names of the runs it lists.

namespace hnclip::test {

constexpr int kTabWidthBudget = 900;

}  // namespace hnclip::test
