#include "widgets/train/given_values.h"

namespace hnclip::gui {

void GivenValues::remember(const QObject* editor, double given, double shown) {
  given_[editor] = {given, shown};
}

double GivenValues::value(const QObject* editor, double shown) const {
  const auto it = given_.find(editor);
  // Compared exactly: the editor returns the very double it rounded to, until it is edited.
  return it != given_.end() && it->second.shown == shown ? it->second.given : shown;
}

}  // namespace hnclip::gui
