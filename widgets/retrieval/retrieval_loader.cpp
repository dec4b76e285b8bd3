#include "widgets/retrieval/retrieval_loader.h"

#include <QMetaObject>
#include <QPointer>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <initializer_list>
#include <iterator>

namespace hnclip::gui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

struct RetrievalLoader::RunsJob {
  RetrievalRunList list;
  QString error;
};

struct RetrievalLoader::QueriesJob {
  int generation = 0;
  std::string split_key;
  RetrievalQueries queries;
  QString error;  // why nothing was loaded
};

struct RetrievalLoader::RetrieversJob {
  std::map<RetrieverKey, std::shared_ptr<const RunRetriever>> loaded;
  RetrieverErrors errors;
  bool cancelled = false;
};

RetrievalLoader::RetrievalLoader(QString db_path, QString cache_dir, QObject* parent)
    : QObject(parent), db_path_(std::move(db_path)), cache_dir_(std::move(cache_dir)) {
  runs_watcher_ = new QFutureWatcher<std::shared_ptr<RunsJob>>(this);
  queries_watcher_ = new QFutureWatcher<std::shared_ptr<QueriesJob>>(this);
  retrievers_watcher_ = new QFutureWatcher<std::shared_ptr<RetrieversJob>>(this);
  adhoc_watcher_ = new QFutureWatcher<std::shared_ptr<const RetrievalAdhocResult>>(this);
  connect(runs_watcher_, &QFutureWatcherBase::finished, this, &RetrievalLoader::onRunsFinished);
  connect(queries_watcher_, &QFutureWatcherBase::finished, this,
          &RetrievalLoader::onQueriesFinished);
  connect(retrievers_watcher_, &QFutureWatcherBase::finished, this,
          &RetrievalLoader::onRetrieversFinished);
  connect(adhoc_watcher_, &QFutureWatcherBase::finished, this, &RetrievalLoader::onAdhocFinished);
}

RetrievalLoader::~RetrievalLoader() {
  cancel();
  queries_waiting_.reset();
  for (QFutureWatcherBase* w : std::initializer_list<QFutureWatcherBase*>{
           runs_watcher_, queries_watcher_, retrievers_watcher_, adhoc_watcher_}) {
    w->disconnect(this);
    w->waitForFinished();
  }
}

bool RetrievalLoader::isBusy() const {
  return runs_watcher_->isRunning() || queries_watcher_->isRunning() ||
         retrievers_watcher_->isRunning() || adhoc_watcher_->isRunning();
}

bool RetrievalLoader::isAdhocRunning() const { return adhoc_watcher_->isRunning(); }

void RetrievalLoader::emitBusy() {
  // Called right after a watcher was started or finished: isRunning() is current for both.
  emit busyChanged(isBusy());
}

void RetrievalLoader::cancel() {
  if (queries_cancel_) queries_cancel_->store(true);
  if (retrievers_cancel_) retrievers_cancel_->store(true);
  retrievers_waiting_ = false;
}

// ---- runs -------------------------------------------------------------------------------------

bool RetrievalLoader::loadRuns() {
  if (runs_watcher_->isRunning()) return false;
  const std::string db = db_path_.toStdString();
  emit progress(0, 0, tr("reading runs…"));
  runs_watcher_->setFuture(QtConcurrent::run([db] {
    auto r = std::make_shared<RunsJob>();
    try {
      r->list.runs = load_run_summaries(db);
      for (const auto& s : r->list.runs) r->list.splits[s.record.id] = s.test_set;
    } catch (const std::exception& e) {
      r->error = qs(e.what());
    }
    return r;
  }));
  emitBusy();
  return true;
}

void RetrievalLoader::onRunsFinished() {
  const auto r = runs_watcher_->result();
  emitBusy();
  if (!r->error.isEmpty())
    emit runsFailed(r->error);
  else
    emit runsLoaded(r->list);
}

// ---- queries ----------------------------------------------------------------------------------

void RetrievalLoader::loadQueries(const RetrievalQueryRequest& request) {
  if (queries_cancel_) queries_cancel_->store(true);
  ++queries_generation_;
  queries_waiting_ = request;
  emit progress(0, 0, tr("reading ranks…"));
  // A running load is stale now: the newest request starts once it is done.
  if (!queries_watcher_->isRunning()) startQueries();
}

void RetrievalLoader::startQueries() {
  // Still running (a request arrived while this start was queued): it ends stale and starts us.
  if (!queries_waiting_ || queries_watcher_->isRunning()) return;
  const RetrievalQueryRequest q = *queries_waiting_;
  queries_waiting_.reset();
  queries_cancel_ = std::make_shared<std::atomic<bool>>(false);
  const int generation = queries_generation_;
  const std::string db = db_path_.toStdString(), cache = cache_dir_.toStdString();
  auto catalog = q.split_key == catalog_key_ ? catalog_ : nullptr;
  auto cancel = queries_cancel_;
  // Opening the split may generate the built-in benchmark: its messages go to progress().
  QPointer<RetrievalLoader> self(this);
  auto report = [self](const std::string& message) {
    QMetaObject::invokeMethod(
        self,
        [self, m = qs(message)] {
          if (self) emit self->progress(0, 0, m);
        },
        Qt::QueuedConnection);
  };
  queries_watcher_->setFuture(
      QtConcurrent::run([db, cache, q, generation, catalog, cancel, report] {
        auto r = std::make_shared<QueriesJob>();
        r->generation = generation;
        r->split_key = q.split_key;
        try {
          r->queries = load_retrieval_queries(db, cache, q.run_a, q.epoch_a, q.run_b, q.epoch_b,
                                              q.direction, catalog, cancel.get(), report);
        } catch (const std::exception& e) {
          r->error = qs(e.what());
        }
        return r;
      }));
  emitBusy();
}

