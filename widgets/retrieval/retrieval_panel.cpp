#include "widgets/retrieval/retrieval_panel.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <set>

#include "job/run_retriever.h"
#include "widgets/common/recall_table.h"
#include "widgets/common/recall_table_model.h"
#include "widgets/retrieval/retrieval_marks.h"
#include "widgets/retrieval/retrieval_view.h"
#include "widgets/common/run_colors.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/common/thumbnail_label.h"

namespace hnclip::gui {

namespace {

constexpr int kDefaultK = 5;
constexpr int kMaxK = 50;
constexpr int kSettlePollMs = 50;
constexpr int kStoredTopK = 10;             // ids the store keeps per query

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

struct RetrievalPanel::RunsResult {
  std::vector<RunSummary> runs;
  std::map<int64_t, RetrievalSplit> splits;
  QString error;
};

struct RetrievalPanel::RetrieverJob {
  RetrieverMap loaded;
  std::map<RetrieverKey, QString> errors;
  bool cancelled = false;
};

struct RetrievalPanel::QueriesResult {
  RetrievalQueries queries;
  QString error;  // why nothing was loaded
};

struct RetrievalPanel::AdhocResult {
  QString text;
  int k = 0;
  std::vector<std::pair<RetrieverKey, std::vector<ScoredCandidate>>> results;
  QString error;
};

RetrievalPanel::RetrievalPanel(QString db_path, QString cache_dir, ThumbnailCache* thumbnails, QWidget* parent)
    : QWidget(parent), db_path_(std::move(db_path)), cache_dir_(std::move(cache_dir)), thumbs_(thumbnails) {
  if (!thumbs_) {
    thumbs_ = new ThumbnailCache(cache_dir_.isEmpty() ? QString() : QDir(cache_dir_).filePath(QStringLiteral("thumbnails")),
                                 64LL << 20, this);
  }

  // Pickers.
  run_a_ = new QComboBox(this);
  run_b_ = new QComboBox(this);
  epoch_a_ = new QComboBox(this);
  epoch_b_ = new QComboBox(this);
  direction_ = new QComboBox(this);
  direction_->addItem(tr("text → image"), QStringLiteral("t2i"));
  direction_->addItem(tr("image → text"), QStringLiteral("i2t"));
  for (auto* c : {run_a_, run_b_}) c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  run_a_->setObjectName(QStringLiteral("retrievalRunA"));
  run_b_->setObjectName(QStringLiteral("retrievalRunB"));
  auto* pickers = new QHBoxLayout;
  pickers->addWidget(new QLabel(tr("Run A"), this));
  pickers->addWidget(run_a_);
  pickers->addWidget(new QLabel(tr("epoch"), this));
  pickers->addWidget(epoch_a_);
  pickers->addSpacing(12);
  pickers->addWidget(new QLabel(tr("Run B"), this));
  pickers->addWidget(run_b_);
  pickers->addWidget(new QLabel(tr("epoch"), this));
  pickers->addWidget(epoch_b_);
  pickers->addSpacing(12);
  pickers->addWidget(direction_);
  pickers->addStretch(1);
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  progress_->setVisible(false);
  status_ = new QLabel(this);
  // Long messages (errors naming files) must not widen the window: they are elided by the layout.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  cancel_button_ = new QPushButton(tr("Cancel"), this);
  cancel_button_->setEnabled(false);
  warning_label_ = new QLabel(this);
  warning_label_->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
  warning_label_->setWordWrap(true);
  warning_label_->setVisible(false);

  // Left: recall table, counts, filters, query list.
  recall_model_ = new QStandardItemModel(this);
  recall_view_ = new QTableView(this);
  recall_view_->setModel(recall_model_);
  recall_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  recall_view_->setMaximumHeight(90);
  recall_view_->verticalHeader()->setDefaultSectionSize(recall_view_->fontMetrics().height() + 6);
  counts_label_ = new QLabel(this);
  counts_label_->setWordWrap(true);
  filter_mode_ = new QComboBox(this);
  filter_mode_->addItem(tr("All queries"));
  filter_mode_->addItem(tr("A correct / B wrong"));
  filter_mode_->addItem(tr("B correct / A wrong"));
  filter_mode_->addItem(tr("Both wrong"));
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search queries…"));
  search_->setClearButtonEnabled(true);
  model_ = new QueryListModel(this);
  filter_ = new QueryListFilter(this);
  filter_->setSourceModel(model_);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("retrievalQueryList"));
  table_->setModel(filter_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(QueryListModel::DiffColumn, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(QueryListModel::TextColumn, QHeaderView::Stretch);
  auto* export_csv = new QPushButton(tr("Export CSV…"), this);
  auto* left = new QWidget(this);
  auto* lv = new QVBoxLayout(left);
  lv->setContentsMargins(0, 0, 0, 0);
  lv->addWidget(recall_view_);
  lv->addWidget(counts_label_);
  auto* filters = new QHBoxLayout;
  filters->addWidget(filter_mode_);
  filters->addWidget(search_, 1);
  lv->addLayout(filters);
  lv->addWidget(table_, 1);
  lv->addWidget(export_csv, 0, Qt::AlignLeft);

  // Right: k, ad-hoc box, export, side-by-side view.
  k_spin_ = new QSpinBox(this);
  k_spin_->setRange(1, kMaxK);
  k_spin_->setValue(kDefaultK);
  k_spin_->setPrefix(tr("top-"));
  adhoc_edit_ = new QLineEdit(this);
  adhoc_edit_->setPlaceholderText(tr("Type any caption and press Enter to retrieve with both runs…"));
  adhoc_button_ = new QPushButton(tr("Retrieve"), this);
  auto* export_png = new QPushButton(tr("Export PNG…"), this);
  view_ = new RetrievalView(thumbs_, this);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(view_);
  scroll->setWidgetResizable(true);
  auto* right = new QWidget(this);
  auto* rv = new QVBoxLayout(right);
  rv->setContentsMargins(0, 0, 0, 0);
  auto* tools = new QHBoxLayout;
  tools->addWidget(k_spin_);
  tools->addWidget(adhoc_edit_, 1);
  tools->addWidget(adhoc_button_);
  tools->addWidget(export_png);
  rv->addLayout(tools);
  rv->addWidget(scroll, 1);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(left);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 4);  // the view needs k thumbnails side by side
  // Initial split: the query list wide enough to read its captions, the view 5 thumbnails wide.
  splitter->setSizes({440, 740});
  auto* status_row = new QHBoxLayout;
  status_row->addWidget(status_, 1);
  status_row->addWidget(progress_);
  status_row->addWidget(cancel_button_);
  auto* main = new QVBoxLayout(this);
  main->addLayout(pickers);
  main->addWidget(warning_label_);
  main->addWidget(splitter, 1);
  main->addLayout(status_row);

  runs_watcher_ = new QFutureWatcher<std::shared_ptr<RunsResult>>(this);
  queries_watcher_ = new QFutureWatcher<std::shared_ptr<QueriesResult>>(this);
  retrievers_watcher_ = new QFutureWatcher<std::shared_ptr<RetrieverJob>>(this);
  adhoc_watcher_ = new QFutureWatcher<std::shared_ptr<AdhocResult>>(this);
  connect(runs_watcher_, &QFutureWatcherBase::finished, this, &RetrievalPanel::onRunsLoaded);
  connect(queries_watcher_, &QFutureWatcherBase::finished, this, &RetrievalPanel::onQueriesLoaded);
  connect(retrievers_watcher_, &QFutureWatcherBase::finished, this, &RetrievalPanel::onRetrieversLoaded);
  connect(adhoc_watcher_, &QFutureWatcherBase::finished, this, &RetrievalPanel::onAdhocFinished);
  settle_timer_ = new QTimer(this);
  settle_timer_->setInterval(kSettlePollMs);
  connect(settle_timer_, &QTimer::timeout, this, [this] {
    if (!view_->allImagesShown()) return;
    settle_timer_->stop();
    emit viewSettled();
  });

  connect(run_a_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    if (filling_) return;
    fillPartnerCombo();
    filling_ = true;
    fillEpochCombo(epoch_a_, runA());
    fillEpochCombo(epoch_b_, runB());
    filling_ = false;
    onSelectionChanged();
  });
  connect(run_b_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    if (filling_) return;
    if (runB() != 0) warning_text_.clear();  // the list holds only runs on A's split
    filling_ = true;
    fillEpochCombo(epoch_b_, runB());
    filling_ = false;
    onSelectionChanged();
  });
  for (auto* c : {epoch_a_, epoch_b_, direction_}) {
    connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
      if (!filling_) onSelectionChanged();
    });
  }
  connect(cancel_button_, &QPushButton::clicked, this, &RetrievalPanel::cancel);
  connect(filter_mode_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { filter_->setMode(static_cast<QueryListFilter::Mode>(i)); });
  connect(search_, &QLineEdit::textChanged, filter_, &QueryListFilter::setSearchText);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (!current.isValid()) return;
    const int64_t q = filter_->data(current, QueryListModel::QueryIdRole).toLongLong();
    selected_query_ = q;
    showing_adhoc_ = false;
    showQuery(q);
  });
  connect(k_spin_, qOverload<int>(&QSpinBox::valueChanged), this, [this] {
    if (showing_adhoc_) runAdhocQuery(adhoc_text_);
    else showSelected();
  });
  connect(adhoc_edit_, &QLineEdit::returnPressed, this, [this] { runAdhocQuery(adhoc_edit_->text()); });
  connect(adhoc_button_, &QPushButton::clicked, this, [this] { runAdhocQuery(adhoc_edit_->text()); });
  connect(export_csv, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export query list"), QStringLiteral("queries.csv"), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error)) status_->setText(error);
  });
  connect(export_png, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export side-by-side view"), QStringLiteral("retrieval.png"), tr("PNG (*.png)"));
    QString error;
    if (!path.isEmpty() && !exportPng(path, &error)) status_->setText(error);
  });
}

