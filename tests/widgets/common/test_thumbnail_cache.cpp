// ThumbnailCache: decodes off the GUI thread, keeps aspect, serves repeats from memory, survives a
// restart through its disk folder, re-decodes an edited image, stays within its memory budget, and
// turns a missing or broken file into a placeholder (never an exception or a dialog).
// ThumbnailLabel: "loading…" until the decode arrives, then the image; outline colour kept.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>

#include "widgets/common/thumbnail_cache.h"
#include "widgets/common/thumbnail_label.h"

using hnclip::gui::ThumbnailCache;
using hnclip::gui::ThumbnailLabel;

namespace {

QString write_image(const QString& path, int w, int h, QColor color) {
  QImage image(w, h, QImage::Format_RGB32);
  image.fill(color);
  if (!image.save(path)) qFatal("cannot write %s", qPrintable(path));
  return path;
}

// Waits for the `ready` of (path, edge), returning its image.
QImage wait_ready(ThumbnailCache& cache, QSignalSpy& spy, const QString& path, int edge) {
  for (int round = 0; round < 100; ++round) {
    for (const auto& args : spy) {
      if (args.at(0).toString() == path && args.at(1).toInt() == edge)
        return args.at(2).value<QImage>();
    }
    spy.wait(100);
  }
  Q_UNUSED(cache);
  return {};
}

}  // namespace

class TestThumbnailCache : public QObject {
  Q_OBJECT

 private slots:
  void decodes_off_the_gui_thread_and_keeps_aspect() {
    QTemporaryDir dir;
    const auto path = write_image(dir.filePath("wide.png"), 300, 150, Qt::red);
    ThumbnailCache cache(dir.filePath("thumbs"));
    QSignalSpy spy(&cache, &ThumbnailCache::ready);
    QVERIFY(cache.thumbnail(path, 64).isNull());  // not decoded on this thread
    QCOMPARE(cache.pendingCount(), 1);
    QVERIFY(cache.thumbnail(path, 64).isNull());  // queued once
    const QImage image = wait_ready(cache, spy, path, 64);
    QCOMPARE(image.size(), QSize(64, 32));
    QCOMPARE(QColor(image.pixel(10, 10)), QColor(Qt::red));
    QCOMPARE(spy.count(), 1);
    QVERIFY(!cache.isPlaceholder(path, 64));
    // A repeat is served from memory, at once.
    QCOMPARE(cache.thumbnail(path, 64).size(), QSize(64, 32));
    QCOMPARE(cache.memoryCount(), 1);
    QCOMPARE(cache.memoryBytes(), image.sizeInBytes());
    // A small image is not enlarged.
    const auto small = write_image(dir.filePath("small.png"), 20, 10, Qt::blue);
    cache.thumbnail(small, 64);
    QCOMPARE(wait_ready(cache, spy, small, 64).size(), QSize(20, 10));
  }

