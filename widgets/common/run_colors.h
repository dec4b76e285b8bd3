#pragma once
// One colour per run, the same in every plot and table of the workbench (and after a restart):
// derived from the run id alone, so no view has to agree with another on an assignment.

#include <cstdint>

#include <QColor>

namespace hnclip::gui {

// A well-separated hue for `run_id` (golden-angle steps), readable on light and dark palettes.
QColor run_color(int64_t run_id);

}  // namespace hnclip::gui
