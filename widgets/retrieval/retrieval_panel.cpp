#include "widgets/retrieval/retrieval_panel.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <cstdlib>

#include "widgets/common/recall_table.h"
#include "widgets/common/recall_table_model.h"
#include "widgets/common/run_colors.h"
#include "widgets/common/run_label.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/retrieval/retrieval_view.h"

namespace hnclip::gui {

namespace {

constexpr int kDefaultK = 5;
constexpr int kMaxK = 50;
constexpr int kSettlePollMs = 50;

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

RetrievalPanel::RetrievalPanel(QString db_path, QString cache_dir, ThumbnailCache* thumbnails,
                               QWidget* parent)
    : QWidget(parent),
      db_path_(std::move(db_path)),
      cache_dir_(std::move(cache_dir)),
      thumbs_(thumbnails) {
  if (!thumbs_) {
    const QString dir =
        cache_dir_.isEmpty() ? QString() : QDir(cache_dir_).filePath(QStringLiteral("thumbnails"));
    thumbs_ = new ThumbnailCache(dir, 64LL << 20, this);
  }
  loader_ = new RetrievalLoader(db_path_, cache_dir_, this);
  auto* main = new QVBoxLayout(this);
  picker_ = new RetrievalRunPicker(this);
  warning_label_ = new QLabel(this);
  warning_label_->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold;"));
  warning_label_->setWordWrap(true);
  warning_label_->setVisible(false);
  QLayout* status_row = buildStatusRow();
  main->addWidget(picker_);
  main->addWidget(warning_label_);
  main->addWidget(buildSplitter(), 1);
  main->addLayout(status_row);
  settle_timer_ = new QTimer(this);
  settle_timer_->setInterval(kSettlePollMs);
  connect(settle_timer_, &QTimer::timeout, this, [this] {
    if (!view_->allImagesShown()) return;
    settle_timer_->stop();
    emit viewSettled();
  });
  connect(picker_, &RetrievalRunPicker::selectionChanged, this,
          &RetrievalPanel::onSelectionChanged);
  connectQueryList();
  connectViewTools();
  connectLoader();
}

RetrievalPanel::~RetrievalPanel() {
  // The loader waits for its workers while the widgets its signals reach still exist.
  loader_->disconnect(this);
  delete loader_;
}

// ---- construction -----------------------------------------------------------------------------

QLayout* RetrievalPanel::buildStatusRow() {
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(false);  // the status beside it says what; a "100%" there misled
  progress_->setVisible(false);
  status_ = new QLabel(this);
  // Long messages (errors naming files) must not widen the window: they are elided by the layout.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  cancel_button_ = new QPushButton(tr("Cancel"), this);
  cancel_button_->setEnabled(false);
  connect(cancel_button_, &QPushButton::clicked, this, &RetrievalPanel::cancel);
  auto* row = new QHBoxLayout;
  row->addWidget(status_, 1);
  row->addWidget(progress_);
  row->addWidget(cancel_button_);
  return row;
}

// The query list: rank differences, sortable, filtered.
void RetrievalPanel::buildQueryTable() {
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
  table_->horizontalHeader()->setSectionResizeMode(QueryListModel::TextColumn,
                                                   QHeaderView::Stretch);
}

// Left: recall table, counts, filters, query list.
QWidget* RetrievalPanel::buildQueryList() {
  recall_model_ = new QStandardItemModel(this);
  recall_view_ = new QTableView(this);
  recall_view_->setObjectName(QStringLiteral("retrievalRecallTable"));
  recall_view_->setModel(recall_model_);
  recall_view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  recall_view_->setMaximumHeight(90);
  recall_view_->verticalHeader()->setDefaultSectionSize(recall_view_->fontMetrics().height() + 6);
  counts_label_ = new QLabel(this);
  counts_label_->setObjectName(QStringLiteral("retrievalCounts"));
  counts_label_->setWordWrap(true);
  filter_mode_ = new QComboBox(this);
  filter_mode_->addItem(tr("All queries"));
  filter_mode_->addItem(tr("A correct / B wrong"));
  filter_mode_->addItem(tr("B correct / A wrong"));
  filter_mode_->addItem(tr("Both wrong"));
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search queries…"));
  search_->setClearButtonEnabled(true);
  buildQueryTable();
  auto* export_csv = new QPushButton(tr("Export CSV…"), this);
  connect(export_csv, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export query list"), QStringLiteral("queries.csv"), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error)) setStatus(error);
  });
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
  return left;
}

// Right: k, ad-hoc box, export, side-by-side view.
QWidget* RetrievalPanel::buildViewSide() {
  k_spin_ = new QSpinBox(this);
  k_spin_->setRange(1, kMaxK);
  k_spin_->setValue(kDefaultK);
  k_spin_->setPrefix(tr("top-"));
  adhoc_edit_ = new QLineEdit(this);
  adhoc_edit_->setPlaceholderText(
      tr("Type any caption and press Enter to retrieve with both runs…"));
  adhoc_button_ = new QPushButton(tr("Retrieve"), this);
  auto* export_png = new QPushButton(tr("Export PNG…"), this);
  connect(export_png, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export side-by-side view"), QStringLiteral("retrieval.png"), tr("PNG (*.png)"));
    QString error;
    if (!path.isEmpty() && !exportPng(path, &error)) setStatus(error);
  });
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
  return right;
}

