#include "widgets/runs/runs_panel.h"

#include <algorithm>

#include <QAction>
#include <QCheckBox>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPixmap>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "store/run_store.h"
#include "text/control_character.h"
#include "widgets/common/recall_table_model.h"
#include "widgets/common/run_colors.h"
#include "widgets/common/run_label.h"
#include "widgets/common/run_table_model.h"
#include "widgets/runs/config_diff.h"
#include "widgets/runs/config_diff_model.h"
#include "widgets/runs/delete_runs.h"
#include "widgets/runs/transfer_table_model.h"

namespace hnclip::gui {
namespace {
constexpr int kClockMs = 1000;   // running runs' duration ticks once a second
constexpr int kMinCompared = 2;  // the comparison area needs this many selected runs

const char* const kOptHeader = "header";
const char* const kOptFilter = "filter";
const char* const kOptDiffOnly = "diffOnly";
const char* const kOptSplitter = "splitter";
// The header state's column widths are the user's only when they were set over content: widths
// saved from an empty table (every column at its minimum) would squash the first fill.
const char* const kOptHeaderFitted = "headerFitted";
const char* const kOptHeaderColumns = "headerColumns";  // a state of another column set is not used

// Header views paint icons, not colours: a filled square in the run's colour.
QIcon run_swatch(int64_t run_id, int size) {
  QPixmap pixmap(size, size);
  pixmap.fill(run_color(run_id));
  return QIcon(pixmap);
}

// Qualified: this overload would hide the common one from an unqualified call.
QString run_label(const RunSummary& s) { return gui::run_label(s.record.id, s.record.name); }

// The body of a store edit on a worker: an exception becomes the reason it failed.
QString guarded(const std::function<void()>& work) {
  try {
    work();
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}
}  // namespace

RunsPanel::RunsPanel(QString db_path, QWidget* parent)
    : QWidget(parent), db_path_(std::move(db_path)) {
  model_ = new RunTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(RunTableModel::SortRole);
  proxy_->setFilterRole(RunTableModel::FilterRole);
  proxy_->setFilterKeyColumn(RunTableModel::ColName);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy_->setDynamicSortFilter(true);

  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter by name, benchmark, status or tag (Ctrl+F)"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  auto* find = new QShortcut(QKeySequence::Find, this);  // window-wide, but only while visible
  connect(find, &QShortcut::activated, this, &RunsPanel::focusFilter);

  auto* reload = new QToolButton(this);
  reload->setText(tr("Refresh"));
  reload->setToolTip(tr("Reload the runs from the database"));
  connect(reload, &QToolButton::clicked, this, &RunsPanel::refresh);
  auto* top = new QHBoxLayout;
  top->addWidget(filter_, 1);
  top->addWidget(reload);

  view_ = new QTreeView(this);
  view_->setModel(proxy_);
  view_->setRootIsDecorated(false);
  view_->setUniformRowHeights(true);
  view_->setTextElideMode(Qt::ElideMiddle);  // names and test sets differ at their ends
  view_->setAlternatingRowColors(true);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->setSortingEnabled(true);
  view_->sortByColumn(RunTableModel::ColCreated, Qt::DescendingOrder);
  view_->setContextMenuPolicy(Qt::CustomContextMenu);
  view_->header()->setStretchLastSection(true);
  view_->header()->setSectionsMovable(true);
  connect(view_, &QWidget::customContextMenuRequested, this, &RunsPanel::showContextMenu);
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunsPanel::onSelectionChanged);
  // Rows removed by a refresh or hidden by the filter leave the selection without a signal.
  connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &RunsPanel::onSelectionChanged);
  connect(proxy_, &QAbstractItemModel::modelReset, this, &RunsPanel::onSelectionChanged);
  auto* del = new QAction(tr("Delete…"), view_);
  del->setShortcut(QKeySequence::Delete);
  del->setShortcutContext(Qt::WidgetShortcut);
  connect(del, &QAction::triggered, this, &RunsPanel::promptDelete);
  view_->addAction(del);

