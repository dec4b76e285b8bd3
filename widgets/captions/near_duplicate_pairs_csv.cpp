#include "widgets/captions/near_duplicate_pairs_csv.h"

#include <QCoreApplication>
#include <QFile>
#include <QTextStream>

#include "widgets/common/csv_field.h"

namespace hnclip::gui {

bool write_near_duplicate_pairs_csv(const QString& path,
                                    const hnclip::CaptionGeometryRecord& record,
                                    const std::vector<QString>& texts, QString* error) {
  auto fail = [error](const QString& message) {
    if (error) *error = message;
    return false;
  };
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    return fail(QCoreApplication::translate("CaptionsPanel", "%1: cannot write: %2")
                    .arg(path, file.errorString()));
  }
  QTextStream out(&file);
  out << "rank,cosine,caption_a,caption_b,text_a,text_b\n";
  const auto text = [&texts](int64_t c) {
    return c >= 0 && c < static_cast<int64_t>(texts.size()) ? texts[static_cast<size_t>(c)]
                                                            : QString();
  };
  for (const auto& p : record.pairs) {
    out << p.rank << ',' << QString::number(p.cosine, 'f', 6) << ',' << p.a << ',' << p.b << ','
        << csv_field(text(p.a)) << ',' << csv_field(text(p.b)) << '\n';
  }
  out.flush();
  if (out.status() != QTextStream::Ok || !file.flush()) {
    return fail(QCoreApplication::translate("CaptionsPanel", "%1: write failed").arg(path));
  }
  return true;
}

}  // namespace hnclip::gui
