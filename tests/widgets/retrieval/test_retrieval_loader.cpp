// RetrievalLoader on two hand-made stored runs of a small manifest benchmark (images drawn here,
// ranks written through the store, no checkpoints): the run list, a superseded rank load dropped
// (only the newest request is answered, its cancelled predecessor says nothing), a loader destroyed
// mid-load delivering nothing, and failed checkpoints remembered while chosen, forgotten when not.
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include <QImage>
#include <QPainter>
#include <QtTest>

#include "store/run_store.h"
#include "support/test_dirs.h"
#include "widgets/retrieval/retrieval_loader.h"
#include "widgets/runs_fixture.h"

using hnclip::gui::RetrievalLoader;
using hnclip::gui::RetrievalQueryRequest;
namespace fs = std::filesystem;

namespace {

constexpr int kWaitMs = 120000;  // generous: a slow shared machine must not fail the test
constexpr int kImages = 6;       // all in the test split, two captions each

void write_manifest(const fs::path& dir) {
  fs::create_directories(dir / "img");
  std::ofstream m(dir / "manifest.jsonl");
  for (int i = 0; i < kImages; ++i) {
    QImage img(32, 32, QImage::Format_RGB32);
    img.fill(QColor(30 * i, 80, 120));
    const std::string name = "img/" + std::to_string(i) + ".png";
    QVERIFY(img.save(QString::fromStdString((dir / name).string())));
    m << "{\"image\": \"" << name << "\", \"captions\": [\"picture " << i << "\", \"image number "
      << i << "\"], \"split\": \"test\"}\n";
  }
}

// A finished run evaluated at epoch 1 on the manifest's test split, every query at rank `rank`.
int64_t add_ranked_run(hnclip::RunStore& store, const std::string& name, const fs::path& manifest,
                       int64_t created_at_ms, int64_t rank) {
  const std::string config = "{\"benchmark\": \"manifest\", \"benchmark_root\": \"" +
                             manifest.string() + "\", \"epochs\": 1}";
  const int64_t run =
      hnclip::test::add_run(store, name, hnclip::RunStatus::Finished, config, created_at_ms);
  hnclip::test::add_ranked_eval(store, run, std::vector<int64_t>(2 * kImages, rank),
                                std::vector<std::vector<int64_t>>(2 * kImages, {0, 1}),
                                std::vector<int64_t>(kImages, rank),
                                std::vector<std::vector<int64_t>>(kImages, {0, 1}));
  return run;
}

}  // namespace

