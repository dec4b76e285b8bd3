#pragma once
// WorkbenchTab: what the main window asks of every tab, so it registers tabs instead of asking
// which widget is current (the shape of Tiled's Editor: state saving and standard actions live
// with the tab that knows them). A tab is a QWidget that also implements this interface; the
// window finds it with dynamic_cast on the current page.
// Threading: GUI thread only.

#include <QString>

class QSettings;

namespace hnclip::gui {

class WorkbenchTab {
 public:
  virtual ~WorkbenchTab() = default;

  // The tab was brought to the front: reread what may have changed while it was hidden.
  virtual void activated() {}
  // File → Export (Ctrl+E): ask what and where, write it. Returns a line for the status bar
  // ("Saved …"), empty when nothing was written (cancelled, or the error was already shown).
  virtual QString exportInteractive() = 0;
  // Edit → Find (Ctrl+F): focus the tab's search field; false when the tab has none (the window
  // then offers the Runs tab's filter).
  virtual bool focusSearch() { return false; }
  // The tab's own settings (splitters, options, selections), under keys it owns.
  virtual void saveState(QSettings& settings) const = 0;
  virtual void restoreState(QSettings& settings) = 0;
};

}  // namespace hnclip::gui
