// CaptionListModel on a generated benchmark (the built-in synthetic one, size small, test split):
// one row per caption in SplitCatalog order, QAbstractItemModelTester on the model and its proxy,
// typed sorting by index, hardest cosine and text, and case-insensitive text filtering; the text
// column shows the part of a caption that tells it from its nearest neighbour (the full text is
// its tooltip and what sorting and filtering see).
#include <cmath>

#include <QAbstractItemModelTester>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QtTest>

#include "data/split_catalog.h"
#include "support/test_dirs.h"
#include "widgets/captions/caption_list_model.h"

using hnclip::gui::CaptionListModel;

class TestCaptionListModel : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;
  std::vector<QString> texts_;
  std::vector<double> hardest_;

 private slots:
  void initTestCase() {
    dir_ = std::make_unique<hnclip::test::ScratchDir>();
    hnclip::BenchmarkSpec spec;
    spec.name = "synthetic";
    spec.size = "small";
    spec.cache_dir = (*dir_ / "cache").string();
    const auto catalog = hnclip::SplitCatalog::open(spec, "test");
    QVERIFY(catalog.num_captions() > 20);
    for (int64_t c = 0; c < catalog.num_captions(); ++c) {
      texts_.push_back(QString::fromStdString(catalog.caption_text(c)));
      // A spread of cosines in a scrambled order, with one tie (captions 0 and 1).
      hardest_.push_back(c == 1 ? 0.5 : std::fmod(0.37 * static_cast<double>(c * 7919 % 101), 1.0));
    }
    hardest_[0] = 0.5;
  }
  void cleanupTestCase() { dir_.reset(); }

  void rows_follow_the_split() {
    CaptionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCaptions(texts_, hardest_);
    QCOMPARE(model.rowCount(), static_cast<int>(texts_.size()));
    QCOMPARE(model.columnCount(), 3);
    for (int r : {0, 5, model.rowCount() - 1}) {
      QCOMPARE(model.index(r, CaptionListModel::IndexColumn).data().toInt(), r);
      QCOMPARE(model.index(r, CaptionListModel::TextColumn).data(Qt::ToolTipRole).toString(),
               texts_[static_cast<size_t>(r)]);
      // No neighbours known: shown without the words every caption of the split begins with.
      const QString shown = model.index(r, CaptionListModel::TextColumn).data().toString();
      QVERIFY2(shown.startsWith(QChar(0x2026)), qPrintable(shown));
      QVERIFY2(texts_[static_cast<size_t>(r)].endsWith(shown.mid(1)), qPrintable(shown));
      QVERIFY(shown.size() < texts_[static_cast<size_t>(r)].size());
      QCOMPARE(model.index(r, CaptionListModel::HardestColumn).data().toString(),
               QString::number(hardest_[static_cast<size_t>(r)], 'f', 3));
      QCOMPARE(model.index(r, CaptionListModel::TextColumn)
                   .data(CaptionListModel::CaptionIdRole)
                   .toLongLong(),
               r);
    }
    // Without geometry the cosine column is empty, not 0.
    model.setCaptions(texts_, {});
    QCOMPARE(model.index(3, CaptionListModel::HardestColumn).data().toString(), QString());
  }

  void sorts_by_typed_values() {
    CaptionListModel model;
    model.setCaptions(texts_, hardest_);
    QSortFilterProxyModel proxy;
    CaptionListModel::configureProxy(&proxy);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);

    proxy.sort(CaptionListModel::HardestColumn, Qt::DescendingOrder);
    double previous = 2.0;
    for (int r = 0; r < proxy.rowCount(); ++r) {
      const qint64 id = proxy.index(r, 0).data(CaptionListModel::CaptionIdRole).toLongLong();
      const double v = hardest_[static_cast<size_t>(id)];
      QVERIFY2(v <= previous,
               qPrintable(QStringLiteral("row %1: %2 after %3").arg(r).arg(v).arg(previous)));
      previous = v;
    }
    // Numeric, not textual: the index column puts 2 before 10.
    proxy.sort(CaptionListModel::IndexColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(2, 0).data().toInt(), 2);
    QCOMPARE(proxy.index(10, 0).data().toInt(), 10);
    proxy.sort(CaptionListModel::IndexColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, 0).data().toInt(), model.rowCount() - 1);

    proxy.sort(CaptionListModel::TextColumn, Qt::AscendingOrder);
    for (int r = 1; r < proxy.rowCount(); ++r) {
      const auto full = [&](int row) {
        return proxy.index(row, CaptionListModel::TextColumn).data(Qt::ToolTipRole).toString();
      };
      const QString a = full(r - 1), b = full(r);
      QVERIFY2(QString::compare(a, b, Qt::CaseInsensitive) <= 0,
               qPrintable(a + QStringLiteral(" > ") + b));
    }
  }

  void filters_text_case_insensitively() {
    CaptionListModel model;
    model.setCaptions(texts_, hardest_);
    QSortFilterProxyModel proxy;
    CaptionListModel::configureProxy(&proxy);
    proxy.setSourceModel(&model);
    // The rarest word of caption 0 (so the filter keeps some rows and drops others), typed in
    // upper case.
    QString word;
    int expected = 0;
    for (QString w :
         texts_[0].split(QRegularExpression(QStringLiteral("[^A-Za-z]+")), Qt::SkipEmptyParts)) {
      int count = 0;
      for (const auto& t : texts_) count += t.contains(w, Qt::CaseInsensitive) ? 1 : 0;
      if (word.isEmpty() || count < expected) {
        word = w;
        expected = count;
      }
    }
    QVERIFY(!word.isEmpty());
    proxy.setFilterFixedString(word.toUpper());
    QCOMPARE(proxy.rowCount(), expected);
    QVERIFY(proxy.rowCount() >= 1);
    QVERIFY(proxy.rowCount() < model.rowCount());
    for (int r = 0; r < proxy.rowCount(); ++r) {
      QVERIFY(proxy.index(r, CaptionListModel::TextColumn)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .contains(word, Qt::CaseInsensitive));
    }
    // The filter sees the full text, also the opening words the column does not show.
    const QString head = texts_[0].left(12);
    int with_head = 0;
    for (const auto& t : texts_) with_head += t.contains(head, Qt::CaseInsensitive) ? 1 : 0;
    QVERIFY(with_head > 1);
    QVERIFY(!model.shownText(0).contains(head));
    proxy.setFilterFixedString(head);
    QCOMPARE(proxy.rowCount(), with_head);
    proxy.setFilterFixedString(QStringLiteral("no caption says zzqx"));
    QCOMPARE(proxy.rowCount(), 0);
    proxy.setFilterFixedString(QString());
    QCOMPARE(proxy.rowCount(), model.rowCount());
  }

  void shows_the_part_that_differs_from_the_nearest_caption() {
    const std::vector<QString> texts = {
        QStringLiteral("This image shows three objects on a table: a red cube, a blue sphere."),
        QStringLiteral("This image shows three objects on a table: a green cube, a blue sphere."),
        QStringLiteral("This image shows two objects on a <floor> & a rug.")};
    CaptionListModel model;
    model.setCaptions(texts, {0.97, 0.97, 0.6}, {1, 0, 0});
    const auto cell = [&](int row, int role) {
      return model.index(row, CaptionListModel::TextColumn).data(role).toString();
    };
    QCOMPARE(cell(0, Qt::DisplayRole), QStringLiteral("…red cube, a blue sphere."));
    QCOMPARE(cell(1, Qt::DisplayRole), QStringLiteral("…green cube, a blue sphere."));
    QCOMPARE(cell(2, Qt::DisplayRole), QStringLiteral("…two objects on a <floor> & a rug."));
    for (int r = 0; r < 3; ++r) {
      QCOMPARE(cell(r, Qt::ToolTipRole), texts[static_cast<size_t>(r)]);
      QCOMPARE(model.shownText(r), cell(r, Qt::DisplayRole));
    }
    // Geometry reloaded without neighbours: the split's shared opening is dropped instead.
    model.setCaptions(texts, {});
    QCOMPARE(cell(0, Qt::DisplayRole),
             QStringLiteral("…three objects on a table: a red cube, a blue sphere."));
  }
};

QTEST_MAIN(TestCaptionListModel)
#include "test_caption_list_model.moc"
