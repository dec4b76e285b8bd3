#include "widgets/train/seed_edit.h"

#include <QRegularExpression>
#include <QRegularExpressionValidator>

namespace hnclip::gui {

namespace {
constexpr int kMaxDigits = 20;  // 18446744073709551615
}  // namespace

SeedEdit::SeedEdit(QWidget* parent) : QLineEdit(parent) {
  setValidator(new QRegularExpressionValidator(
      QRegularExpression(QStringLiteral("[0-9]{0,%1}").arg(kMaxDigits)), this));
}

void SeedEdit::setSeed(uint64_t seed) { setText(QString::number(seed)); }

std::optional<uint64_t> SeedEdit::seed() const {
  bool ok = false;
  const qulonglong v = text().trimmed().toULongLong(&ok);  // false on overflow and on ""
  if (!ok) return std::nullopt;
  return static_cast<uint64_t>(v);
}

}  // namespace hnclip::gui
