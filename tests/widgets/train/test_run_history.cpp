// load_run_histories: a run evaluated with --val-split stores its validation split's rows beside
// the test split's; the history the Train tab plots holds the test split's only (its recall chart
// follows one split), while a run without a validation split keeps every row.
#include <QtTest>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "store/run_store.h"
#include "support/test_dirs.h"
#include "train/train_config.h"
#include "widgets/train/run_history.h"

namespace {

hnclip::RetrievalResult result(const std::string& direction, double r1) {
  hnclip::RetrievalResult r;
  r.direction = direction;
  r.recall = {{1, r1}, {5, r1 + 10}};
  r.ranks = {1, 4};
  r.topk = {{0, 1}, {3, 1}};
  return r;
}

// A run whose config names `val_split`, evaluated on test and val at epochs 0 and 1.
int64_t add_run(hnclip::RunStore& store, const std::string& val_split) {
  hnclip::TrainConfig c;
  c.val_split = val_split;
  hnclip::RunRecord r;
  r.name = "run";
  r.config_json = nlohmann::json(c).dump();
  const int64_t id = store.create_run(r);
  for (int epoch = 0; epoch <= 1; ++epoch) {
    store.write_epoch_eval(id, epoch, epoch * 4, "test", result("t2i", 10), result("i2t", 20));
    store.write_epoch_eval(id, epoch, epoch * 4, "val", result("t2i", 30), result("i2t", 40));
  }
  return id;
}

}  // namespace

class TestRunHistory : public QObject {
  Q_OBJECT
 private slots:
  void validation_rows_are_left_out_of_the_plotted_history() {
    hnclip::test::ScratchDir dir;
    const std::string db = (dir / "runs.db").string();
    int64_t with_val = 0, without = 0;
    {
      hnclip::RunStore store(db);
      with_val = add_run(store, "val");
      without = add_run(store, "");  // rows of a split the config does not name stay
    }
    const auto histories = hnclip::gui::load_run_histories(db, {with_val, without});
    QCOMPARE(histories.size(), size_t{2});
    std::map<std::string, int> splits;
    for (const auto& e : histories[0].evals) ++splits[e.split];
    QCOMPARE(splits.size(), size_t{1});
    QCOMPARE(splits["test"], 2 * 2 * 2);  // 2 epochs x 2 directions x 2 K
    splits.clear();
    for (const auto& e : histories[1].evals) ++splits[e.split];
    QCOMPARE(splits["test"], 8);
    QCOMPARE(splits["val"], 8);
  }
};

QTEST_GUILESS_MAIN(TestRunHistory)
#include "test_run_history.moc"
