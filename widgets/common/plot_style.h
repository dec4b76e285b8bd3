#pragma once
// The look every chart of the workbench shares: axes, grid and legend coloured from the widget's
// palette (so --dark and a desktop's dark theme give readable charts), and a slightly smaller font
// for tick labels, axis labels and legend, so charts in a grid leave room for the data.

class QCustomPlot;
class QFont;
class QPalette;

namespace hnclip::gui {

// Colours axes, ticks, grid, background and legend from `palette`; call again on PaletteChange.
void apply_plot_palette(QCustomPlot* plot, const QPalette& palette);
// Tick labels, axis labels and legend at 85% of `base`, legend rows packed.
void apply_plot_fonts(QCustomPlot* plot, const QFont& base);

}  // namespace hnclip::gui
