#pragma once
// The look every chart of the workbench shares: axes, grid and legend coloured from the widget's
// palette (so --dark and a desktop's dark theme give readable charts), and a slightly smaller font
// for tick labels, axis labels and legend, so charts in a grid leave room for the data.

class QAbstractButton;
class QCustomPlot;
class QFont;
class QPalette;

namespace hnclip::gui {

// Colours axes, ticks, grid, background and legend from `palette`; call again on PaletteChange.
void apply_plot_palette(QCustomPlot* plot, const QPalette& palette);
// Tick labels, axis labels and legend at 85% of `base`, legend rows packed.
void apply_plot_fonts(QCustomPlot* plot, const QFont& base);
// A chart's checkable toggle (log scale, follow) drawn in the palette's highlight colours while
// checked, so its state reads at a glance in light and dark palettes (Fusion's sunken look does
// not on a dark one). Call again on PaletteChange.
void apply_toggle_palette(QAbstractButton* button, const QPalette& palette);

}  // namespace hnclip::gui
