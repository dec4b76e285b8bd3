// CaptionDetailView: a selected caption whose image file is missing shows the cache's placeholder
// (no dialog), its neighbours' images arrive off the GUI thread, their texts mark the words that
// differ from the selected caption (shared ones plain, HTML escaped), imagesShown fires once
// everything is shown, and clicking a neighbour's image or number asks for that caption.
#include <QApplication>
#include <QDialog>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include "support/test_dirs.h"
#include "widgets/captions/caption_detail_view.h"
#include "widgets/common/thumbnail_cache.h"
#include "widgets/common/thumbnail_label.h"

using hnclip::gui::CaptionDetailView;
using hnclip::gui::ThumbnailCache;
using hnclip::gui::ThumbnailLabel;

namespace {
QString write_image(const QString& path, QColor color) {
  QImage image(320, 200, QImage::Format_RGB32);
  image.fill(color);
  if (!image.save(path)) qFatal("cannot write %s", qPrintable(path));
  return path;
}
}  // namespace

class TestCaptionDetailView : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;

 private slots:
  void init() { dir_ = std::make_unique<hnclip::test::ScratchDir>(); }
  void cleanup() { dir_.reset(); }

  void missing_image_shows_placeholder_and_neighbors_load() {
    ThumbnailCache cache(QString::fromStdString((*dir_ / "thumbs").string()));
    CaptionDetailView view(&cache);
    view.resize(900, 700);
    view.show();
    QSignalSpy shown(&view, &CaptionDetailView::imagesShown);
    QSignalSpy activated(&view, &CaptionDetailView::captionActivated);

    const QString missing = QString::fromStdString((*dir_ / "no-such-image.jpg").string());
    const QString red = write_image(QString::fromStdString((*dir_ / "red.png").string()), Qt::red);
    const QString blue =
        write_image(QString::fromStdString((*dir_ / "blue.png").string()), Qt::blue);
    view.setCaption({7, QStringLiteral("A red bicycle leans on a brick wall."), missing, 1.0},
                    {{12, QStringLiteral("A red bicycle near a wall & <door>"), red, 0.931},
                     {3, QStringLiteral("Two dogs on a beach"), blue, 0.402}});
    QCOMPARE(view.caption(), qint64(7));
    QCOMPARE(view.neighborCount(), 2);

    QVERIFY(shown.wait(5000));
    QCOMPARE(shown.count(), 1);
    QCOMPARE(shown.at(0).at(0).toLongLong(), qint64(7));
    QVERIFY(view.allImagesShown());
    ThumbnailLabel* main_image = view.selectedThumbnail();
    QVERIFY(main_image->hasImage());
    QVERIFY(cache.isPlaceholder(missing, main_image->edge()));
    QVERIFY(!cache.isPlaceholder(red, view.neighborThumbnail(0)->edge()));
    // No dialog for the missing file.
    for (QWidget* w : QApplication::topLevelWidgets())
      QVERIFY2(!(qobject_cast<QDialog*>(w) && w->isVisible()), "a dialog opened");

    const QString first = view.neighborText(0)->text();
    // "A red bicycle near a wall & <door>" against "A red bicycle leans on a brick wall.": its
    // own words highlighted, the selected caption's missing ones struck through, the rest plain.
    QVERIFY2(first.contains(QStringLiteral(">near</b>")) &&
                 first.contains(QStringLiteral(">door</b>")) &&
                 first.contains(QStringLiteral(">leans on</s>")) &&
                 first.contains(QStringLiteral(">brick</s>")),
             qPrintable(first));
    for (const char* shared : {">red<", ">bicycle<", ">wall<"})
      QVERIFY2(!first.contains(QLatin1String(shared)), shared);
    QVERIFY(first.contains(QStringLiteral("&lt;<b")));  // the caption's "<" escaped
    QVERIFY(first.contains(QStringLiteral("0.931")));
    const QString second = view.neighborText(1)->text();
    QVERIFY2(second.contains(QStringLiteral(">Two dogs</b>")), qPrintable(second));
    QVERIFY2(!second.contains(QStringLiteral(">on</b>")), qPrintable(second));

    QTest::mouseClick(view.neighborThumbnail(1), Qt::LeftButton);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toLongLong(), qint64(3));
    emit view.neighborText(0)->linkActivated(QStringLiteral("caption:12"));
    QCOMPARE(activated.count(), 2);
    QCOMPARE(activated.at(1).at(0).toLongLong(), qint64(12));

    // Shown again: everything is in memory now, so imagesShown follows at once.
    view.setCaption({12, QStringLiteral("A red bicycle near a wall & <door>"), red, 1.0},
                    {{7, QStringLiteral("A red bicycle leans on a brick wall."), missing, 0.931}});
    QTRY_COMPARE(shown.count(), 2);
    QCOMPARE(shown.at(1).at(0).toLongLong(), qint64(12));
  }

  void clearing_shows_the_hint() {
    ThumbnailCache cache(QString{});
    CaptionDetailView view(&cache);
    view.setCaption({}, {});
    QCOMPARE(view.caption(), qint64(-1));
    QCOMPARE(view.neighborCount(), 0);
    QVERIFY(view.allImagesShown());
  }
};

QTEST_MAIN(TestCaptionDetailView)
#include "test_caption_detail_view.moc"
