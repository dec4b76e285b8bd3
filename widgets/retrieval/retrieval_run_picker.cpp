#include "widgets/retrieval/retrieval_run_picker.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>

#include <algorithm>
#include <set>

#include "train/best_epoch.h"
#include "widgets/common/narrow_combo.h"
#include "widgets/common/run_label.h"
#include "widgets/retrieval/retrieval_run_order.h"

namespace hnclip::gui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The epochs a run has evaluation rows for, in order (0: its start).
std::set<int> evaluated_epochs(const RunSummary& s) {
  std::set<int> epochs;
  for (const auto& e : s.evals) epochs.insert(e.epoch);
  return epochs;
}

}  // namespace

RetrievalRunPicker::RetrievalRunPicker(QWidget* parent) : QWidget(parent) {
  run_a_ = new NarrowComboBox(24, this);
  run_b_ = new NarrowComboBox(24, this);
  epoch_a_ = new QComboBox(this);
  epoch_b_ = new QComboBox(this);
  direction_ = new QComboBox(this);
  direction_->addItem(tr("text → image"), QStringLiteral("t2i"));
  direction_->addItem(tr("image → text"), QStringLiteral("i2t"));
  run_a_->setObjectName(QStringLiteral("retrievalRunA"));
  run_b_->setObjectName(QStringLiteral("retrievalRunB"));
  auto* label_a = new QLabel(tr("Run A"), this);
  auto* label_b = new QLabel(tr("Run B"), this);
  rule_ = new QLabel(tr("(A: the γ = 0 control, else the earlier run)"), this);
  rule_->setObjectName(QStringLiteral("retrievalOrderRule"));
  rule_->setStyleSheet(QStringLiteral("color: gray;"));
  for (QWidget* w : std::initializer_list<QWidget*>{label_a, label_b, run_a_, run_b_, rule_})
    w->setToolTip(retrieval_ab_rule());
  // Run names must not size the window (widgets/common/narrow_combo.h).
  // A above B, so the two choices read as a pair and the row fits a 1024-pixel screen beside the
  // run dock (in one row, with combos as wide as 24 characters, it was 1224 pixels).
  auto* pickers = new QGridLayout(this);
  pickers->setContentsMargins(0, 0, 0, 0);
  pickers->setVerticalSpacing(2);
  pickers->addWidget(label_a, 0, 0);
  pickers->addWidget(run_a_, 0, 1);
  pickers->addWidget(new QLabel(tr("epoch"), this), 0, 2);
  pickers->addWidget(epoch_a_, 0, 3);
  pickers->addWidget(label_b, 1, 0);
  pickers->addWidget(run_b_, 1, 1);
  pickers->addWidget(new QLabel(tr("epoch"), this), 1, 2);
  pickers->addWidget(epoch_b_, 1, 3);
  pickers->addWidget(direction_, 0, 4, Qt::AlignLeft);
  pickers->addWidget(rule_, 1, 4);
  pickers->setColumnStretch(1, 1);
  pickers->setColumnStretch(5, 1);
  connectCombos();
}

void RetrievalRunPicker::connectCombos() {
  connect(run_a_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    if (filling_) return;
    fillPartnerCombo();
    filling_ = true;
    fillEpochCombo(epoch_a_, runA());
    fillEpochCombo(epoch_b_, runB());
    filling_ = false;
    followOrderRule();
    emit selectionChanged();
  });
  connect(run_b_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    if (filling_) return;
    if (runB() != 0) warning_text_.clear();  // the list holds only runs on A's split
    filling_ = true;
    fillEpochCombo(epoch_b_, runB());
    filling_ = false;
    followOrderRule();
    emit selectionChanged();
  });
  for (auto* c : {epoch_a_, epoch_b_, direction_}) {
    connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
      if (!filling_) emit selectionChanged();
    });
  }
}

