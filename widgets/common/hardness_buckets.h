#pragma once
// The five Ḡ / caption-cosine hardness buckets of core/eval/caption_geometry.h (<0.5, 0.5-0.7,
// 0.7-0.8, 0.8-0.9, >=0.9) as the window shows them: a display name and a colour each, easy
// (grey) to near-twin (red). That header is LibTorch's side, so the widgets name them here.
// Threading: plain constants; any thread.

#include <QColor>
#include <QString>

namespace hnclip::gui {

constexpr int kHardnessBuckets = 5;
QString hardness_bucket_name(int bucket);  // "<0.5", "0.5–0.7", …, "≥0.9"
QColor hardness_bucket_color(int bucket);

}  // namespace hnclip::gui