  // Comparison area: a hint below two selected runs, else config diff and recall tabs.
  diff_only_ = new QCheckBox(tr("Only keys that differ"), this);
  diff_only_->setChecked(true);
  connect(diff_only_, &QCheckBox::toggled, this, &RunsPanel::rebuildDiffModel);
  diff_model_ = new QStandardItemModel(this);
  diff_view_ = new QTableView(this);
  diff_view_->setModel(diff_model_);
  diff_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  diff_view_->horizontalHeader()->setStretchLastSection(true);
  auto* diff_page = new QWidget(this);
  auto* diff_layout = new QVBoxLayout(diff_page);
  diff_layout->setContentsMargins(0, 0, 0, 0);
  diff_layout->addWidget(diff_only_);
  diff_layout->addWidget(diff_view_, 1);

  recall_model_ = new QStandardItemModel(this);
  recall_view_ = new QTableView(this);
  recall_view_->setModel(recall_model_);
  recall_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* csv = new QPushButton(tr("Export CSV…"), this);
  auto* latex = new QPushButton(tr("Export LaTeX…"), this);
  connect(csv, &QPushButton::clicked, this, [this] { exportRecall(false); });
  connect(latex, &QPushButton::clicked, this, [this] { exportRecall(true); });
  auto* recall_buttons = new QHBoxLayout;
  recall_buttons->addStretch(1);
  recall_buttons->addWidget(csv);
  recall_buttons->addWidget(latex);
  auto* recall_page = new QWidget(this);
  auto* recall_layout = new QVBoxLayout(recall_page);
  recall_layout->setContentsMargins(0, 0, 0, 0);
  recall_note_ = new QLabel(this);
  recall_note_->setWordWrap(true);
  recall_note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  recall_note_->hide();
  recall_layout->addWidget(recall_note_);
  recall_layout->addWidget(recall_view_, 1);
  recall_layout->addLayout(recall_buttons);

  transfer_model_ = new QStandardItemModel(this);
  transfer_view_ = new QTableView(this);
  transfer_view_->setModel(transfer_model_);
  transfer_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  transfer_view_->verticalHeader()->hide();
  transfer_view_->setTextElideMode(Qt::ElideMiddle);  // data keys differ at their ends
  transfer_note_ = new QLabel(this);
  transfer_note_->setWordWrap(true);
  transfer_note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* transfer_page = new QWidget(this);
  auto* transfer_layout = new QVBoxLayout(transfer_page);
  transfer_layout->setContentsMargins(0, 0, 0, 0);
  transfer_layout->addWidget(transfer_note_);
  transfer_layout->addWidget(transfer_view_, 1);

  compare_tabs_ = new QTabWidget(this);
  auto* tabs = compare_tabs_;
  tabs->addTab(recall_page, tr("Recall"));
  tabs->addTab(diff_page, tr("Config diff"));
  tabs->addTab(transfer_page, tr("Transfer"));
  auto* hint = new QLabel(tr("Select two or more runs to compare their recall and configurations "
                             "(one run with transfer evaluations shows those)."),
                          this);
  hint->setAlignment(Qt::AlignCenter);
  hint->setEnabled(false);  // the style greys it out in every palette
  compare_stack_ = new QStackedWidget(this);
  compare_stack_->addWidget(hint);
  compare_stack_->addWidget(tabs);

  splitter_ = new QSplitter(Qt::Vertical, this);
  splitter_->addWidget(view_);
  splitter_->addWidget(compare_stack_);
  splitter_->setStretchFactor(0, 3);
  splitter_->setStretchFactor(1, 2);

  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(splitter_, 1);
  layout->addWidget(message_);

  clock_ = new QTimer(this);
  clock_->setInterval(kClockMs);
  connect(clock_, &QTimer::timeout, model_, &RunTableModel::refreshRunningDurations);
  clock_->start();

  loader_ = new QFutureWatcher<LoadResult>(this);
  connect(loader_, &QFutureWatcher<LoadResult>::finished, this, &RunsPanel::onLoaded);
  refresh();
}