RetrievalPanel::~RetrievalPanel() {
  cancel();
  for (QFutureWatcherBase* w : std::initializer_list<QFutureWatcherBase*>{runs_watcher_, queries_watcher_, retrievers_watcher_, adhoc_watcher_}) {
    w->disconnect(this);
    w->waitForFinished();
  }
}

// ---- runs -------------------------------------------------------------------------------------

void RetrievalPanel::refresh() {
  if (runs_watcher_->isRunning()) return;
  const std::string db = db_path_.toStdString(), cache = cache_dir_.toStdString();
  setProgress(0, 0, tr("reading runs…"));
  runs_watcher_->setFuture(QtConcurrent::run([db, cache] {
    auto r = std::make_shared<RunsResult>();
    try {
      r->runs = load_run_summaries(db);
      for (const auto& s : r->runs) r->splits[s.record.id] = retrieval_split_of(s.record.config_json, cache);
    } catch (const std::exception& e) {
      r->error = qs(e.what());
    }
    return r;
  }));
  updateBusy();
}

void RetrievalPanel::onRunsLoaded() {
  const auto r = runs_watcher_->result();
  if (!r->error.isEmpty()) {
    last_error_ = r->error;
    status_->setText(r->error);
    updateBusy();
    return;
  }
  summaries_ = r->runs;
  splits_ = r->splits;
  if (pending_a_ == 0) pending_a_ = runA();
  if (pending_b_ == 0) pending_b_ = runB();
  fillRunCombos();
  status_->clear();
  updateBusy();
  emit runsLoaded();
  onSelectionChanged();
}

