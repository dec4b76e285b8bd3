#pragma once
// CaptionGeometryLoader: the Captions tab's one asynchronous load — a split's caption geometry
// under an encoder (and an overlay encoder), read from the RunStore or computed and stored — on
// a QtConcurrent worker, with its progress and a cancel flag the worker checks within a second.
// One load at a time: the panel cancels a superseded load and starts the next once `finished`
// arrives. It never calls back into the panel; results come as the `finished` signal.
// Threading: GUI thread; the work runs on a worker that holds its own ticket, so destroying the
// loader mid-load only cancels it.

#include <memory>
#include <optional>

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include "widgets/captions/caption_view_data.h"

namespace hnclip::gui {

struct CaptionLoadOutcome {
  std::shared_ptr<CaptionViewData> main;
  std::shared_ptr<CaptionViewData> overlay;  // null without an overlay encoder
  bool cancelled = false;
  QString error;  // what failed, naming the file or key; empty on success
  QString key;    // the choices the load was started for
  qint64 elapsed_ms = 0;
};

class CaptionGeometryLoader : public QObject {
  Q_OBJECT
 public:
  static constexpr int kProgressSteps = 1000;  // progress() runs from 0 to this

  CaptionGeometryLoader(QString database, QString cache_dir, QObject* parent = nullptr);
  ~CaptionGeometryLoader() override;  // cancels a load in flight

  // Starts a load (the caller makes sure none is in flight: busy() is false).
  void start(const QString& key, const CaptionSource& main, std::optional<CaptionSource> overlay);
  void cancel();  // the load ends with `cancelled`, storing nothing
  bool busy() const { return ticket_ != nullptr; }
  QString key() const;  // of the load in flight ("" when none)
  int progress() const;

 signals:
  void finished(const hnclip::gui::CaptionLoadOutcome& outcome);

 private:
  struct Ticket;
  QString database_, cache_dir_;
  std::shared_ptr<Ticket> ticket_;  // the load in flight, if any
};

}  // namespace hnclip::gui