RunsPanel::~RunsPanel() {
  // A worker still reading would outlive nothing of ours (it copies the path), but wait so the
  // watcher does not deliver into a half-destroyed panel.
  loader_->disconnect(this);
  loader_->waitForFinished();
}

void RunsPanel::refresh() {
  if (loading_) {
    reload_pending_ = true;
    return;
  }
  reload_pending_ = false;
  loading_ = true;
  const std::string db = db_path_.toStdString();
  loader_->setFuture(QtConcurrent::run([db] {
    LoadResult r;
    try {
      r.runs = load_run_summaries(db);
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(e.what());
    }
    return r;
  }));
}

// Our own flag, not the watcher's isRunning(): a load can be finished before `finished` is
// delivered, and until onLoaded has merged it the panel still shows the old runs.
bool RunsPanel::isRefreshing() const { return loading_ || reload_pending_; }
bool RunsPanel::isBusy() const { return isRefreshing() || edits_in_flight_ > 0; }

void RunsPanel::onLoaded() {
  loading_ = false;
  LoadResult r = loader_->result();
  load_error_ = r.error;
  if (!r.error.isEmpty()) {
    showMessage(tr("Could not read the runs: %1").arg(r.error), true);
  } else {
    model_->setRuns(std::move(r.runs));
    // The first fill with rows fits the columns once; after that the widths are the user's.
    if (!columns_fitted_ && model_->rowCount() > 0) {
      for (int c = 0; c < RunTableModel::ColumnCount; ++c) view_->resizeColumnToContents(c);
      columns_fitted_ = true;
    }
    loaded_once_ = true;
    if (has_pending_selection_) {
      has_pending_selection_ = false;
      selectRuns(pending_selection_);
    }
  }
  onSelectionChanged();  // removed rows leave the selection
  updateComparison();    // selected runs may have new evaluations
  if (reload_pending_) refresh();
  emit refreshed();
}