const RunSummary* RetrievalPanel::summary(int64_t run) const {
  for (const auto& s : summaries_)
    if (s.record.id == run) return &s;
  return nullptr;
}

void RetrievalPanel::fillRunCombos() {
  filling_ = true;
  run_a_->clear();
  for (const auto& s : summaries_) {
    if (s.report_epoch < 0) continue;  // never evaluated: nothing to compare
    run_a_->addItem(tr("%1 (#%2)").arg(qs(s.record.name)).arg(s.record.id), QVariant::fromValue<qlonglong>(s.record.id));
  }
  int ia = run_a_->findData(QVariant::fromValue<qlonglong>(pending_a_));
  if (ia < 0 && run_a_->count() > 1) ia = 1;  // newest first: A = the second newest, B = the newest
  if (ia >= 0) run_a_->setCurrentIndex(ia);
  filling_ = false;
  fillPartnerCombo();
  filling_ = true;
  fillEpochCombo(epoch_a_, runA());
  fillEpochCombo(epoch_b_, runB());
  if (pending_epoch_a_ >= 0) epoch_a_->setCurrentIndex(std::max(0, epoch_a_->findData(pending_epoch_a_)));
  if (pending_epoch_b_ >= 0) epoch_b_->setCurrentIndex(std::max(0, epoch_b_->findData(pending_epoch_b_)));
  pending_a_ = 0;
  pending_epoch_a_ = pending_epoch_b_ = -1;
  filling_ = false;
}

void RetrievalPanel::fillPartnerCombo() {
  const bool was = filling_;
  filling_ = true;
  const int64_t a = runA();
  const int64_t keep = pending_b_ ? pending_b_ : runB();
  run_b_->clear();
  warning_text_.clear();
  const auto sa = splits_.find(a);
  for (const auto& s : summaries_) {
    if (s.report_epoch < 0 || s.record.id == a) continue;
    const auto sb = splits_.find(s.record.id);
    if (sa == splits_.end() || sb == splits_.end() || sa->second.key != sb->second.key) continue;
    run_b_->addItem(tr("%1 (#%2)").arg(qs(s.record.name)).arg(s.record.id), QVariant::fromValue<qlonglong>(s.record.id));
  }
  int ib = run_b_->findData(QVariant::fromValue<qlonglong>(keep));
  if (ib < 0 && keep != 0 && splits_.count(keep) && sa != splits_.end()) {
    warning_text_ = tr("Run %1 was evaluated on %2, run %3 on %4: their ranks cannot be compared.")
                        .arg(keep).arg(qs(splits_[keep].label)).arg(a).arg(qs(sa->second.label));
  }
  if (ib < 0 && run_b_->count() > 0) ib = 0;
  if (ib >= 0) run_b_->setCurrentIndex(ib);
  if (run_b_->count() == 0 && a != 0 && warning_text_.isEmpty()) {
    warning_text_ = tr("No other evaluated run was evaluated on %1.")
                        .arg(sa != splits_.end() ? qs(sa->second.label) : tr("run %1's split").arg(a));
  }
  pending_b_ = 0;
  filling_ = was;
}

