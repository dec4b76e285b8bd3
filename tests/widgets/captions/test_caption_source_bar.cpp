// CaptionSourceBar: the benchmark follows the encoder's run (also when the encoder was set before
// the runs were known), the pretrained checkpoint keeps the benchmark chosen, and a visible line
// says whose benchmark is shown whenever it is not the Train form's — and only then; a run's
// encoder is drawn in the run's own colour.
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include "support/test_dirs.h"
#include "widgets/captions/caption_source_bar.h"
#include "widgets/common/run_colors.h"

using hnclip::gui::CaptionRunChoice;
using hnclip::gui::CaptionSourceBar;

namespace {
hnclip::TrainConfig form_config() {
  hnclip::TrainConfig c;
  c.benchmark = "synthetic";
  c.benchmark_size = hnclip::BenchmarkSize::kSmall;
  c.data_seed = 1;
  c.test_split = "test";
  return c;
}

CaptionRunChoice run(int64_t id, const std::string& size, uint64_t seed, const std::string& split) {
  CaptionRunChoice r;
  r.id = id;
  r.name = QStringLiteral("run-%1").arg(id);
  r.benchmark.name = "synthetic";
  r.benchmark.size = size;
  r.benchmark.seed = seed;
  r.test_split = split;
  r.has_checkpoint = true;
  return r;
}

// Run 3 trained on another benchmark than the Train form names; run 4 on the same one.
std::vector<CaptionRunChoice> runs() {
  return {run(4, "small", 1, "train"), run(3, "default", 7, "test")};
}
}  // namespace

class TestCaptionSourceBar : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;
  QString cache() const { return QString::fromStdString((*dir_ / "cache").string()); }
  static QLabel* note(CaptionSourceBar& bar) {
    return bar.findChild<QLabel*>(QStringLiteral("captionBenchmarkNote"));
  }

 private slots:
  void init() { dir_ = std::make_unique<hnclip::test::ScratchDir>(); }
  void cleanup() { dir_.reset(); }

  void benchmark_follows_the_encoders_run_and_says_so() {
    CaptionSourceBar bar(cache());
    bar.show();
    bar.setFormConfig(form_config());
    bar.setRuns(runs());
    QCOMPARE(bar.benchmarkRun(), int64_t{-1});  // the Train form's, silently
    QCOMPARE(bar.benchmarkNote(), QString());
    QVERIFY(!note(bar)->isVisible());

    bar.setEncoder(QStringLiteral("run:3"));
    QCOMPARE(bar.benchmarkRun(), int64_t{3});
    QCOMPARE(bar.source(bar.encoder()).benchmark.size, std::string("default"));
    QCOMPARE(bar.source(bar.encoder()).benchmark.seed, uint64_t{7});
    QCOMPARE(bar.source(bar.encoder()).split, std::string("test"));
    const QString line = bar.benchmarkNote();
    QVERIFY2(line.contains(QStringLiteral("run 3")) && line.contains(QStringLiteral("seed 7")) &&
                 line.contains(QStringLiteral("encoder")) &&
                 line.contains(QStringLiteral("Train form names synthetic small (seed 1)")),
             qPrintable(line));
    QVERIFY(note(bar)->isVisible());
    QCOMPARE(note(bar)->text(), line);

    // The pretrained checkpoint keeps the benchmark shown; the line now says it was chosen.
    bar.setEncoder(QStringLiteral("init:pretrained"));
    QCOMPARE(bar.benchmarkRun(), int64_t{3});
    QVERIFY2(bar.benchmarkNote().contains(QStringLiteral("chosen")),
             qPrintable(bar.benchmarkNote()));

    // Run 4 trained on the Train form's benchmark: it is followed (with its split), no line.
    bar.setEncoder(QStringLiteral("run:4"));
    QCOMPARE(bar.benchmarkRun(), int64_t{4});
    QCOMPARE(bar.source(bar.encoder()).split, std::string("train"));
    QCOMPARE(bar.benchmarkNote(), QString());
    QVERIFY(!note(bar)->isVisible());
  }

  void an_encoder_set_before_the_runs_arrive_is_followed_when_they_do() {
    CaptionSourceBar bar(cache());
    bar.setFormConfig(form_config());
    bar.setEncoder(QStringLiteral("run:3"));  // as --caption-encoder does at start-up
    QCOMPARE(bar.benchmarkRun(), int64_t{-1});
    QCOMPARE(bar.encoder(), QStringLiteral("run:3"));
    bar.setRuns(runs());
    QCOMPARE(bar.encoder(), QStringLiteral("run:3"));
    QCOMPARE(bar.benchmarkRun(), int64_t{3});
    // A later refresh of the runs keeps what the user chose in the Benchmark box meanwhile.
    auto* box = bar.findChild<QComboBox*>(QStringLiteral("captionBenchmark"));
    QSignalSpy changed(&bar, &CaptionSourceBar::changed);
    box->setCurrentIndex(0);
    emit box->activated(0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(bar.benchmarkRun(), int64_t{-1});
    bar.setRuns(runs());
    QCOMPARE(bar.benchmarkRun(), int64_t{-1});
    QCOMPARE(bar.benchmarkNote(), QString());
  }

  void a_runs_encoder_is_drawn_in_the_runs_colour() {
    const QColor fallback(1, 2, 3);
    QCOMPARE(hnclip::gui::caption_encoder_color(QStringLiteral("run:7"), fallback),
             hnclip::gui::run_color(7));
    QVERIFY(hnclip::gui::run_color(7) != fallback);
    QCOMPARE(hnclip::gui::caption_encoder_color(QStringLiteral("init:pretrained"), fallback),
             fallback);
    QCOMPARE(hnclip::gui::caption_encoder_color(QStringLiteral("ckpt:/x/run:7.pt"), fallback),
             fallback);
  }
};

QTEST_MAIN(TestCaptionSourceBar)
#include "test_caption_source_bar.moc"
