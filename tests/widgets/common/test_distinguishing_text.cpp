// distinguishing_texts on hand-made captions: each caption is shown from its first word that
// differs from its nearest neighbour, after "…"; without a neighbour, from the end of the words
// the whole split begins with; a caption with nothing after the shared words is shown whole.
#include <QtTest>

#include "widgets/common/distinguishing_text.h"

using hnclip::gui::distinguishing_texts;
using hnclip::gui::text_from_word;

class TestDistinguishingText : public QObject {
  Q_OBJECT
 private slots:
  void from_the_first_word_that_differs_from_the_nearest() {
    const std::vector<std::string> captions = {
        "This image shows three objects on a table: a red cube, a blue sphere.",
        "This image shows three objects on a table: a green cube, a blue sphere.",
        "This image shows two objects on a floor."};
    const auto shown = distinguishing_texts(captions, {1, 0, 0});
    QCOMPARE(shown.size(), size_t{3});
    QCOMPARE(shown[0], QStringLiteral("…red cube, a blue sphere."));
    QCOMPARE(shown[1], QStringLiteral("…green cube, a blue sphere."));
    QCOMPARE(shown[2], QStringLiteral("…two objects on a floor."));
  }

  void without_neighbours_the_split_prefix_is_dropped() {
    const std::vector<std::string> captions = {
        "This image shows a cube.", "This image shows a sphere.", "This image, SHOWS two cones."};
    const auto shown = distinguishing_texts(captions, {});
    QCOMPARE(shown[0], QStringLiteral("…a cube."));
    QCOMPARE(shown[2], QStringLiteral("…two cones."));
    // An unknown (-1) or out-of-range neighbour falls back to the same rule.
    QCOMPARE(distinguishing_texts(captions, {-1, 7, 2})[1], QStringLiteral("…a sphere."));
  }

  void a_caption_with_nothing_of_its_own_is_shown_whole() {
    const std::vector<std::string> captions = {"a red cube", "a red cube on a table"};
    const auto shown = distinguishing_texts(captions, {1, 0});
    QCOMPARE(shown[0], QStringLiteral("a red cube"));  // every word is shared with the nearest
    QCOMPARE(shown[1], QStringLiteral("…on a table"));
    QCOMPARE(distinguishing_texts({"only one"}, {})[0], QStringLiteral("only one"));
  }

  void text_from_word_keeps_utf8() {
    QCOMPARE(text_from_word("a café table", 2), QStringLiteral("…café table"));
    QCOMPARE(text_from_word("whole", 0), QStringLiteral("whole"));
    QCOMPARE(text_from_word("whole", 99), QStringLiteral("whole"));
  }
};

QTEST_MAIN(TestDistinguishingText)
#include "test_distinguishing_text.moc"