void RetrievalPanel::fillEpochCombo(QComboBox* combo, int64_t run) {
  combo->clear();
  const auto* s = summary(run);
  if (!s) return;
  std::set<int> epochs;
  for (const auto& e : s->evals) epochs.insert(e.epoch);
  for (int e : epochs) combo->addItem(e == s->report_epoch ? tr("%1 (best)").arg(e) : QString::number(e), e);
  combo->setCurrentIndex(std::max(0, combo->findData(s->report_epoch)));
}

void RetrievalPanel::setRuns(int64_t run_a, int64_t run_b) {
  pending_a_ = run_a;
  pending_b_ = run_b;
  if (summaries_.empty()) return;  // applied in onRunsLoaded
  fillRunCombos();
  onSelectionChanged();
}

void RetrievalPanel::setEpochs(int epoch_a, int epoch_b) {
  pending_epoch_a_ = epoch_a;
  pending_epoch_b_ = epoch_b;
  if (summaries_.empty()) return;  // applied in onRunsLoaded
  filling_ = true;
  if (epoch_a_->findData(epoch_a) >= 0) epoch_a_->setCurrentIndex(epoch_a_->findData(epoch_a));
  if (epoch_b_->findData(epoch_b) >= 0) epoch_b_->setCurrentIndex(epoch_b_->findData(epoch_b));
  pending_epoch_a_ = pending_epoch_b_ = -1;
  filling_ = false;
  onSelectionChanged();
}

void RetrievalPanel::setDirection(const QString& direction) {
  const int i = direction_->findData(direction);
  if (i >= 0) direction_->setCurrentIndex(i);
}

QString RetrievalPanel::direction() const { return direction_->currentData().toString(); }
int64_t RetrievalPanel::runA() const { return run_a_->currentIndex() < 0 ? 0 : run_a_->currentData().toLongLong(); }
int64_t RetrievalPanel::runB() const { return run_b_->currentIndex() < 0 ? 0 : run_b_->currentData().toLongLong(); }
int RetrievalPanel::epochA() const { return epoch_a_->currentIndex() < 0 ? -1 : epoch_a_->currentData().toInt(); }
int RetrievalPanel::epochB() const { return epoch_b_->currentIndex() < 0 ? -1 : epoch_b_->currentData().toInt(); }
void RetrievalPanel::setK(int k) { k_spin_->setValue(k); }
int RetrievalPanel::k() const { return k_spin_->value(); }
QString RetrievalPanel::warning() const { return warning_text_; }

// ---- queries ----------------------------------------------------------------------------------

void RetrievalPanel::onSelectionChanged() {
  warning_label_->setText(warning_text_);
  warning_label_->setVisible(!warning_text_.isEmpty());
  rebuildRecallTable();
  if (runA() == 0 || runB() == 0 || epochA() < 0 || epochB() < 0 || !warning_text_.isEmpty()) {
    model_->setRows({}, QStringLiteral("A"), QStringLiteral("B"));
    updateCounts();
    view_->clear(warning_text_.isEmpty() ? tr("Pick two runs evaluated on the same split.") : warning_text_);
    return;
  }
  loadQueries();
  loadRetrievers();
}

void RetrievalPanel::loadQueries() {
  if (queries_cancel_) queries_cancel_->store(true);
  queries_cancel_ = std::make_shared<std::atomic<bool>>(false);
  const int generation = ++queries_generation_;
  const std::string db = db_path_.toStdString(), cache = cache_dir_.toStdString();
  const int64_t a = runA(), b = runB();
  const int ea = epochA(), eb = epochB();
  const std::string dir = direction().toStdString();
  const std::string key = splits_[a].key;
  auto catalog = key == catalog_key_ ? queries_.catalog : nullptr;
  auto cancel = queries_cancel_;
  setProgress(0, 0, tr("reading ranks…"));
  auto* watcher = queries_watcher_;
  if (watcher->isRunning()) {
    // The running load is stale: start the new one when it is done.
    auto* once = new QMetaObject::Connection;
    *once = connect(watcher, &QFutureWatcherBase::finished, this, [this, once, generation] {
      disconnect(*once);
      delete once;
      if (generation == queries_generation_) QTimer::singleShot(0, this, &RetrievalPanel::loadQueries);
    });
    return;
  }
  watcher->setProperty("generation", generation);
  watcher->setProperty("key", qs(key));
  // Opening the split may generate the built-in benchmark: its messages go to the status line.
  QPointer<RetrievalPanel> self(this);
  auto report = [self](const std::string& message) {
    QMetaObject::invokeMethod(
        self, [self, m = qs(message)] {
          if (self) self->setProgress(0, 0, m);
        },
        Qt::QueuedConnection);
  };
  watcher->setFuture(QtConcurrent::run([db, cache, a, b, ea, eb, dir, catalog, cancel, report] {
    auto r = std::make_shared<QueriesResult>();
    try {
      r->queries = load_retrieval_queries(db, cache, a, ea, b, eb, dir, catalog, cancel.get(), report);
    } catch (const std::exception& e) {
      r->error = qs(e.what());
    }
    return r;
  }));
  updateBusy();
}