QList<int64_t> RunsPanel::selectedRuns() const {
  QModelIndexList rows = view_->selectionModel()->selectedRows(RunTableModel::ColName);
  std::sort(rows.begin(), rows.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  QList<int64_t> ids;
  for (const auto& ix : rows) ids.append(ix.data(RunTableModel::RunIdRole).toLongLong());
  return ids;
}

void RunsPanel::selectRuns(const QList<int64_t>& ids) {
  if (!loaded_once_) {
    pending_selection_ = ids;
    has_pending_selection_ = true;
    return;
  }
  QList<int64_t> want = ids, have = selectedRuns();
  std::sort(want.begin(), want.end());
  std::sort(have.begin(), have.end());
  if (want == have) return;  // no echo back to a view that synchronises with this one
  QItemSelection selection;
  QModelIndex first;
  for (int64_t id : ids) {
    const int source_row = model_->rowOfRun(id);
    if (source_row < 0) continue;
    const QModelIndex ix = proxy_->mapFromSource(model_->index(source_row, 0));
    if (!ix.isValid()) continue;  // filtered out
    selection.select(ix, ix);
    if (!first.isValid()) first = ix;
  }
  auto* sm = view_->selectionModel();
  sm->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (first.isValid()) {
    sm->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    view_->scrollTo(first);
  }
}

QAbstractItemModel* RunsPanel::runModel() { return model_; }

void RunsPanel::onSelectionChanged() {
  const QList<int64_t> ids = selectedRuns();
  if (ids == last_selection_) return;
  last_selection_ = ids;
  updateComparison();
  emit selectionChanged(ids);
}

std::vector<RunSummary> RunsPanel::selectedSummaries() const {
  std::vector<RunSummary> out;
  for (int64_t id : selectedRuns())
    if (const RunSummary* s = model_->run(id)) out.push_back(*s);
  return out;
}

void RunsPanel::updateComparison() {
  const auto runs = selectedSummaries();
  const bool comparing = static_cast<int>(runs.size()) >= kMinCompared;
  // One run has nothing to compare, but its transfer evaluations are shown nowhere else here.
  const bool transfers_only = runs.size() == 1 && TransferTableModel::count(runs) > 0;
  compare_stack_->setCurrentIndex(comparing || transfers_only ? 1 : 0);
  const int transfer_page = compare_tabs_->count() - 1;
  for (int page = 0; page < transfer_page; ++page) {
    compare_tabs_->setTabEnabled(page, comparing);
    compare_tabs_->setTabToolTip(page, comparing ? QString() : tr("Select two or more runs"));
  }
  if (transfers_only) compare_tabs_->setCurrentIndex(transfer_page);
  rebuildDiffModel();
  rebuildRecallModel();
  rebuildTransferModel();
}

void RunsPanel::rebuildTransferModel() {
  const auto runs = selectedSummaries();
  TransferTableModel::fill(transfer_model_, runs);
  transfer_view_->resizeColumnsToContents();
  const int n = TransferTableModel::count(runs);
  transfer_note_->setText(
      n == 0 ? tr("No transfer evaluations of the selected runs. Evaluate a run on other data or "
                  "a split it was not tested on with `hnclip eval ID --split shifted` (or "
                  "--benchmark/--data), or an experiment's runs with `hnclip experiment eval`.")
             : tr("Evaluations on other data or splits, at the evaluated checkpoint's epoch; they "
                  "never choose a run's best epoch, and no best is marked across different data."));
}

void RunsPanel::rebuildDiffModel() {
  diff_model_->clear();
  const auto runs = selectedSummaries();
  if (static_cast<int>(runs.size()) < kMinCompared) return;
  std::vector<std::string> labels, configs;
  for (const auto& s : runs) {
    labels.push_back(run_label(s).toStdString());
    configs.push_back(s.record.config_json);
  }
  try {
    const ConfigDiff diff(labels, configs);
    const auto rows = diff_only_->isChecked() ? diff.differingRows() : diff.rows();
    std::vector<ConfigDiffColumn> columns;
    for (const auto& r : runs)
      columns.push_back({run_label(r), run_swatch(r.record.id, fontMetrics().height() / 2 + 2)});
    fill_config_diff_model(diff_model_, columns, rows, palette(), font());
    diff_view_->resizeColumnsToContents();
  } catch (const std::exception& e) {
    showMessage(QString::fromStdString(e.what()), true);
  }
}

void RunsPanel::rebuildRecallModel() {
  const auto runs = selectedSummaries();
  recall_table_ =
      RecallTable(static_cast<int>(runs.size()) >= kMinCompared
                      ? RecallTable::fromSummaries(runs, RecallTable::StartRows::Include)
                      : RecallTable({}));
  fill_recall_model(recall_model_, recall_table_, font());
  const auto& rows = recall_table_.rows();
  for (size_t r = 0; r < rows.size(); ++r) {
    auto* header = new QStandardItem(QString::fromStdString(rows[r].run_name));
    if (rows[r].run_id > 0)
      header->setIcon(run_swatch(rows[r].run_id, fontMetrics().height() / 2 + 2));
    if (rows[r].start) header->setToolTip(tr("The starting checkpoint (epoch 0), before any step"));
    recall_model_->setVerticalHeaderItem(static_cast<int>(r), header);
  }
  recall_view_->resizeColumnsToContents();

  // Which runs were tested on which data, in table order, when that is more than one test set.
  QStringList sets;
  if (!recall_table_.comparable()) {
    std::vector<std::pair<const RunTestSet*, QStringList>> by_set;
    for (const auto& s : runs) {
      auto it = std::find_if(by_set.begin(), by_set.end(),
                             [&](const auto& e) { return e.first->key == s.test_set.key; });
      if (it == by_set.end()) it = by_set.insert(by_set.end(), {&s.test_set, {}});
      it->second << run_label(s);
    }
    for (const auto& [set, labels] : by_set)
      sets << tr("%1: %2").arg(QString::fromStdString(set->label),
                               labels.join(QStringLiteral(", ")));
  }
  recall_note_->setText(
      sets.isEmpty()
          ? QString()
          : tr("These runs were tested on different data, so their recall is not comparable and "
               "no best is marked. %1.")
                .arg(sets.join(QStringLiteral("; "))));
  recall_note_->setVisible(!sets.isEmpty());
}

QString RunsPanel::recallNote() const { return recall_note_->text(); }

void RunsPanel::setDiffOnly(bool only_differing) { diff_only_->setChecked(only_differing); }
bool RunsPanel::diffOnly() const { return diff_only_->isChecked(); }

void RunsPanel::setFilterText(const QString& text) { filter_->setText(text); }
QString RunsPanel::filterText() const { return filter_->text(); }

void RunsPanel::focusFilter() {
  filter_->setFocus(Qt::ShortcutFocusReason);
  filter_->selectAll();
}

QVariantMap RunsPanel::options() const {
  return {{kOptHeader, view_->header()->saveState()},
          {kOptHeaderFitted, columns_fitted_},
          {kOptHeaderColumns, static_cast<int>(RunTableModel::ColumnCount)},
          {kOptFilter, filter_->text()},
          {kOptDiffOnly, diff_only_->isChecked()},
          {kOptSplitter, splitter_->saveState()}};
}

void RunsPanel::setOptions(const QVariantMap& options) {
  if (options.contains(kOptHeader) &&
      options.value(kOptHeaderColumns).toInt() == RunTableModel::ColumnCount) {
    auto* header = view_->header();
    const bool restored = header->restoreState(options.value(kOptHeader).toByteArray());
    // The restored sort indicator alone does not re-sort the proxy.
    if (restored) view_->sortByColumn(header->sortIndicatorSection(), header->sortIndicatorOrder());
    // Widths from an empty table: fit to contents on the first fill instead (onLoaded).
    columns_fitted_ = restored && options.value(kOptHeaderFitted).toBool();
  }
  if (options.contains(kOptFilter)) filter_->setText(options.value(kOptFilter).toString());
  if (options.contains(kOptDiffOnly)) diff_only_->setChecked(options.value(kOptDiffOnly).toBool());
  if (options.contains(kOptSplitter))
    splitter_->restoreState(options.value(kOptSplitter).toByteArray());
}

void RunsPanel::runStoreEdit(const QString& what, std::function<EditResult()> work) {
  ++edits_in_flight_;
  auto* watcher = new QFutureWatcher<EditResult>(this);
  connect(watcher, &QFutureWatcher<EditResult>::finished, this, [this, watcher, what] {
    const EditResult result = watcher->result();
    watcher->deleteLater();
    refresh();  // before the count drops, so isBusy() never blinks false in between
    --edits_in_flight_;
    if (result.error.isEmpty()) message_->hide();
    if (result.changed) emit runsChanged();
    if (!result.error.isEmpty()) {
      const QString message = tr("%1 failed: %2").arg(what, result.error);
      showMessage(message, true);
      emit operationFailed(message);
    }
  });
  watcher->setFuture(QtConcurrent::run(std::move(work)));
}

bool RunsPanel::refuseControlCharacters(const QString& what, const QString& rule,
                                        const std::string& text) {
  // One line, as `train --name` requires: a pasted line break broke every table it stood in.
  // Known here, so refused here, without a trip to the worker and the store.
  const std::string control = control_character_in(text);
  if (control.empty()) return false;
  const QString message = tr("%1 failed: %2 %3. Nothing was changed.")
                              .arg(what, rule, QString::fromStdString(control));
  showMessage(message, true);
  emit operationFailed(message);
  return true;
}

void RunsPanel::renameRun(int64_t id, const QString& name) {
  const std::string db = db_path_.toStdString(), n = name.trimmed().toStdString();
  if (refuseControlCharacters(
          tr("Rename"), tr("A run name must be one line without control characters; this one has"),
          n))
    return;
  runStoreEdit(tr("Rename"), [db, id, n] {
    const QString error = guarded([&] { RunStore(db).rename_run(id, n); });
    return EditResult{error, error.isEmpty()};
  });
}

void RunsPanel::setRunTags(int64_t id, const QString& tags) {
  const std::string db = db_path_.toStdString(), t = tags.trimmed().toStdString();
  if (refuseControlCharacters(tr("Setting tags"),
                              tr("Tags must be one line without control characters; these have"),
                              t))
    return;
  runStoreEdit(tr("Setting tags"), [db, id, t] {
    const QString error = guarded([&] { RunStore(db).set_tags(id, t); });
    return EditResult{error, error.isEmpty()};
  });
}

void RunsPanel::deleteRuns(const QList<int64_t>& ids) {
  const std::string db = db_path_.toStdString();
  const std::vector<int64_t> v(ids.begin(), ids.end());
  runStoreEdit(tr("Delete"), [db, v] {
    QString problems;
    try {
      for (const auto& line : delete_runs(db, v))
        problems += QString::fromStdString(line) + QLatin1Char('\n');
    } catch (const RunDeletionRefused& e) {
      return EditResult{QString::fromStdString(e.what()), false};  // nothing was deleted
    } catch (const std::exception& e) {
      return EditResult{QString::fromStdString(e.what()), true};  // some runs may be gone
    }
    // The rows are gone either way; files left behind are reported, not hidden.
    return EditResult{
        problems.isEmpty()
            ? QString()
            : QObject::tr("some checkpoint files remain:\n%1").arg(problems.trimmed()),
        true};
  });
}

void RunsPanel::showContextMenu(const QPoint& pos) {
  QMenu menu(this);
  fillContextMenu(&menu);
  menu.exec(view_->viewport()->mapToGlobal(pos));
}

void RunsPanel::fillContextMenu(QMenu* menu_ptr) {
  QMenu& menu = *menu_ptr;
  const auto runs = selectedSummaries();
  const bool one = runs.size() == 1;
  const bool any_running = std::any_of(runs.begin(), runs.end(), [](const RunSummary& s) {
    return s.record.status == RunStatus::Running;
  });
  // As `hnclip train --resume`: a failed run too (a full disk), continuing from its checkpoint.
  const bool resumable = one && (runs[0].record.status == RunStatus::Interrupted ||
                                 runs[0].record.status == RunStatus::Stopped ||
                                 runs[0].record.status == RunStatus::Failed);
  QAction* rename = menu.addAction(tr("Rename…"), this, &RunsPanel::promptRename);
  rename->setEnabled(one);
  QAction* tags = menu.addAction(tr("Tags…"), this, &RunsPanel::promptTags);
  tags->setEnabled(one);
  menu.addSeparator();
  QAction* resume =
      menu.addAction(tr("Resume"), this, [this, runs] { emit resumeRequested(runs[0].record.id); });
  resume->setEnabled(resumable);
  QAction* same = menu.addAction(tr("Same as run…"), this,
                                 [this, runs] { emit sameAsRequested(runs[0].record.id); });
  same->setEnabled(one);
  menu.addSeparator();
  QAction* del = menu.addAction(tr("Delete…"), this, &RunsPanel::promptDelete);
  del->setEnabled(!runs.empty() && !any_running);
  if (any_running) del->setToolTip(tr("A running run cannot be deleted"));
  menu.addSeparator();
  const bool comparing = static_cast<int>(runs.size()) >= kMinCompared;
  menu.addAction(tr("Export recall as CSV…"), this, [this] { exportRecall(false); })
      ->setEnabled(comparing);
  menu.addAction(tr("Export recall as LaTeX…"), this, [this] { exportRecall(true); })
      ->setEnabled(comparing);
  menu.addSeparator();
  menu.addAction(tr("Refresh"), this, &RunsPanel::refresh);
}

void RunsPanel::promptRename() {
  const auto runs = selectedSummaries();
  if (runs.size() != 1) return;
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Rename run"),
                                             tr("New name of run %1:").arg(runs[0].record.id),
                                             QLineEdit::Normal, run_label(runs[0]), &ok);
  if (!ok || name.trimmed().isEmpty() || name.trimmed() == run_label(runs[0])) return;
  renameRun(runs[0].record.id, name);
}