QWidget* RetrievalPanel::buildSplitter() {
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(buildQueryList());
  splitter->addWidget(buildViewSide());
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 4);  // the view needs k thumbnails side by side
  // Initial split: the query list wide enough to read its captions, the view 5 thumbnails wide.
  splitter->setSizes({440, 740});
  return splitter;
}

void RetrievalPanel::connectQueryList() {
  connect(filter_mode_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { filter_->setMode(static_cast<QueryListFilter::Mode>(i)); });
  connect(search_, &QLineEdit::textChanged, filter_, &QueryListFilter::setSearchText);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (!current.isValid()) return;
            const int64_t q = filter_->data(current, QueryListModel::QueryIdRole).toLongLong();
            selected_query_ = q;
            showing_adhoc_ = false;
            showQuery(q);
          });
}

void RetrievalPanel::connectViewTools() {
  connect(k_spin_, qOverload<int>(&QSpinBox::valueChanged), this, [this] {
    if (showing_adhoc_)
      runAdhocQuery(adhoc_text_);
    else
      showSelected();
  });
  connect(adhoc_edit_, &QLineEdit::returnPressed, this,
          [this] { runAdhocQuery(adhoc_edit_->text()); });
  connect(adhoc_button_, &QPushButton::clicked, this,
          [this] { runAdhocQuery(adhoc_edit_->text()); });
}

void RetrievalPanel::connectLoader() {
  connect(loader_, &RetrievalLoader::progress, this, &RetrievalPanel::setProgress);
  connect(loader_, &RetrievalLoader::busyChanged, this, &RetrievalPanel::updateBusy);
  connect(loader_, &RetrievalLoader::runsLoaded, this, &RetrievalPanel::onRunsLoaded);
  connect(loader_, &RetrievalLoader::runsFailed, this, [this](const QString& error) {
    last_error_ = error;
    setStatus(error);
  });
  connect(loader_, &RetrievalLoader::queriesLoaded, this, &RetrievalPanel::onQueriesLoaded);
  connect(loader_, &RetrievalLoader::queriesFailed, this, &RetrievalPanel::onQueriesFailed);
  connect(loader_, &RetrievalLoader::retrieversLoaded, this, &RetrievalPanel::onRetrieversLoaded);
  connect(loader_, &RetrievalLoader::retrieversFinished, this,
          &RetrievalPanel::onRetrieversFinished);
  connect(loader_, &RetrievalLoader::adhocFinished, this, &RetrievalPanel::onAdhocFinished);
}

// ---- runs -------------------------------------------------------------------------------------