void RetrievalPanel::onQueriesLoaded() {
  const auto r = queries_watcher_->result();
  const bool stale = queries_watcher_->property("generation").toInt() != queries_generation_;
  updateBusy();
  if (stale) return;
  if (!r->error.isEmpty()) {
    last_error_ = r->error;
    status_->setText(last_error_);
    return;
  }
  queries_ = r->queries;
  catalog_key_ = queries_watcher_->property("key").toString().toStdString();
  const auto& cat = *queries_.catalog;
  caption_image_.resize(static_cast<size_t>(cat.num_captions()));
  for (int64_t c = 0; c < cat.num_captions(); ++c) caption_image_[static_cast<size_t>(c)] = cat.caption_image(c);
  const bool t2i = queries_.direction == "t2i";
  std::map<int64_t, QueryListRow> rows;
  for (const auto& q : queries_.ranks_a) {
    auto& row = rows[q.query];
    row.query = q.query;
    row.rank_a = q.rank;
  }
  for (const auto& q : queries_.ranks_b) {
    auto& row = rows[q.query];
    row.query = q.query;
    row.rank_b = q.rank;
  }
  std::vector<QueryListRow> list;
  for (auto& [id, row] : rows) {
    try {
      row.text = t2i ? qs(cat.caption_text(id))
                     : tr("image %1: %2").arg(id).arg(qs(cat.caption_text(cat.image_captions(id).front())));
    } catch (const std::out_of_range&) {
      row.text = tr("(query %1 is not in the split: stored ranks and benchmark disagree)").arg(id);
    }
    list.push_back(row);
  }
  const auto* sa = summary(runA());
  const auto* sb = summary(runB());
  model_->setRows(std::move(list), sa ? qs(sa->record.name) : QStringLiteral("A"), sb ? qs(sb->record.name) : QStringLiteral("B"));
  updateCounts();
  status_->setText(tr("%1 queries").arg(model_->rowCount()));
  emit queriesLoaded();
  // A reload (tab shown again, other epoch or direction) keeps what the view shows.
  if (showing_adhoc_ && adhoc_) showAdhoc();
  else if (!selected_query_ || !selectQuery(*selected_query_)) view_->clear(tr("Select a query in the list."));
}

void RetrievalPanel::updateCounts() {
  const auto c = model_->counts();
  if (c.queries == 0) {
    counts_label_->clear();
    return;
  }
  const auto* sa = summary(runA());
  const auto* sb = summary(runB());
  const QString a = sa ? qs(sa->record.name) : QStringLiteral("A"), b = sb ? qs(sb->record.name) : QStringLiteral("B");
  counts_label_->setText(tr("%1 queries: <b>%2</b> fixes %3 that %4 misses, <b>%4</b> fixes %5 that %2 misses; "
                            "both correct %6, both wrong %7.")
                             .arg(c.queries).arg(a.toHtmlEscaped()).arg(c.a_only).arg(b.toHtmlEscaped()).arg(c.b_only)
                             .arg(c.both_correct).arg(c.both_wrong));
}

void RetrievalPanel::rebuildRecallTable() {
  recall_model_->clear();
  std::vector<RunSummary> runs;
  for (const auto& [run, epoch] : {std::pair{runA(), epochA()}, std::pair{runB(), epochB()}}) {
    const auto* s = summary(run);
    if (!s) continue;
    RunSummary copy = *s;
    copy.report_epoch = epoch;
    runs.push_back(std::move(copy));
  }
  if (runs.empty()) return;
  const RecallTable table = RecallTable::fromSummaries(runs);
  fill_recall_model(recall_model_, table, font());
  const auto& rows = table.rows();
  for (size_t r = 0; r < rows.size(); ++r) {
    auto* header = new QStandardItem(QStringLiteral("%1  %2").arg(r == 0 ? QStringLiteral("A") : QStringLiteral("B"),
                                                                  qs(rows[r].run_name)));
    header->setForeground(run_color(rows[r].run_id));
    recall_model_->setVerticalHeaderItem(static_cast<int>(r), header);
  }
  // Only the chosen direction's columns: the list below ranks that direction.
  for (int c = 0; c < RecallTable::kValueColumns; ++c)
    recall_view_->setColumnHidden(1 + c, RecallTable::direction(c) != direction().toStdString());
  recall_view_->resizeColumnsToContents();
}

// ---- retrievers -------------------------------------------------------------------------------

std::shared_ptr<const RunRetriever> RetrievalPanel::retriever(int64_t run, int epoch) const {
  const auto it = retrievers_.find({run, epoch});
  return it == retrievers_.end() ? nullptr : it->second;
}

bool RetrievalPanel::retrieversReady() const {
  return retriever(runA(), epochA()) && retriever(runB(), epochB());
}