void RetrievalLoader::onQueriesFinished() {
  const auto r = queries_watcher_->result();
  emitBusy();
  if (r->generation != queries_generation_) {
    // Superseded: the newest request starts from the event loop, not inside this watcher's signal.
    if (queries_waiting_) QTimer::singleShot(0, this, &RetrievalLoader::startQueries);
    return;
  }
  if (!r->error.isEmpty()) {
    emit queriesFailed(r->error);
    return;
  }
  catalog_key_ = r->split_key;
  catalog_ = r->queries.catalog;
  emit queriesLoaded(r->queries);
}

// ---- retrievers -------------------------------------------------------------------------------

std::shared_ptr<const RunRetriever> RetrievalLoader::retriever(RetrieverKey key) const {
  const auto it = retrievers_.find(key);
  return it == retrievers_.end() ? nullptr : it->second;
}

QString RetrievalLoader::retrieverError(RetrieverKey key) const {
  const auto it = retriever_errors_.find(key);
  return it == retriever_errors_.end() ? QString() : it->second;
}

void RetrievalLoader::loadRetrievers(RetrieverKey a, RetrieverKey b) {
  // Only the two chosen checkpoints stay loaded (a ViT-B model and its split's embeddings are
  // hundreds of MB); errors of others are forgotten, so choosing them again retries.
  chosen_a_ = a;
  chosen_b_ = b;
  for (auto it = retrievers_.begin(); it != retrievers_.end();)
    it = it->first == a || it->first == b ? std::next(it) : retrievers_.erase(it);
  for (auto it = retriever_errors_.begin(); it != retriever_errors_.end();)
    it = it->first == a || it->first == b ? std::next(it) : retriever_errors_.erase(it);
  if (retrievers_watcher_->isRunning()) {
    retrievers_waiting_ = true;  // loaded for the new choice once this one is done
    return;
  }
  startRetrievers();
}

void RetrievalLoader::startRetrievers() {
  std::vector<RetrieverKey> wanted;
  for (const RetrieverKey& key : {chosen_a_, chosen_b_}) {
    if (key.first != 0 && !retrievers_.count(key) && !retriever_errors_.count(key) &&
        std::find(wanted.begin(), wanted.end(), key) == wanted.end())
      wanted.push_back(key);
  }
  if (wanted.empty()) return;
  retrievers_cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto cancel = retrievers_cancel_;
  const std::string db = db_path_.toStdString(), cache = cache_dir_.toStdString();
  QPointer<RetrievalLoader> self(this);
  auto report = [self](int64_t done, int64_t total, const std::string& message) {
    QMetaObject::invokeMethod(
        self,
        [self, done, total, m = qs(message)] {
          if (self) emit self->progress(done, total, m);
        },
        Qt::QueuedConnection);
  };
  emit progress(0, 0, tr("loading checkpoints…"));
  retrievers_watcher_->setFuture(QtConcurrent::run([wanted, cancel, db, cache, report] {
    auto job = std::make_shared<RetrieversJob>();
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
  emitBusy();
}

void RetrievalLoader::onRetrieversFinished() {
  const auto job = retrievers_watcher_->result();
  for (const auto& [key, r] : job->loaded)
    if (key == chosen_a_ || key == chosen_b_) retrievers_[key] = r;  // else the choice moved on
  for (const auto& [key, e] : job->errors) retriever_errors_[key] = e;
  emitBusy();
  emit retrieversLoaded(job->errors, job->cancelled);
  if (retrievers_waiting_) {
    retrievers_waiting_ = false;
    loadRetrievers(chosen_a_, chosen_b_);
  }
  emit retrieversFinished();
}

// ---- ad-hoc -----------------------------------------------------------------------------------

bool RetrievalLoader::runAdhoc(const QString& text, int k, RetrieverKey a, RetrieverKey b) {
  if (adhoc_watcher_->isRunning()) return false;
  const std::vector<std::pair<RetrieverKey, std::shared_ptr<const RunRetriever>>> rs{
      {a, retriever(a)}, {b, retriever(b)}};
  if (!rs[0].second || !rs[1].second) return false;
  const std::string t = text.toStdString();
  emit progress(0, 0, tr("encoding the query…"));
  adhoc_watcher_->setFuture(QtConcurrent::run([rs, k, t, text] {
    auto r = std::make_shared<RetrievalAdhocResult>();
    r->text = text;
    r->k = k;
    try {
      for (const auto& [key, retriever] : rs) {
        r->results.emplace_back(key, retriever->query_text(t, k));
        r->unknown_words.push_back(retriever->unknown_words(t));
      }
    } catch (const std::exception& e) {
      r->error = qs(e.what());
    }
    return std::shared_ptr<const RetrievalAdhocResult>(std::move(r));
  }));
  emitBusy();
  return true;
}

void RetrievalLoader::onAdhocFinished() {
  const auto r = adhoc_watcher_->result();
  emitBusy();
  emit adhocFinished(r);
}

}  // namespace hnclip::gui
