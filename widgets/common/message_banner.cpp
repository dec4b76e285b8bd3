#include "widgets/common/message_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>

namespace hnclip::gui {
namespace {
constexpr int kIconPx = 20;
}  // namespace

MessageBanner::MessageBanner(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("messageBanner"));
  setFrameShape(QFrame::StyledPanel);
  // ToolTipBase / ToolTipText: a contrasting pair every palette (and --dark) defines.
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::ToolTipBase);
  setForegroundRole(QPalette::ToolTipText);
  auto* row = new QHBoxLayout(this);
  icon_ = new QLabel(this);
  icon_->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(kIconPx, kIconPx));
  text_ = new QLabel(this);
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  text_->setForegroundRole(QPalette::ToolTipText);
  row->addWidget(icon_);
  row->addWidget(text_, 1);
  setVisible(false);
}

void MessageBanner::setMessage(const QString& text) {
  text_->setText(text);
  setVisible(!text.isEmpty());
}

QString MessageBanner::message() const { return isVisible() ? text_->text() : QString(); }

}  // namespace hnclip::gui
