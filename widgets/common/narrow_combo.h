#pragma once
// A combo box whose items come from the data (run names, benchmarks, checkpoints) must not size
// the window by them. Qt's default sizes a combo to its longest item, so one run named with 90
// characters made the Captions tab, and with it the window, 1323 pixels wide at the least: wider
// than a 1024-pixel screen, and the window grew while it was open. Such a combo is as wide as
// `characters` and stretches when there is room; its list still opens wide enough for every item,
// and its tooltip starts with the current item's full text. NarrowComboBox also elides the shown
// item in the middle.

#include <QComboBox>
#include <QString>

class QStyleOptionComboBox;

namespace hnclip::gui {

// Sizes `combo` by `characters` rather than by its items. Its tooltip, asked for, shows the
// current item's full text, then the combo's own tooltip (what it picks), if it has one.
void make_narrow_combo(QComboBox* combo, int characters);

// A narrow combo (make_narrow_combo applied) that shows its current item elided in the middle:
// a plain combo cuts it at the right edge, where what tells runs apart stands ("· seed 2",
// "(#12)"). GUI thread only.
class NarrowComboBox : public QComboBox {
 public:
  NarrowComboBox(int characters, QWidget* parent = nullptr);
  // The current item's text as painted: whole when it fits, else its two ends around "…".
  QString shownText() const;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QString elided(const QStyleOptionComboBox& option) const;
};

}  // namespace hnclip::gui
