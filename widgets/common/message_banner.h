#pragma once
// MessageBanner: a warning strip across the top of the window for a problem that concerns every
// tab (a run database that cannot be opened), so it is not left to one tab's footer or the
// status bar. Hidden while there is nothing to say; the text is selectable, so a path can be
// copied. Palette colours only (readable in light and dark themes). GUI thread only.

#include <QFrame>
#include <QString>

class QLabel;

namespace hnclip::gui {

class MessageBanner : public QFrame {
  Q_OBJECT
 public:
  explicit MessageBanner(QWidget* parent = nullptr);
  // Shows the banner with `text`; an empty text hides it.
  void setMessage(const QString& text);
  QString message() const;

 private:
  QLabel* icon_ = nullptr;
  QLabel* text_ = nullptr;
};

}  // namespace hnclip::gui
