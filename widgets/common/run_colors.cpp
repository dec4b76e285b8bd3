#include "widgets/common/run_colors.h"

#include <cmath>

namespace hnclip::gui {
namespace {
constexpr double kGoldenAngleDegrees = 137.50776405;  // consecutive ids land far apart in hue
constexpr int kSaturation = 200;                      // strong enough to tell apart, not neon
constexpr int kValue = 210;  // mid brightness: visible on white and on dark grey
}  // namespace

QColor run_color(int64_t run_id) {
  const double hue = std::fmod(static_cast<double>(run_id) * kGoldenAngleDegrees, 360.0);
  return QColor::fromHsv(static_cast<int>(hue), kSaturation, kValue);
}

}  // namespace hnclip::gui