void RetrievalPanel::loadRetrievers() {
  // Only the two chosen checkpoints stay loaded (a ViT-B model and its split's embeddings are
  // hundreds of MB); errors of others are forgotten, so choosing them again retries.
  const RetrieverKey ka{runA(), epochA()}, kb{runB(), epochB()};
  for (auto it = retrievers_.begin(); it != retrievers_.end();)
    it = it->first == ka || it->first == kb ? std::next(it) : retrievers_.erase(it);
  for (auto it = retriever_errors_.begin(); it != retriever_errors_.end();)
    it = it->first == ka || it->first == kb ? std::next(it) : retriever_errors_.erase(it);
  if (retrievers_watcher_->isRunning()) {
    retrievers_pending_ = true;  // reloaded for the new selection once this one is done
    return;
  }
  std::vector<RetrieverKey> wanted;
  for (const RetrieverKey& key : {RetrieverKey{runA(), epochA()}, RetrieverKey{runB(), epochB()}}) {
    if (key.first != 0 && !retrievers_.count(key) && !retriever_errors_.count(key) &&
        std::find(wanted.begin(), wanted.end(), key) == wanted.end())
      wanted.push_back(key);
  }
  if (wanted.empty()) return;
  retrievers_cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto cancel = retrievers_cancel_;
  const std::string db = db_path_.toStdString(), cache = cache_dir_.toStdString();
  QPointer<RetrievalPanel> self(this);
  auto report = [self](int64_t done, int64_t total, const std::string& message) {
    QMetaObject::invokeMethod(
        self, [self, done, total, m = qs(message)] {
          if (self) self->setProgress(done, total, m);
        },
        Qt::QueuedConnection);
  };
  setProgress(0, 0, tr("loading checkpoints…"));
  retrievers_watcher_->setFuture(QtConcurrent::run([wanted, cancel, db, cache, report] {
    auto job = std::make_shared<RetrieverJob>();
    for (const auto& key : wanted) {
      RunRetrieverOptions o;
      o.database = db;
      o.cache_dir = cache;
      o.run_id = key.first;
      o.epoch = key.second;
      try {
        job->loaded[key] = RunRetriever::open(o, report, cancel.get());
      } catch (const RetrievalCancelled&) {
        job->cancelled = true;
        break;
      } catch (const std::exception& e) {
        job->errors[key] = qs(e.what());
      }
    }
    return job;
  }));
  updateBusy();
}

void RetrievalPanel::onRetrieversLoaded() {
  const auto job = retrievers_watcher_->result();
  const RetrieverKey ka{runA(), epochA()}, kb{runB(), epochB()};
  for (const auto& [key, r] : job->loaded)
    if (key == ka || key == kb) retrievers_[key] = r;  // else the selection moved on meanwhile
  for (const auto& [key, e] : job->errors) retriever_errors_[key] = e;
  QStringList errors;
  for (const auto& [key, e] : job->errors) errors << tr("run %1 epoch %2: %3").arg(key.first).arg(key.second).arg(e);
  if (!errors.isEmpty()) {
    last_error_ = errors.join(QStringLiteral("; "));
    status_->setText(tr("scores unavailable — %1").arg(last_error_));
  } else if (job->cancelled) {
    status_->setText(tr("loading embeddings cancelled"));
  } else {
    status_->setText(tr("embeddings ready"));
  }
  updateBusy();
  if (retrievers_pending_) {
    retrievers_pending_ = false;
    loadRetrievers();
  }
  if (!showing_adhoc_) {
    showSelected();
  } else if (retrieversReady() && adhoc_ && !adhoc_text_.isEmpty()) {
    // An ad-hoc result of other runs or epochs is asked again of the chosen ones.
    const bool current = adhoc_->results.size() == 2 && adhoc_->results[0].first == RetrieverKey{runA(), epochA()} &&
                         adhoc_->results[1].first == RetrieverKey{runB(), epochB()};
    if (!current) runAdhocQuery(adhoc_text_);
  }
  if (retrieversReady()) emit retrieversLoaded();
  emit retrieversFinished();
}

// ---- side-by-side view ------------------------------------------------------------------------

bool RetrievalPanel::selectQuery(int64_t query) {
  for (int row = 0; row < filter_->rowCount(); ++row) {
    const auto index = filter_->index(row, 0);
    if (filter_->data(index, QueryListModel::QueryIdRole).toLongLong() == query) {
      selected_query_ = query;
      showing_adhoc_ = false;
      table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      table_->scrollTo(index);
      showQuery(query);
      return true;
    }
  }
  return false;
}

bool RetrievalPanel::selectLargestDifference() {
  int64_t best = -1, best_diff = -1;
  for (int row = 0; row < filter_->rowCount(); ++row) {
    const auto src = filter_->mapToSource(filter_->index(row, 0)).row();
    const auto& r = model_->rows()[static_cast<size_t>(src)];
    const int64_t d = std::llabs(QueryListModel::difference(r));
    if (d > best_diff || (d == best_diff && r.query < best)) {
      best_diff = d;
      best = r.query;
    }
  }
  return best >= 0 && selectQuery(best);
}

void RetrievalPanel::showSelected() {
  if (selected_query_) showQuery(*selected_query_);
}

