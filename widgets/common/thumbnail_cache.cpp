#include "widgets/common/thumbnail_cache.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QImageReader>
#include <QPainter>
#include <QRunnable>
#include <QSaveFile>
#include <QThread>

#include <algorithm>
#include <utility>

#include "widgets/common/thread_handoff.h"

namespace hnclip::gui {

namespace {

QString cache_key(const QString& path, int edge) {
  return path + QLatin1Char('@') + QString::number(edge);
}

// The disk file of a thumbnail: named by a hash of the source's absolute path, size, mtime and
// the edge, so an edited or replaced image is decoded again instead of showing a stale preview.
QString disk_file(const QString& dir, const QFileInfo& source, int edge) {
  QCryptographicHash h(QCryptographicHash::Sha1);
  h.addData(source.absoluteFilePath().toUtf8());
  h.addData(QByteArray::number(source.size()));
  h.addData(QByteArray::number(source.lastModified().toMSecsSinceEpoch()));
  h.addData(QByteArray::number(edge));
  return QDir(dir).filePath(QString::fromLatin1(h.result().toHex()) + QStringLiteral(".png"));
}

struct DecodeResult {
  QImage image;
  bool placeholder = false;
};

// Runs on the pool. QImageReader decodes straight to the scaled size where the format allows it
// (JPEG), which is what makes a 5k-image split affordable. EXIF orientation is not applied: the
// thumbnail shows the pixels the model is fed (data/image_pipeline ignores it too).
DecodeResult decode(const QString& path, int edge, const QString& dir) {
  const QFileInfo info(path);
  if (!info.exists())
    return {ThumbnailCache::placeholder(path, edge, QStringLiteral("missing")), true};
  if (!info.isFile() || !info.isReadable()) {
    return {ThumbnailCache::placeholder(path, edge, QStringLiteral("not a readable file")), true};
  }
  const QString cached = dir.isEmpty() ? QString() : disk_file(dir, info, edge);
  if (!cached.isEmpty() && QFileInfo::exists(cached)) {
    QImage image(cached);
    if (!image.isNull()) return {image, false};  // an unreadable cache file is simply redone
  }
  QImageReader reader(path);
  reader.setAutoTransform(false);
  const QSize full = reader.size();
  if (full.isValid() && (full.width() > edge || full.height() > edge)) {
    reader.setScaledSize(full.scaled(edge, edge, Qt::KeepAspectRatio));
  }
  QImage image = reader.read();
  if (image.isNull()) {
    return {ThumbnailCache::placeholder(path, edge,
                                        QStringLiteral("cannot decode: ") + reader.errorString()),
            true};
  }
  if (image.width() > edge || image.height() > edge) {
    image = image.scaled(edge, edge, Qt::KeepAspectRatio, Qt::SmoothTransformation);
  }
  image = image.convertToFormat(image.hasAlphaChannel() ? QImage::Format_ARGB32_Premultiplied
                                                        : QImage::Format_RGB32);
  if (!cached.isEmpty() && QDir().mkpath(dir)) {
    QSaveFile out(cached);  // atomic: a concurrent reader never sees half a file
    if (out.open(QIODevice::WriteOnly) && image.save(&out, "PNG")) out.commit();
  }
  return {image, false};
}

// One decode on the pool. A task object rather than a lambda: its fields are filled before
// handoff_release and read after handoff_acquire, which lets ThreadSanitizer see Qt's hand-off
// (a lambda's copy inside QRunnable::create is read by the pool before any code of ours runs).
class DecodeTask : public QRunnable {
 public:
  DecodeTask(ThumbnailCache* cache, QString key, QString path, int edge, QString dir)
      : cache_(cache), key_(std::move(key)), path_(std::move(path)), edge_(edge),
        dir_(std::move(dir)) {
    handoff_release(this);
  }
  void run() override {
    handoff_acquire(this);
    const DecodeResult r = decode(path_, edge_, dir_);
    // Queued by name: Qt copies the arguments, and the result is applied on the GUI thread.
    QMetaObject::invokeMethod(cache_, "finish", Qt::QueuedConnection, Q_ARG(QString, key_),
                              Q_ARG(QString, path_), Q_ARG(int, edge_), Q_ARG(QImage, r.image),
                              Q_ARG(bool, r.placeholder));
  }

 private:
  ThumbnailCache* cache_;
  const QString key_, path_;
  const int edge_;
  const QString dir_;
};

}  // namespace

ThumbnailCache::ThumbnailCache(QString disk_dir, qint64 memory_budget_bytes, QObject* parent)
    : QObject(parent), disk_dir_(std::move(disk_dir)) {
  memory_.setMaxCost(std::max<qint64>(1, memory_budget_bytes));
  pool_.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
}

ThumbnailCache::~ThumbnailCache() {
  pool_.clear();        // queued decodes are dropped,
  pool_.waitForDone();  // running ones finish (their queued results die with `this`)
}

QImage ThumbnailCache::thumbnail(const QString& path, int edge) {
  edge = std::max(8, edge);
  const QString key = cache_key(path, edge);
  if (const QImage* hit = memory_.object(key)) return *hit;
  if (pending_.contains(key)) return {};
  pending_.insert(key);
  pool_.start(new DecodeTask(this, key, path, edge, disk_dir_));  // the pool deletes it
  return {};
}

void ThumbnailCache::finish(const QString& key, const QString& path, int edge, const QImage& image,
                            bool placeholder) {
  pending_.remove(key);
  if (placeholder) {
    placeholders_.insert(key);
  } else {
    placeholders_.remove(key);
  }
  memory_.insert(key, new QImage(image), std::max<qint64>(1, image.sizeInBytes()));
  emit ready(path, edge, image);
}

bool ThumbnailCache::isPlaceholder(const QString& path, int edge) const {
  return placeholders_.contains(cache_key(path, std::max(8, edge)));
}

qint64 ThumbnailCache::memoryBytes() const { return memory_.totalCost(); }
int ThumbnailCache::memoryCount() const { return memory_.count(); }
qint64 ThumbnailCache::memoryBudget() const { return memory_.maxCost(); }

void ThumbnailCache::waitForDone() {
  pool_.waitForDone();
  // The results were queued to this thread; deliver them before returning.
  while (!pending_.isEmpty()) QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

QImage ThumbnailCache::placeholder(const QString& path, int edge, const QString& reason) {
  QImage image(edge, edge, QImage::Format_RGB32);
  image.fill(QColor(0xe4, 0xe4, 0xe4));
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(QColor(0xb0, 0x30, 0x30), 2));
  p.drawRect(QRectF(1, 1, edge - 2, edge - 2));
  p.setPen(QPen(QColor(0xc8, 0xc8, 0xc8), 1));
  p.drawLine(QPointF(2, 2), QPointF(edge - 2, edge - 2));
  p.drawLine(QPointF(edge - 2, 2), QPointF(2, edge - 2));
  QFont font = p.font();
  font.setPixelSize(std::max(7, edge / 11));
  p.setFont(font);
  p.setPen(QColor(0x40, 0x40, 0x40));
  const QFontMetrics fm(font);
  const QRect box(4, 4, edge - 8, edge - 8);
  const QString name = fm.elidedText(QFileInfo(path).fileName(), Qt::ElideMiddle, box.width());
  const QString folder = fm.elidedText(QFileInfo(path).path(), Qt::ElideMiddle, box.width());
  p.drawText(box, Qt::AlignCenter | Qt::TextWordWrap,
             QStringLiteral("image %1\n%2\n%3").arg(reason, name, folder));
  return image;
}

}  // namespace hnclip::gui
