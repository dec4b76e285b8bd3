#pragma once
// csv_field: one CSV cell as RFC 4180 writes it — quoted (with inner quotes doubled) when it
// holds a comma, a quote, a line feed or a carriage return; as it is otherwise. The one quoting
// rule of every CSV the workbench writes (recall tables, query lists, near-duplicate pairs).

#include <QString>

namespace hnclip::gui {

QString csv_field(const QString& text);

}  // namespace hnclip::gui