void RetrievalPanel::showQuery(int64_t query) {
  if (!queries_.catalog) return;
  const auto& cat = *queries_.catalog;
  const bool t2i = queries_.direction == "t2i";
  const int k = k_spin_->value();
  std::vector<int64_t> truth;
  QString query_text, query_image, title;
  try {
    if (t2i) {
      truth = {cat.caption_image(query)};
      query_text = qs(cat.caption_text(query));
      title = tr("Text → image · caption %1 · ground truth: image %2").arg(query).arg(truth.front());
    } else {
      truth = cat.image_captions(query);
      query_image = qs(cat.image_path(query));
      QStringList caps;
      for (int64_t c : truth) caps << qs(cat.caption_text(c));
      query_text = caps.join(QStringLiteral("\n"));
      title = tr("Image → text · image %1 · ground truth: its %2 caption(s)").arg(query).arg(truth.size());
    }
  } catch (const std::out_of_range&) {
    view_->clear(tr("Query %1 is not in the split.").arg(query));
    return;
  }
  // Near-twins: the stored caption geometry's neighbours, else those of the first run whose
  // embeddings are loaded.
  std::set<int64_t> twins;
  auto twin_source = retriever(runA(), epochA());
  if (!twin_source) twin_source = retriever(runB(), epochB());
  std::vector<int64_t> neighbors;
  for (int64_t c : t2i ? std::vector<int64_t>{query} : truth) {
    if (!queries_.caption_neighbors.empty()) {
      const auto it = queries_.caption_neighbors.find(c);
      if (it != queries_.caption_neighbors.end()) neighbors.insert(neighbors.end(), it->second.begin(), it->second.end());
    } else if (twin_source) {
      for (const auto& n : twin_source->caption_neighbors(c, kNearTwinNeighbors)) neighbors.push_back(n.id);
    }
  }
  twins = near_twin_candidates(t2i, neighbors, truth, caption_image_);
  std::vector<RetrievalViewRow> rows;
  const std::vector<std::pair<int64_t, int>> runs{{runA(), epochA()}, {runB(), epochB()}};
  const std::vector<const std::vector<QueryRankRow>*> ranks{&queries_.ranks_a, &queries_.ranks_b};
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto [run, epoch] = runs[i];
    const auto* s = summary(run);
    RetrievalViewRow row;
    row.run_name = QStringLiteral("%1: %2").arg(i == 0 ? QStringLiteral("A") : QStringLiteral("B"),
                                                s ? qs(s->record.name) : QString::number(run));
    row.color = run_color(run);
    const auto it = std::lower_bound(ranks[i]->begin(), ranks[i]->end(), query,
                                     [](const QueryRankRow& r, int64_t q) { return r.query < q; });
    const QueryRankRow* stored = it != ranks[i]->end() && it->query == query ? &*it : nullptr;
    const int64_t rank = stored ? stored->rank : 0;
    row.rank_text = rank > 0 ? tr("epoch %1 · rank %2").arg(epoch).arg(rank) : tr("epoch %1 · rank not stored").arg(epoch);
    std::vector<int64_t> ids;
    std::vector<float> scores;
    if (const auto r = retriever(run, epoch)) {
      for (const auto& c : r->query_topk(queries_.direction, query, k)) {
        ids.push_back(c.id);
        scores.push_back(c.score);
      }
    } else if (stored) {
      for (size_t j = 0; j < stored->topk.size() && static_cast<int>(j) < k; ++j) ids.push_back(stored->topk[j]);
      scores.assign(ids.size(), NAN);
      const auto err = retriever_errors_.find({run, epoch});
      row.note = err != retriever_errors_.end() ? tr("no scores: %1").arg(err->second)
                 : k > kStoredTopK             ? tr("stored top-%1 only until the embeddings are loaded").arg(kStoredTopK)
                                               : QString();
    }
    const auto marks = mark_retrieval(ids, truth, rank, twins);
    if (!marks.rank_note.isEmpty()) row.note = marks.rank_note + (row.note.isEmpty() ? QString() : QStringLiteral("; ") + row.note);
    for (size_t j = 0; j < marks.items.size(); ++j) {
      RetrievalViewItem item;
      const int64_t id = marks.items[j].id;
      item.score = scores[j];
      item.ground_truth = marks.items[j].ground_truth;
      item.near_twin = marks.items[j].near_twin;
      try {
        if (t2i) {
          item.image_path = qs(cat.image_path(id));
          QStringList caps;
          for (int64_t c : cat.image_captions(id)) caps << qs(cat.caption_text(c));
          item.tooltip = tr("image %1\n%2").arg(id).arg(caps.join(QStringLiteral("\n")));
        } else {
          item.text = qs(cat.caption_text(id));
          item.tooltip = tr("caption %1 of image %2").arg(id).arg(cat.caption_image(id));
        }
      } catch (const std::out_of_range&) {
        item.text = tr("(id %1 outside the split)").arg(id);
      }
      row.items.push_back(std::move(item));
    }
    rows.push_back(std::move(row));
  }
  view_->setContent(title, query_text, query_image, rows);
  emit viewUpdated();
  startSettleWatch();
}