class TestRetrievalLoader : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<hnclip::test::ScratchDir> dir_;
  QString db_, cache_;
  int64_t run_a_ = 0, run_b_ = 0;

  RetrievalQueryRequest request(const std::string& direction) const {
    RetrievalQueryRequest r;
    r.run_a = run_a_;
    r.epoch_a = 1;
    r.run_b = run_b_;
    r.epoch_b = 1;
    r.direction = direction;
    r.split_key = "manifest";
    return r;
  }

 private slots:
  void initTestCase() {
    dir_ = std::make_unique<hnclip::test::ScratchDir>();
    write_manifest(dir_->path());
    db_ = QString::fromStdString((*dir_ / "runs.db").string());
    cache_ = QString::fromStdString((*dir_ / "cache").string());
    hnclip::RunStore store(db_.toStdString());
    run_a_ = add_ranked_run(store, "A", dir_->path() / "manifest.jsonl", 1000, 1);
    run_b_ = add_ranked_run(store, "B", dir_->path() / "manifest.jsonl", 2000, 2);
  }

  void runListHoldsEveryRunAndItsSplit() {
    RetrievalLoader loader(db_, cache_);
    QSignalSpy loaded(&loader, &RetrievalLoader::runsLoaded);
    QVERIFY(loader.loadRuns());
    QVERIFY(!loader.loadRuns());  // one read at a time
    QVERIFY(loader.isBusy());
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 && !loader.isBusy(), kWaitMs);
    const auto list = loaded.at(0).at(0).value<hnclip::gui::RetrievalRunList>();
    QCOMPARE(list.runs.size(), size_t{2});
    QCOMPARE(list.splits.size(), size_t{2});
    QVERIFY(!list.splits.at(run_a_).key.empty());
    QCOMPARE(list.splits.at(run_a_).key, list.splits.at(run_b_).key);
  }

  void supersededRankLoadIsDroppedAndOnlyTheNewestAnswered() {
    RetrievalLoader loader(db_, cache_);
    QSignalSpy loaded(&loader, &RetrievalLoader::queriesLoaded);
    QSignalSpy failed(&loader, &RetrievalLoader::queriesFailed);
    loader.loadQueries(request("t2i"));
    loader.loadQueries(request("i2t"));  // supersedes (and cancels) the t2i load
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() + failed.count() > 0 && !loader.isBusy(), kWaitMs);
    QCOMPARE(failed.count(), 0);  // the cancelled t2i load says nothing
    QCOMPARE(loaded.count(), 1);
    const auto q = loaded.at(0).at(0).value<hnclip::gui::RetrievalQueries>();
    QCOMPARE(q.direction, std::string("i2t"));
    QCOMPARE(q.ranks_b.size(), size_t{kImages});
    QCOMPARE(q.ranks_b.front().rank, int64_t{2});
  }

  // A run whose recorded test split differs from the one its manifest path holds now (written
  // again since): its stored ranks number other captions, and are refused rather than shown
  // beside the new ones. A summary that agrees (here by counts, as an older run's) loads.
  void ranksOfARunWhoseDataChangedAreRefused() {
    hnclip::RunStore store(db_.toStdString());
    const int64_t changed = add_ranked_run(store, "C", dir_->path() / "manifest.jsonl", 3000, 1);
    const auto summary = [](const std::string& fingerprint) {
      nlohmann::json test = {{"images", kImages}, {"captions", 2 * kImages}};
      if (!fingerprint.empty()) test["fingerprint"] = fingerprint;
      return nlohmann::json{{"splits", {{"test", test}}}}.dump();
    };
    store.set_data_summary(changed, summary("0123456789abcdef"));
    RetrievalLoader loader(db_, cache_);
    QSignalSpy loaded(&loader, &RetrievalLoader::queriesLoaded);
    QSignalSpy failed(&loader, &RetrievalLoader::queriesFailed);
    auto r = request("t2i");
    r.run_a = changed;
    loader.loadQueries(r);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() + failed.count() == 1 && !loader.isBusy(), kWaitMs);
    QCOMPARE(loaded.count(), 0);
    const QString error = failed.at(0).at(0).toString();
    QVERIFY2(
        error.contains(QStringLiteral("run %1 was trained and tested on manifest ").arg(changed)) &&
            error.contains(QStringLiteral("its test split holds other images or captions")),
        qPrintable(error));

    store.set_data_summary(changed, summary(""));
    loader.loadQueries(r);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 && !loader.isBusy(), kWaitMs);
    QCOMPARE(failed.count(), 1);
    store.delete_run(changed);
  }

  void destroyedMidLoadDeliversNothing() {
    auto loader = std::make_unique<RetrievalLoader>(db_, cache_);
    int results = 0;
    QObject receiver;
    connect(loader.get(), &RetrievalLoader::queriesLoaded, &receiver, [&] { ++results; });
    connect(loader.get(), &RetrievalLoader::queriesFailed, &receiver, [&] { ++results; });
    loader->loadQueries(request("t2i"));
    loader.reset();    // cancels and waits for the worker
    QTest::qWait(50);  // let anything queued arrive (nothing may)
    QCOMPARE(results, 0);
  }

  void failedCheckpointsAreRememberedWhileChosen() {
    RetrievalLoader loader(db_, cache_);
    QSignalSpy ended(&loader, &RetrievalLoader::retrieversLoaded);
    QSignalSpy finished(&loader, &RetrievalLoader::retrieversFinished);
    const hnclip::gui::RetrieverKey a{run_a_, 1}, b{run_b_, 1};
    loader.loadRetrievers(a, b);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1 && !loader.isBusy(), kWaitMs);
    QCOMPARE(ended.count(), 1);
    const auto errors = ended.at(0).at(0).value<hnclip::gui::RetrieverErrors>();
    QCOMPARE(errors.size(), size_t{2});  // no checkpoints in this store
    QVERIFY(!ended.at(0).at(1).toBool());
    QVERIFY(!loader.retriever(a));
    QVERIFY(!loader.retrieverError(a).isEmpty());
    QVERIFY(!loader.runAdhoc("picture", 3, a, b));  // nothing to encode with
    // The same choice again: the failures stand, nothing is retried.
    loader.loadRetrievers(a, b);
    QVERIFY(!loader.isBusy());
    // Another choice forgets the failures of the old one, so choosing it again retries.
    loader.loadRetrievers(b, b);
    QVERIFY(loader.retrieverError(a).isEmpty());
    QVERIFY(!loader.retrieverError(b).isEmpty());
    QVERIFY(!loader.isBusy());
  }
};

QTEST_MAIN(TestRetrievalLoader)
#include "test_retrieval_loader.moc"