void RetrievalRunPicker::setRunList(const RetrievalRunList& list) {
  summaries_ = list.runs;
  splits_ = list.splits;
  if (pending_a_ == 0) pending_a_ = runA();
  if (pending_b_ == 0) pending_b_ = runB();
  fillRunCombos();
}

const RunSummary* RetrievalRunPicker::summary(int64_t run) const {
  for (const auto& s : summaries_)
    if (s.record.id == run) return &s;
  return nullptr;
}

std::string RetrievalRunPicker::splitKey(int64_t run) const {
  const auto it = splits_.find(run);
  return it == splits_.end() ? std::string() : it->second.key;
}

void RetrievalRunPicker::setRuns(int64_t run_a, int64_t run_b) {
  pending_a_ = run_a;
  pending_b_ = run_b;
  if (summaries_.empty()) return;  // applied in setRunList
  fillRunCombos();
  emit selectionChanged();
}

void RetrievalRunPicker::setDirection(const QString& direction) {
  const int i = direction_->findData(direction);
  if (i >= 0) direction_->setCurrentIndex(i);
}

QString RetrievalRunPicker::direction() const { return direction_->currentData().toString(); }

void RetrievalRunPicker::fillRunCombos() {
  filling_ = true;
  run_a_->clear();
  for (const auto& s : summaries_) {
    if (s.report_epoch < 0) continue;  // never evaluated: nothing to compare
    run_a_->addItem(run_choice_label(s.record.id, s.record.name),
                    QVariant::fromValue<qlonglong>(s.record.id));
  }
  int ia = run_a_->findData(QVariant::fromValue<qlonglong>(pending_a_));
  if (ia < 0 && run_a_->count() > 1) ia = 1;  // newest first: A = the second newest, B = the newest
  if (ia >= 0) run_a_->setCurrentIndex(ia);
  filling_ = false;
  fillPartnerCombo();
  filling_ = true;
  fillEpochCombo(epoch_a_, runA());
  fillEpochCombo(epoch_b_, runB());
  if (pending_epoch_a_ >= 0)
    epoch_a_->setCurrentIndex(std::max(0, epoch_a_->findData(pending_epoch_a_)));
  if (pending_epoch_b_ >= 0)
    epoch_b_->setCurrentIndex(std::max(0, epoch_b_->findData(pending_epoch_b_)));
  pending_a_ = 0;
  pending_epoch_a_ = pending_epoch_b_ = -1;
  filling_ = false;
  followOrderRule();
}

// Swaps A and B (with their epochs) where the two picked break retrieval_ab_order's rule.
bool RetrievalRunPicker::followOrderRule() {
  const int64_t a = runA(), b = runB();
  if (a == 0 || b == 0) return false;
  const auto order = retrieval_ab_order(a, summary(a), b, summary(b));
  if (order.first == a) return false;
  const int epoch_a = epochA(), epoch_b = epochB();
  pending_a_ = order.first;
  pending_b_ = order.second;
  pending_epoch_a_ = epoch_b;
  pending_epoch_b_ = epoch_a;
  fillRunCombos();  // in the rule's order now: its own call here changes nothing
  return true;
}