void RunsPanel::promptTags() {
  const auto runs = selectedSummaries();
  if (runs.size() != 1) return;
  bool ok = false;
  const QString tags = QInputDialog::getText(
      this, tr("Tags"), tr("Tags of %1 (comma-separated):").arg(run_label(runs[0])),
      QLineEdit::Normal, QString::fromStdString(runs[0].record.tags), &ok);
  if (ok) setRunTags(runs[0].record.id, tags);
}

void RunsPanel::promptDelete() {
  const auto runs = selectedSummaries();
  if (runs.empty()) return;
  QStringList names;
  QList<int64_t> ids;
  for (const auto& s : runs) {
    if (s.record.status == RunStatus::Running) {
      showMessage(tr("'%1' is running: stop it before deleting it.").arg(run_label(s)), true);
      return;
    }
    names << QStringLiteral("'%1'").arg(run_label(s));
    ids << s.record.id;
  }
  const QString text =
      runs.size() == 1
          ? tr("Delete run %1 and its checkpoint files? This cannot be undone.").arg(names[0])
          : tr("Delete %1 runs (%2) and their checkpoint files? This cannot be undone.")
                .arg(runs.size())
                .arg(names.join(QStringLiteral(", ")));
  if (QMessageBox::question(this, tr("Delete runs"), text, QMessageBox::Yes | QMessageBox::Cancel,
                            QMessageBox::Cancel) == QMessageBox::Yes)
    deleteRuns(ids);
}