void RetrievalPanel::refresh() { loader_->loadRuns(); }

void RetrievalPanel::onRunsLoaded(const RetrievalRunList& list) {
  picker_->setRunList(list);
  status_->clear();
  emit runsLoaded();
  onSelectionChanged();
}

QString RetrievalPanel::runName(int64_t run, const QString& fallback) const {
  const auto* s = summary(run);
  return s ? run_label(run, s->record.name) : fallback;
}

QString RetrievalPanel::sideName(int64_t run, int epoch, const QString& fallback) const {
  const QString name = runName(run, fallback);
  // A run beside itself ("run 1 fixes 12 that run 1 misses") is told apart by its epochs.
  return run != 0 && runA() == runB() ? tr("%1 at epoch %2").arg(name).arg(epoch) : name;
}

void RetrievalPanel::setK(int k) { k_spin_->setValue(k); }
int RetrievalPanel::k() const { return k_spin_->value(); }
QString RetrievalPanel::warning() const { return picker_->warning(); }
void RetrievalPanel::setRuns(int64_t run_a, int64_t run_b) { picker_->setRuns(run_a, run_b); }
void RetrievalPanel::setEpochs(int epoch_a, int epoch_b) { picker_->setEpochs(epoch_a, epoch_b); }
void RetrievalPanel::setDirection(const QString& direction) { picker_->setDirection(direction); }
QString RetrievalPanel::direction() const { return picker_->direction(); }
int64_t RetrievalPanel::runA() const { return picker_->runA(); }
int64_t RetrievalPanel::runB() const { return picker_->runB(); }
int RetrievalPanel::epochA() const { return picker_->epochA(); }
int RetrievalPanel::epochB() const { return picker_->epochB(); }
const RunSummary* RetrievalPanel::summary(int64_t run) const { return picker_->summary(run); }
int RetrievalPanel::queryCount() const { return model_->rowCount(); }

// ---- queries ----------------------------------------------------------------------------------

void RetrievalPanel::onSelectionChanged() {
  const QString warning = picker_->warning();
  warning_label_->setText(warning);
  warning_label_->setVisible(!warning.isEmpty());
  rebuildRecallTable();
  if (runA() == 0 || runB() == 0 || epochA() < 0 || epochB() < 0 || !warning.isEmpty()) {
    model_->setRows({}, QStringLiteral("A"), QStringLiteral("B"));
    updateCounts();
    view_->clear(warning.isEmpty() ? tr("Pick two runs evaluated on the same split.") : warning);
    return;
  }
  RetrievalQueryRequest request;
  request.run_a = runA();
  request.epoch_a = epochA();
  request.run_b = runB();
  request.epoch_b = epochB();
  request.direction = direction().toStdString();
  request.split_key = picker_->splitKey(request.run_a);
  loader_->loadQueries(request);
  loader_->loadRetrievers({runA(), epochA()}, {runB(), epochB()});
}

void RetrievalPanel::onQueriesFailed(const QString& error) {
  last_error_ = error;
  setStatus(last_error_);
  // Nothing can be compared: the reason goes where it can be read whole, not only into the
  // status line (which elides it and is overwritten by the next message).
  model_->setRows({}, QStringLiteral("A"), QStringLiteral("B"));
  updateCounts();
  warning_label_->setText(error);
  warning_label_->setVisible(true);
  view_->clear(tr("The stored ranks cannot be shown: see the message above."));
}

void RetrievalPanel::setStatus(const QString& text) {
  status_->setText(text);
  status_->setToolTip(text);
}

QString RetrievalPanel::statusText() const { return status_->text(); }

