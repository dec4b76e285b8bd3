#pragma once
// GivenValues: the exact numbers a form was given, for editors that show them rounded (a spin
// box's decimals, a learning rate printed with %g). Reading an editor back gives the given value
// while the editor still shows what it was given, and the shown value once the user edits it —
// so "Same as run…" on a run with --weight-decay 0.12345 keeps 0.12345, not 0.1235.
// GUI thread only.

#include <map>

class QObject;

namespace hnclip::gui {

class GivenValues {
 public:
  void clear() { given_.clear(); }
  // `shown`: what the editor holds after being set to `given` (rounded as it displays it).
  void remember(const QObject* editor, double given, double shown);
  // `shown`: what the editor holds now.
  double value(const QObject* editor, double shown) const;

 private:
  struct Given {
    double given;
    double shown;
  };
  std::map<const QObject*, Given> given_;
};

}  // namespace hnclip::gui
