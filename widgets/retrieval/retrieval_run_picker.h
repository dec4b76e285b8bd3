#pragma once
// RetrievalRunPicker: the Retrieval tab's row of pickers — run A, run B (only runs evaluated on
// A's split are offered), each run's evaluated epoch (default: its best) and the direction. It
// owns the run list and the choices asked for before the list arrived (applied when it does),
// and says why a requested B is not compared (warning()). Which run is A follows a stated rule
// (retrieval_run_order.h: the γ = 0 control, else the earlier run), shown beside the pickers and
// in their tooltips, not the order the runs were picked in. GUI thread only.

#include <cstdint>
#include <map>
#include <vector>

#include <QString>
#include <QWidget>

#include "widgets/common/run_summary.h"
#include "widgets/retrieval/retrieval_data.h"
#include "widgets/retrieval/retrieval_loader.h"

class QComboBox;
class QLabel;

namespace hnclip::gui {

class RetrievalRunPicker : public QWidget {
  Q_OBJECT
 public:
  explicit RetrievalRunPicker(QWidget* parent = nullptr);

  // Refills the pickers from `list`, applying the pending choices (else: the current ones, else
  // the two newest evaluated runs on one split), A and B in the rule's order. Emits nothing.
  void setRunList(const RetrievalRunList& list);
  bool hasRuns() const { return !summaries_.empty(); }
  // Applied at once when the runs are there (selectionChanged follows), else by setRunList; the
  // two are swapped where the rule wants the other as A.
  void setRuns(int64_t run_a, int64_t run_b);
  void setEpochs(int epoch_a, int epoch_b);
  void setDirection(const QString& direction);  // "t2i" | "i2t"

  int64_t runA() const;  // 0: none
  int64_t runB() const;
  int epochA() const;  // -1: none
  int epochB() const;
  QString direction() const;
  QString warning() const { return warning_text_; }  // "" or why the two runs are not compared
  const RunSummary* summary(int64_t run) const;
  std::string splitKey(int64_t run) const;  // RunTestSet::key, "" for an unknown run

 signals:
  void selectionChanged();  // by the user or by setRuns / setEpochs

 private:
  void connectCombos();
  void fillRunCombos();
  void fillEpochCombo(QComboBox* combo, int64_t run);
  void fillPartnerCombo();
  QString splitMismatch(int64_t run_a, int64_t run_b) const;
  bool followOrderRule();

  QComboBox *run_a_, *run_b_, *epoch_a_, *epoch_b_, *direction_;
  QLabel* rule_ = nullptr;  // the A / B rule, in short
  std::vector<RunSummary> summaries_;
  std::map<int64_t, RunTestSet> splits_;
  int64_t pending_a_ = 0, pending_b_ = 0;
  int pending_epoch_a_ = -1, pending_epoch_b_ = -1;
  bool filling_ = false;  // combos are being refilled: their signals do not reload
  QString warning_text_;
};

}  // namespace hnclip::gui
