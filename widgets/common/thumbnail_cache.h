#pragma once
// ThumbnailCache: scaled previews of benchmark images for the Captions and Retrieval tabs.
// Decoding and scaling run on a thread pool, never on the GUI thread; results are kept in a
// memory LRU bounded in bytes and (when a folder is given) as PNG files keyed by the source's
// path, size and modification time, so a restart does not decode a 5k-image split again. A file
// that is missing or cannot be decoded yields a placeholder image that says so and names the
// path — never an exception or a dialog per image.
// Threading: use from the GUI thread; `ready` is emitted there.

#include <QCache>
#include <QHash>
#include <QImage>
#include <QObject>
#include <QSet>
#include <QString>
#include <QThreadPool>

namespace hnclip::gui {

class ThumbnailCache : public QObject {
  Q_OBJECT

 public:
  // `disk_dir`: folder for cached thumbnails ("" = memory only; created on first write).
  explicit ThumbnailCache(QString disk_dir, qint64 memory_budget_bytes = 64LL << 20,
                          QObject* parent = nullptr);
  ~ThumbnailCache() override;

  // The thumbnail of `path` scaled to fit edge×edge (aspect kept) if it is in memory; otherwise
  // a null QImage, and decoding is queued (once per path and edge) with `ready` to follow.
  QImage thumbnail(const QString& path, int edge);
  // True once `path` at `edge` turned out missing or undecodable (its thumbnail is a placeholder).
  bool isPlaceholder(const QString& path, int edge) const;

  qint64 memoryBytes() const;  // bytes of the images held in memory
  int memoryCount() const;     // images held in memory
  qint64 memoryBudget() const;
  QString diskDir() const { return disk_dir_; }
  int pendingCount() const { return pending_.size(); }
  // Blocks until every queued decode has finished (tests, shutdown).
  void waitForDone();

  // The placeholder shown for an image that cannot be shown: grey, a crossed frame, the reason
  // and the path (elided in the middle).
  static QImage placeholder(const QString& path, int edge, const QString& reason);

 signals:
  void ready(const QString& path, int edge, const QImage& image);

 private:
  // A decode's result, queued from the pool by name (hence invokable); GUI thread.
  Q_INVOKABLE void finish(const QString& key, const QString& path, int edge, const QImage& image,
                          bool placeholder);

  QString disk_dir_;
  QCache<QString, QImage> memory_;  // cost = bytes
  QSet<QString> placeholders_;
  QSet<QString> pending_;
  QThreadPool pool_;
};

}  // namespace hnclip::gui
