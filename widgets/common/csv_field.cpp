#include "widgets/common/csv_field.h"

namespace hnclip::gui {

QString csv_field(const QString& text) {
  const bool needs_quotes = text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
                            text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r'));
  if (!needs_quotes) return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

}  // namespace hnclip::gui