void RunsPanel::exportRecall(bool latex) {
  if (recall_table_.rows().empty()) {
    showMessage(tr("Select two or more runs to export their recall table."), false);
    return;
  }
  const QString path = QFileDialog::getSaveFileName(
      this, latex ? tr("Export recall table as LaTeX") : tr("Export recall table as CSV"),
      latex ? QStringLiteral("recall.tex") : QStringLiteral("recall.csv"),
      latex ? tr("LaTeX (*.tex)") : tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QSaveFile file(path);
  const QByteArray bytes = (latex ? recall_table_.toLatex() : recall_table_.toCsv()).toUtf8();
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    showMessage(tr("Could not write %1: %2").arg(path, file.errorString()), true);
    return;
  }
  showMessage(tr("Wrote %1").arg(path), false);
}

void RunsPanel::showMessage(const QString& text, bool error) {
  message_->setText(text);
  message_->setForegroundRole(error ? QPalette::HighlightedText : QPalette::WindowText);
  message_->setBackgroundRole(error ? QPalette::Highlight : QPalette::Window);
  message_->setAutoFillBackground(error);
  message_->show();
}

void RunsPanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Custom cell colours are derived from the palette: rebuild them when it changes (dark mode).
  if (view_ && (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange))
    updateComparison();
}

