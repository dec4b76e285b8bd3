// benchmark_row_text (widgets/train/benchmark_row_text.h): the Train tab's Table A1 line for a
// manifest written here. A test split of one caption has no similarity to show: the line says
// so, where it read "Table A1: bag_of_words_stats: need at least two captions, got 1".
#include <filesystem>
#include <fstream>

#include <QImage>
#include <QtTest>

#include "support/test_dirs.h"
#include "widgets/train/benchmark_row_text.h"

using hnclip::gui::benchmark_row_text;

// 0.png .. (n-1).png, 16x16, each its own colour.
static bool write_images(const std::filesystem::path& dir, int n) {
  for (int i = 0; i < n; ++i) {
    QImage img(16, 16, QImage::Format_RGB32);
    img.fill(QColor(40 * i, 90, 20));
    if (!img.save(QString::fromStdString((dir / (std::to_string(i) + ".png")).string())))
      return false;
  }
  return true;
}

class TestBenchmarkRowText : public QObject {
  Q_OBJECT
 private slots:
  void oneCaptionHasCountsAndNoSimilarity() {
    hnclip::test::ScratchDir dir;
    QVERIFY(write_images(dir.path(), 3));
    const auto manifest = dir.path() / "m.jsonl";
    const auto write = [&](int test_images) {
      std::ofstream m(manifest, std::ios::trunc);
      m << "{\"image\": \"0.png\", \"captions\": [\"a red square\"], \"split\": \"train\"}\n";
      for (int i = 1; i <= test_images; ++i)
        m << "{\"image\": \"" << i << ".png\", \"captions\": [\"a red circle " << i
          << "\"], \"split\": \"test\"}\n";
    };
    hnclip::TrainConfig c;
    c.benchmark = "manifest";
    c.benchmark_root = manifest.string();
    write(1);
    const QString one = benchmark_row_text(c, (dir.path() / "cache").string());
    QCOMPARE(one, QStringLiteral("Table A1, test split: 1 image(s), 1 caption(s); no caption "
                                 "similarity (it needs two captions or more)"));
    write(2);
    const QString two = benchmark_row_text(c, (dir.path() / "cache").string());
    QVERIFY2(two.startsWith(QStringLiteral("Table A1, test split: 2 images, 2 captions, 4.0 "
                                           "words/caption; bag-of-words cosine: pairwise ")),
             qPrintable(two));
  }

  // A test image that is a training image too (the same file, named another way) was not said
  // before a run was started; the line now begins with it.
  void testImagesThatAreTrainingImagesAreSaid() {
    hnclip::test::ScratchDir dir;
    QVERIFY(write_images(dir.path(), 3));
    const auto manifest = dir.path() / "m.jsonl";
    {
      std::ofstream m(manifest);
      m << "{\"image\": \"0.png\", \"captions\": [\"a red square\"], \"split\": \"train\"}\n"
        << "{\"image\": \"1.png\", \"captions\": [\"a red circle\"], \"split\": \"train\"}\n"
        << "{\"image\": \"./0.png\", \"captions\": [\"a red box\"], \"split\": \"test\"}\n"
        << "{\"image\": \"2.png\", \"captions\": [\"a blue box\"], \"split\": \"test\"}\n";
    }
    hnclip::TrainConfig c;
    c.benchmark = "manifest";
    c.benchmark_root = manifest.string();
    const QString text = benchmark_row_text(c, (dir.path() / "cache").string());
    QVERIFY2(text.startsWith(QStringLiteral("1 of the test split's images are also train images "
                                            "(the same files): their recall is not held out. "
                                            "Table A1, test split: 2 images")),
             qPrintable(text));
  }
};

QTEST_MAIN(TestBenchmarkRowText)
#include "test_benchmark_row_text.moc"
