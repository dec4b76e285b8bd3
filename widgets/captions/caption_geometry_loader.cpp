#include "widgets/captions/caption_geometry_loader.h"

#include <atomic>
#include <exception>

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace hnclip::gui {

struct CaptionGeometryLoader::Ticket {
  std::atomic<bool> cancel{false};
  std::atomic<int> progress{0};  // of kProgressSteps
  QString key;
  QElapsedTimer timer;
};

CaptionGeometryLoader::CaptionGeometryLoader(QString database, QString cache_dir, QObject* parent)
    : QObject(parent), database_(std::move(database)), cache_dir_(std::move(cache_dir)) {}

CaptionGeometryLoader::~CaptionGeometryLoader() {
  if (ticket_) ticket_->cancel = true;  // the worker holds its own ticket; it ends within a second
}

QString CaptionGeometryLoader::key() const { return ticket_ ? ticket_->key : QString(); }

int CaptionGeometryLoader::progress() const { return ticket_ ? ticket_->progress.load() : 0; }

void CaptionGeometryLoader::cancel() {
  if (ticket_) ticket_->cancel = true;
}

void CaptionGeometryLoader::start(const QString& key, const CaptionSource& main,
                                  std::optional<CaptionSource> overlay) {
  auto ticket = std::make_shared<Ticket>();
  ticket->key = key;
  ticket->timer.start();
  ticket_ = ticket;
  const std::string db = database_.toStdString(), cache = cache_dir_.toStdString();
  auto* watcher = new QFutureWatcher<CaptionLoadOutcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, ticket] {
    watcher->deleteLater();
    CaptionLoadOutcome outcome = watcher->result();
    outcome.key = ticket->key;
    outcome.elapsed_ms = ticket->timer.elapsed();
    if (ticket == ticket_) ticket_.reset();
    emit finished(outcome);
  });
  watcher->setFuture(QtConcurrent::run([ticket, main, overlay, db, cache] {
    CaptionLoadOutcome r;
    const double main_share = overlay ? 0.5 : 1.0;
    const auto report = [&ticket](double from, double share) {
      return [&ticket, from, share](double f) {
        ticket->progress = static_cast<int>(kProgressSteps * (from + share * f));
      };
    };
    try {
      r.main = std::make_shared<CaptionViewData>(
          load_caption_view(main, db, cache, true, report(0, main_share), &ticket->cancel));
      if (overlay) {
        r.overlay = std::make_shared<CaptionViewData>(
            load_caption_view(*overlay, db, cache, false, report(0.5, 0.5), &ticket->cancel));
      }
    } catch (const CaptionLoadCancelled&) {
      r.cancelled = true;
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(e.what());
    }
    return r;
  }));
}

}  // namespace hnclip::gui