void RetrievalPanel::onQueriesLoaded(const RetrievalQueries& queries) {
  content_ = RetrievalContent(queries);
  model_->setRows(content_.queryRows(), sideName(runA(), epochA(), QStringLiteral("A")),
                  sideName(runB(), epochB(), QStringLiteral("B")));
  updateCounts();
  setStatus(tr("%1 queries").arg(model_->rowCount()));
  emit queriesLoaded();
  // A reload (tab shown again, other epoch or direction) keeps what the view shows.
  if (showing_adhoc_ && adhoc_)
    showAdhoc();
  else if (!selected_query_ || !selectQuery(*selected_query_))
    view_->clear(tr("Select a query in the list."));
}

void RetrievalPanel::updateCounts() {
  const auto c = model_->counts();
  if (c.queries == 0) {
    counts_label_->clear();
    return;
  }
  const QString a = sideName(runA(), epochA(), QStringLiteral("A")),
                b = sideName(runB(), epochB(), QStringLiteral("B"));
  counts_label_->setText(
      tr("%1 queries: <b>%2</b> fixes %3 that %4 misses, <b>%4</b> fixes %5 that %2 misses; "
         "both correct %6, both wrong %7.")
          .arg(c.queries)
          .arg(a.toHtmlEscaped())
          .arg(c.a_only)
          .arg(b.toHtmlEscaped())
          .arg(c.b_only)
          .arg(c.both_correct)
          .arg(c.both_wrong));
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
    // The letter in the run's colour, its name and epoch in the tooltip: the pickers above show
    // both, and here they pushed the recall values out of a narrow pane.
    auto* header = new QStandardItem(r == 0 ? QStringLiteral("A") : QStringLiteral("B"));
    header->setToolTip(
        tr("%1, epoch %2").arg(qs(rows[r].run_name), recall_model_->item(r, 0)->text()));
    header->setForeground(run_color(rows[r].run_id));
    recall_model_->setVerticalHeaderItem(static_cast<int>(r), header);
  }
  // Only the chosen direction's columns: the list below ranks that direction.
  recall_view_->setColumnHidden(0, true);  // the epoch: in the pickers and the row's tooltip
  // Headed "R@1" …, the direction in the tooltip: the direction box above names it, and "t→i R@1"
  // headers made the five columns wider than a narrow pane.
  for (int c = 0; c < RecallTable::kValueColumns; ++c) {
    recall_view_->setColumnHidden(1 + c, RecallTable::direction(c) != direction().toStdString());
    if (auto* header = recall_model_->horizontalHeaderItem(1 + c)) {
      header->setToolTip(header->text());
      header->setText(RecallTable::columnTitle(c));
    }
  }
  recall_view_->resizeColumnsToContents();
}

// ---- retrievers -------------------------------------------------------------------------------

std::shared_ptr<const RunRetriever> RetrievalPanel::retriever(int64_t run, int epoch) const {
  return loader_->retriever({run, epoch});
}

bool RetrievalPanel::retrieversReady() const {
  return retriever(runA(), epochA()) && retriever(runB(), epochB());
}

void RetrievalPanel::onRetrieversLoaded(const RetrieverErrors& errors, bool cancelled) {
  QStringList lines;
  for (const auto& [key, e] : errors)
    lines << tr("run %1 epoch %2: %3").arg(key.first).arg(key.second).arg(e);
  if (!lines.isEmpty()) {
    last_error_ = lines.join(QStringLiteral("; "));
    setStatus(tr("scores unavailable — %1").arg(last_error_));
  } else if (cancelled) {
    setStatus(tr("loading embeddings cancelled"));
  } else {
    setStatus(tr("embeddings ready"));
  }
}