void RetrievalRunPicker::fillPartnerCombo() {
  const bool was = filling_;
  filling_ = true;
  const int64_t a = runA();
  const int64_t keep = pending_b_ ? pending_b_ : runB();
  run_b_->clear();
  const auto sa = splits_.find(a);
  for (const auto& s : summaries_) {
    if (s.report_epoch < 0 || s.record.id == a) continue;
    const auto sb = splits_.find(s.record.id);
    if (sa == splits_.end() || sb == splits_.end() || sa->second.key != sb->second.key) continue;
    run_b_->addItem(run_choice_label(s.record.id, s.record.name),
                    QVariant::fromValue<qlonglong>(s.record.id));
  }
  // Run A itself, at another of its evaluated epochs (its start by default): what fine-tuning
  // changed query by query, and the only comparison a database with one run has (the tab showed
  // nothing but "no other evaluated run" there).
  if (const RunSummary* self = summary(a)) {
    if (evaluated_epochs(*self).size() > 1)
      run_b_->addItem(tr("%1 (itself, another epoch)")
                          .arg(run_choice_label(self->record.id, self->record.name)),
                      QVariant::fromValue<qlonglong>(a));
  }
  int ib = run_b_->findData(QVariant::fromValue<qlonglong>(keep));
  warning_text_ = ib < 0 ? splitMismatch(a, keep) : QString();
  if (ib < 0 && run_b_->count() > 0) ib = 0;
  if (ib >= 0) run_b_->setCurrentIndex(ib);
  if (run_b_->count() == 0 && a != 0 && warning_text_.isEmpty()) {
    warning_text_ =
        tr("No other evaluated run was evaluated on %1, and this run has one evaluated epoch.")
            .arg(sa != splits_.end() ? qs(sa->second.label) : tr("run %1's split").arg(a));
  }
  pending_b_ = 0;
  filling_ = was;
}

// Why `run_b`, asked for as B, is not offered beside `run_a` ("" when nothing is to be said).
QString RetrievalRunPicker::splitMismatch(int64_t run_a, int64_t run_b) const {
  const auto sa = splits_.find(run_a), sb = splits_.find(run_b);
  if (run_b == 0 || run_b == run_a || sb == splits_.end() || sa == splits_.end()) return {};
  return tr("Run %1 was evaluated on %2, run %3 on %4: their ranks cannot be compared.")
      .arg(run_b)
      .arg(qs(sb->second.label))
      .arg(run_a)
      .arg(qs(sa->second.label));
}

void RetrievalRunPicker::fillEpochCombo(QComboBox* combo, int64_t run) {
  combo->clear();
  const auto* s = summary(run);
  if (!s) return;
  for (int e : evaluated_epochs(*s))
    combo->addItem(e == s->report_epoch ? tr("%1 (best)").arg(e)
                   : e == kStartEpoch   ? tr("%1 (start)").arg(e)
                                        : QString::number(e),
                   e);
  combo->setCurrentIndex(std::max(0, combo->findData(s->report_epoch)));
  // B as run A itself: another epoch than A's, its start where it was evaluated.
  if (combo == epoch_b_ && run != 0 && run == runA() && epochB() == epochA()) {
    int other = combo->findData(kStartEpoch);
    if (other >= 0 && combo->itemData(other).toInt() == epochA()) other = -1;
    for (int i = 0; i < combo->count() && other < 0; ++i)
      if (combo->itemData(i).toInt() != epochA()) other = i;
    if (other >= 0) combo->setCurrentIndex(other);
  }
}

void RetrievalRunPicker::setEpochs(int epoch_a, int epoch_b) {
  pending_epoch_a_ = epoch_a;
  pending_epoch_b_ = epoch_b;
  if (summaries_.empty()) return;  // applied in setRunList
  filling_ = true;
  if (epoch_a_->findData(epoch_a) >= 0) epoch_a_->setCurrentIndex(epoch_a_->findData(epoch_a));
  if (epoch_b_->findData(epoch_b) >= 0) epoch_b_->setCurrentIndex(epoch_b_->findData(epoch_b));
  pending_epoch_a_ = pending_epoch_b_ = -1;
  filling_ = false;
  emit selectionChanged();
}

int64_t RetrievalRunPicker::runA() const {
  return run_a_->currentIndex() < 0 ? 0 : run_a_->currentData().toLongLong();
}

int64_t RetrievalRunPicker::runB() const {
  return run_b_->currentIndex() < 0 ? 0 : run_b_->currentData().toLongLong();
}

int RetrievalRunPicker::epochA() const {
  return epoch_a_->currentIndex() < 0 ? -1 : epoch_a_->currentData().toInt();
}

int RetrievalRunPicker::epochB() const {
  return epoch_b_->currentIndex() < 0 ? -1 : epoch_b_->currentData().toInt();
}

}  // namespace hnclip::gui
