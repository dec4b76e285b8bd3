#include "widgets/common/hardness_buckets.h"

#include <algorithm>

namespace hnclip::gui {
namespace {
const char* const kNames[kHardnessBuckets] = {"<0.5", "0.5\u20130.7", "0.7\u20130.8",
                                              "0.8\u20130.9", "\u22650.9"};
// Grey, blue, amber, orange, red: readable on light and dark backgrounds.
const QColor kColors[kHardnessBuckets] = {QColor(0x9c, 0xa3, 0xaf), QColor(0x60, 0xa5, 0xfa),
                                          QColor(0xfb, 0xbf, 0x24), QColor(0xf9, 0x73, 0x16),
                                          QColor(0xdc, 0x26, 0x26)};
int clamp_bucket(int b) { return std::clamp(b, 0, kHardnessBuckets - 1); }
}  // namespace

QString hardness_bucket_name(int bucket) { return QString::fromUtf8(kNames[clamp_bucket(bucket)]); }

QColor hardness_bucket_color(int bucket) { return kColors[clamp_bucket(bucket)]; }

}  // namespace hnclip::gui