void RetrievalPanel::onRetrieversFinished() {
  if (!showing_adhoc_) {
    showSelected();
  } else if (retrieversReady() && adhoc_ && !adhoc_text_.isEmpty()) {
    // An ad-hoc result of other runs or epochs is asked again of the chosen ones.
    const bool current = adhoc_->results.size() == 2 &&
                         adhoc_->results[0].first == RetrieverKey{runA(), epochA()} &&
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
      table_->selectionModel()->setCurrentIndex(
          index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
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

// "A: gamma-0": the i-th compared run's row name.
QString RetrievalPanel::rowName(size_t i, int64_t run, int epoch) const {
  return QStringLiteral("%1: %2").arg(i == 0 ? QStringLiteral("A") : QStringLiteral("B"),
                                      sideName(run, epoch, QString::number(run)));
}

void RetrievalPanel::showQuery(int64_t query) {
  if (content_.empty()) return;
  std::vector<RetrievalShownRun> runs;
  for (const auto& [run, epoch] : {std::pair{runA(), epochA()}, std::pair{runB(), epochB()}}) {
    RetrievalShownRun shown{
        rowName(runs.size(), run, epoch), run, epoch, retriever(run, epoch), {}};
    shown.error = loader_->retrieverError({run, epoch});
    runs.push_back(std::move(shown));
  }
  QString message;
  const auto content = content_.storedQuery(query, k_spin_->value(), runs, &message);
  if (!content) {
    view_->clear(message);
    return;
  }
  showContent(*content);
}

void RetrievalPanel::showContent(const RetrievalViewContent& content) {
  view_->setContent(content.title, content.query_text, content.query_image, content.rows);
  emit viewUpdated();
  settle_timer_->start();
}

// ---- ad-hoc -----------------------------------------------------------------------------------

void RetrievalPanel::runAdhocQuery(const QString& text) {
  if (text.trimmed().isEmpty()) return;
  adhoc_text_ = text;
  showing_adhoc_ = true;
  if (!retrieversReady()) {
    view_->clear(
        tr("The runs' embeddings are still loading (or failed: see the status line); "
           "the ad-hoc query needs both checkpoints."));
    emit adhocFinished();
    return;
  }
  // While one runs the button is disabled and nothing new starts.
  loader_->runAdhoc(text, k_spin_->value(), {runA(), epochA()}, {runB(), epochB()});
}

void RetrievalPanel::onAdhocFinished(std::shared_ptr<const RetrievalAdhocResult> result) {
  adhoc_ = std::move(result);
  std::vector<QString> names;
  for (const auto& r : adhoc_->results)
    names.push_back(rowName(names.size(), r.first.first, r.first.second));
  const QString unknown = RetrievalContent::unknownWordsNote(*adhoc_, names);
  setStatus(!adhoc_->error.isEmpty() ? adhoc_->error
            : unknown.isEmpty()      ? tr("ad-hoc query done")
                                     : tr("ad-hoc query done — %1").arg(unknown));
  if (showing_adhoc_) showAdhoc();
  emit adhocFinished();
}

void RetrievalPanel::showAdhoc() {
  if (!adhoc_ || content_.empty()) return;
  std::vector<QString> names;
  for (const auto& r : adhoc_->results)
    names.push_back(rowName(names.size(), r.first.first, r.first.second));
  showContent(content_.adhoc(*adhoc_, names));
}

// ---- status, export ---------------------------------------------------------------------------

void RetrievalPanel::setProgress(qint64 done, qint64 total, const QString& message) {
  if (total > 0) {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(1000 * done / total));
  } else {
    progress_->setRange(0, 0);  // busy indicator
  }
  if (!message.isEmpty()) setStatus(message);
}

bool RetrievalPanel::isBusy() const { return loader_->isBusy(); }

void RetrievalPanel::updateBusy() {
  const bool busy = isBusy();
  progress_->setVisible(busy);
  cancel_button_->setEnabled(busy);
  adhoc_button_->setEnabled(!loader_->isAdhocRunning());
}

void RetrievalPanel::cancel() { loader_->cancel(); }

QString RetrievalPanel::exportInteractive() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export retrieval"), QStringLiteral("retrieval.png"),
                                   tr("Side-by-side view (*.png);;Query list (*.csv)"));
  if (path.isEmpty()) return {};
  QString error;
  const bool done = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)
                        ? exportCsv(path, &error)
                        : exportPng(path, &error);
  if (!done) {
    QMessageBox::warning(this, tr("Export"), error);
    return {};
  }
  return tr("Saved %1").arg(path);
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