  void missing_and_broken_files_become_placeholders_naming_the_path() {
    QTemporaryDir dir;
    ThumbnailCache cache(dir.filePath("thumbs"));
    QSignalSpy spy(&cache, &ThumbnailCache::ready);
    const QString missing = dir.filePath("nowhere/gone.jpg");
    QVERIFY(cache.thumbnail(missing, 96).isNull());
    const QImage shown = wait_ready(cache, spy, missing, 96);
    QCOMPARE(shown.size(), QSize(96, 96));
    QVERIFY(cache.isPlaceholder(missing, 96));
    QCOMPARE(shown, ThumbnailCache::placeholder(missing, 96, QStringLiteral("missing")));

    QFile broken(dir.filePath("broken.png"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("this is not a PNG");
    broken.close();
    cache.thumbnail(broken.fileName(), 96);
    const QImage b = wait_ready(cache, spy, broken.fileName(), 96);
    QCOMPARE(b.size(), QSize(96, 96));
    QVERIFY(cache.isPlaceholder(broken.fileName(), 96));
    // Nothing of a placeholder is written to the disk cache.
    QVERIFY(QDir(dir.filePath("thumbs")).entryList(QDir::Files).isEmpty());
  }

  void disk_cache_survives_a_restart_and_notices_an_edited_image() {
    QTemporaryDir dir;
    const auto path = write_image(dir.filePath("a.png"), 200, 200, Qt::green);
    const QString thumbs = dir.filePath("thumbs");
    {
      ThumbnailCache cache(thumbs);
      QSignalSpy spy(&cache, &ThumbnailCache::ready);
      cache.thumbnail(path, 50);
      QVERIFY(!wait_ready(cache, spy, path, 50).isNull());
    }
    const QStringList files = QDir(thumbs).entryList(QDir::Files);
    QCOMPARE(files.size(), 1);
    // The cached file is what a new cache (a restart) reads: make it recognisably different.
    QImage marked(50, 50, QImage::Format_RGB32);
    marked.fill(Qt::magenta);
    QVERIFY(marked.save(QDir(thumbs).filePath(files.front()), "PNG"));
    {
      ThumbnailCache cache(thumbs);
      QSignalSpy spy(&cache, &ThumbnailCache::ready);
      cache.thumbnail(path, 50);
      QCOMPARE(QColor(wait_ready(cache, spy, path, 50).pixel(5, 5)), QColor(Qt::magenta));
    }
    // Replacing the source (new size and mtime) gives a new key: decoded again, not the stale file.
    QThread::msleep(20);
    write_image(path, 100, 100, Qt::yellow);
    {
      ThumbnailCache cache(thumbs);
      QSignalSpy spy(&cache, &ThumbnailCache::ready);
      cache.thumbnail(path, 50);
      QCOMPARE(QColor(wait_ready(cache, spy, path, 50).pixel(5, 5)), QColor(Qt::yellow));
    }
    QCOMPARE(QDir(thumbs).entryList(QDir::Files).size(), 2);
  }

  void memory_stays_within_its_budget() {
    QTemporaryDir dir;
    const qint64 one = QImage(40, 40, QImage::Format_RGB32).sizeInBytes();
    ThumbnailCache cache(QString(), 3 * one);  // memory only, room for three
    QSignalSpy spy(&cache, &ThumbnailCache::ready);
    QStringList paths;
    for (int i = 0; i < 6; ++i)
      paths << write_image(dir.filePath(QStringLiteral("%1.png").arg(i)), 80, 80, Qt::gray);
    for (const auto& p : paths) cache.thumbnail(p, 40);
    cache.waitForDone();
    QCOMPARE(spy.count(), 6);
    QCOMPARE(cache.memoryCount(), 3);
    QVERIFY(cache.memoryBytes() <= cache.memoryBudget());
    // Three are served from memory; the evicted three are queued again.
    int hits = 0;
    for (const auto& p : paths) hits += cache.thumbnail(p, 40).isNull() ? 0 : 1;
    QCOMPARE(hits, 3);
    QCOMPARE(cache.pendingCount(), 3);
    cache.waitForDone();
    QVERIFY(cache.memoryBytes() <= cache.memoryBudget());
  }

  void label_shows_loading_then_the_image_and_its_outline() {
    QTemporaryDir dir;
    const auto path = write_image(dir.filePath("l.png"), 120, 60, Qt::darkCyan);
    ThumbnailCache cache(QString{});
    ThumbnailLabel label(&cache, 64);
    label.setOutline(QColor(0, 160, 0));
    label.setImagePath(path);
    QVERIFY(!label.hasImage());
    QCOMPARE(label.text(), QStringLiteral("loading…"));
    QTRY_VERIFY(label.hasImage());
    QCOMPARE(label.pixmap().size(), QSize(64, 32));
    QCOMPARE(label.outline(), QColor(0, 160, 0));
    // A label switched to another image ignores the late result of the first.
    const auto other = write_image(dir.filePath("m.png"), 10, 10, Qt::black);
    label.setImagePath(dir.filePath("missing.png"));
    label.setImagePath(other);
    QTRY_VERIFY(label.hasImage());
    QCOMPARE(label.pixmap().size(), QSize(64, 64));
    cache.waitForDone();
    QCOMPARE(label.pixmap().size(),
             QSize(64, 64));  // a small image is enlarged to the label's edge
    QSignalSpy clicks(&label, &ThumbnailLabel::clicked);
    QTest::mouseClick(&label, Qt::LeftButton);
    QCOMPARE(clicks.count(), 1);
  }
};

QTEST_MAIN(TestThumbnailCache)
#include "test_thumbnail_cache.moc"