QString RunsPanel::exportInteractive() {
  exportRecall(false);
  return {};  // exportRecall reports in the panel's own message line
}

bool RunsPanel::focusSearch() {
  focusFilter();
  return true;
}

void RunsPanel::saveState(QSettings& s) const {
  s.setValue(QStringLiteral("runs/options"), options());
  QVariantList selected;
  for (const int64_t id : selectedRuns()) selected << QVariant::fromValue<qlonglong>(id);
  s.setValue(QStringLiteral("runs/selected"), selected);
}

void RunsPanel::restoreState(QSettings& s) {
  setOptions(s.value(QStringLiteral("runs/options")).toMap());
  QList<int64_t> selected;
  for (const auto& v : s.value(QStringLiteral("runs/selected")).toList())
    selected << v.toLongLong();
  // The run model fills in asynchronously: before the first load lands, selectRuns keeps the ids
  // and onLoaded selects them (runsChanged would wait for an edit that may never come).
  if (!selected.isEmpty()) selectRuns(selected);
}

QList<QPair<int64_t, QString>> RunsPanel::runChoices() {
  QList<QPair<int64_t, QString>> out;
  for (int r = 0; r < model_->rowCount(); ++r) {
    const auto index = model_->index(r, 0);
    out.append({model_->data(index, RunTableModel::RunIdRole).toLongLong(),
                model_->data(index, Qt::DisplayRole).toString()});
  }
  return out;
}

}  // namespace hnclip::gui
