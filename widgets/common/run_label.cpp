#include "widgets/common/run_label.h"

#include <QCoreApplication>

namespace hnclip::gui {

QString run_label(int64_t run_id, const std::string& name) {
  return name.empty() ? QCoreApplication::translate("hnclip::gui", "run %1").arg(run_id)
                      : QString::fromStdString(name);
}

QString run_choice_label(int64_t run_id, const std::string& name) {
  return name.empty() ? run_label(run_id, name)
                      : QCoreApplication::translate("hnclip::gui", "%1 (#%2)")
                            .arg(QString::fromStdString(name), QString::number(run_id));
}

}  // namespace hnclip::gui
