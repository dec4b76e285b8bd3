#pragma once
// RunListView: the compact run list of the main window's dock: colour swatch + name, status icon
// and best R@1, over the same RunTableModel as the Runs tab (RunsPanel::runModel()), with its own
// sort proxy so the two views sort independently. The main window keeps the selections in step
// through runSelectionChanged / selectRuns (which does not echo a selection it already has).
// GUI thread only.

#include <cstdint>

#include <QList>
#include <QTreeView>

class QAbstractItemModel;
class QSortFilterProxyModel;

namespace hnclip::gui {

class RunListView : public QTreeView {
  Q_OBJECT
 public:
  explicit RunListView(QAbstractItemModel* run_model, QWidget* parent = nullptr);

  QList<int64_t> selectedRuns() const;  // in view order
  void selectRuns(const QList<int64_t>& ids);

 signals:
  void runSelectionChanged(QList<int64_t> ids);  // only when the set of selected runs changed

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // Average characters below which a name shares the width with the two numbers no longer.
  static constexpr int kReadableNameCharacters = 22;
  void fitColumns();
  void onSelection();
  QSortFilterProxyModel* proxy_ = nullptr;
  QList<int64_t> last_;
};

}  // namespace hnclip::gui