void RetrievalPanel::startSettleWatch() { settle_timer_->start(); }

// ---- ad-hoc -----------------------------------------------------------------------------------

void RetrievalPanel::runAdhocQuery(const QString& text) {
  if (text.trimmed().isEmpty()) return;
  adhoc_text_ = text;
  showing_adhoc_ = true;
  if (!retrieversReady()) {
    view_->clear(tr("The runs' embeddings are still loading (or failed: see the status line); "
                    "the ad-hoc query needs both checkpoints."));
    emit adhocFinished();
    return;
  }
  if (adhoc_watcher_->isRunning()) return;  // the button is disabled meanwhile
  const std::vector<std::pair<RetrieverKey, std::shared_ptr<const RunRetriever>>> rs{
      {{runA(), epochA()}, retriever(runA(), epochA())}, {{runB(), epochB()}, retriever(runB(), epochB())}};
  const int k = k_spin_->value();
  const std::string t = text.toStdString();
  setProgress(0, 0, tr("encoding the query…"));
  adhoc_watcher_->setFuture(QtConcurrent::run([rs, k, t, text] {
    auto r = std::make_shared<AdhocResult>();
    r->text = text;
    r->k = k;
    try {
      for (const auto& [key, retriever] : rs) r->results.emplace_back(key, retriever->query_text(t, k));
    } catch (const std::exception& e) {
      r->error = qs(e.what());
    }
    return r;
  }));
  updateBusy();
}

void RetrievalPanel::onAdhocFinished() {
  adhoc_ = adhoc_watcher_->result();
  updateBusy();
  status_->setText(adhoc_->error.isEmpty() ? tr("ad-hoc query done") : adhoc_->error);
  if (showing_adhoc_) showAdhoc();
  emit adhocFinished();
}

void RetrievalPanel::showAdhoc() {
  if (!adhoc_ || !queries_.catalog) return;
  const auto& cat = *queries_.catalog;
  std::vector<RetrievalViewRow> rows;
  int i = 0;
  for (const auto& [key, results] : adhoc_->results) {
    const auto* s = summary(key.first);
    RetrievalViewRow row;
    row.run_name = QStringLiteral("%1: %2").arg(i++ == 0 ? QStringLiteral("A") : QStringLiteral("B"),
                                                s ? qs(s->record.name) : QString::number(key.first));
    row.color = run_color(key.first);
    row.rank_text = tr("epoch %1").arg(key.second);
    for (const auto& c : results) {
      RetrievalViewItem item;
      item.score = c.score;
      try {
        item.image_path = qs(cat.image_path(c.id));
        QStringList caps;
        for (int64_t cap : cat.image_captions(c.id)) caps << qs(cat.caption_text(cap));
        item.tooltip = tr("image %1\n%2").arg(c.id).arg(caps.join(QStringLiteral("\n")));
      } catch (const std::out_of_range&) {
        item.text = tr("(image %1 outside the split)").arg(c.id);
      }
      row.items.push_back(std::move(item));
    }
    rows.push_back(std::move(row));
  }
  view_->setContent(tr("Ad-hoc query (text → image, top-%1)").arg(adhoc_->k), adhoc_->text, QString(), rows);
  emit viewUpdated();
  startSettleWatch();
}

// ---- status, export ---------------------------------------------------------------------------

void RetrievalPanel::setProgress(int64_t done, int64_t total, const QString& message) {
  if (total > 0) {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(1000 * done / total));
  } else {
    progress_->setRange(0, 0);  // busy indicator
  }
  if (!message.isEmpty()) status_->setText(message);
}

bool RetrievalPanel::isBusy() const {
  return runs_watcher_->isRunning() || queries_watcher_->isRunning() || retrievers_watcher_->isRunning() ||
         adhoc_watcher_->isRunning();
}

void RetrievalPanel::updateBusy() {
  // Called right after a watcher was started or finished: isRunning() is current for both.
  const bool busy = isBusy();
  progress_->setVisible(busy);
  cancel_button_->setEnabled(busy);
  adhoc_button_->setEnabled(!adhoc_watcher_->isRunning());
}

void RetrievalPanel::cancel() {
  if (queries_cancel_) queries_cancel_->store(true);
  if (retrievers_cancel_) retrievers_cancel_->store(true);
  retrievers_pending_ = false;
}

bool RetrievalPanel::exportCsv(const QString& path, QString* error) const {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  const QByteArray bytes = filter_->toCsv().toUtf8();
  if (f.write(bytes) != bytes.size()) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

bool RetrievalPanel::exportPng(const QString& path, QString* error) const {
  if (!view_->grab().save(path, "PNG")) {
    if (error) *error = tr("Cannot write %1").arg(path);
    return false;
  }
  return true;
}

}  // namespace hnclip::gui
