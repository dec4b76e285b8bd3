#pragma once
// Small hand-made run databases for the Runs-tab tests: runs with a config JSON written here,
// per-epoch recall rows written through RunStore::write_epoch_eval. No training involved.

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "eval/retrieval_result.h"
#include "store/run_store.h"

namespace hnclip::test {

// A TrainConfig-shaped JSON object with the keys the Runs tab reads plus a few it does not.
inline std::string make_config_json(const std::string& benchmark, double gamma, const std::string& gbar,
                                    int epochs, const std::string& extra_member = "") {
  std::ostringstream j;
  j << R"({"benchmark": ")" << benchmark << R"(", "loss_gamma": )" << gamma << R"(, "loss_gbar": ")" << gbar
    << R"(", "epochs": )" << epochs << R"(, "lr": 5e-05, "batch_size": 128, "seed": 0)";
  if (!extra_member.empty()) j << ", " << extra_member;
  j << "}";
  return j.str();
}

inline int64_t add_run(RunStore& store, const std::string& name, RunStatus status, const std::string& config,
                       int64_t created_at_ms, const std::string& tags = "") {
  RunRecord r;
  r.name = name;
  r.status = status;
  r.config_json = config;
  r.created_at_ms = created_at_ms;
  r.tags = tags;
  // pid 0: mark_dead_runs_interrupted leaves a "running" run of the fixture alone.
  if (status != RunStatus::Queued) r.started_at_ms = created_at_ms + 1000;
  if (status == RunStatus::Finished) r.finished_at_ms = created_at_ms + 1000 + 65'000;
  return store.create_run(r);
}

// Recall at K = 1, 5, 10, 25, 50 of both directions for one epoch of the test split.
inline void add_eval(RunStore& store, int64_t run, int epoch, const std::array<double, 5>& t2i,
                     const std::array<double, 5>& i2t) {
  const int ks[5] = {1, 5, 10, 25, 50};
  RetrievalResult a, b;
  a.direction = "t2i";
  b.direction = "i2t";
  for (int i = 0; i < 5; ++i) {
    a.recall.emplace_back(ks[i], t2i[i]);
    b.recall.emplace_back(ks[i], i2t[i]);
  }
  store.write_epoch_eval(run, epoch, epoch * 10, "test", a, b);
}

// Epoch 1 of the test split with these per-query ranks and top ids, for the Retrieval tab, which
// reads ranks: recall is a flat 50% (text→image) and 40% (image→text) at every K.
inline void add_ranked_eval(RunStore& store, int64_t run, std::vector<int64_t> t2i_ranks,
                            std::vector<std::vector<int64_t>> t2i_topk,
                            std::vector<int64_t> i2t_ranks,
                            std::vector<std::vector<int64_t>> i2t_topk) {
  RetrievalResult t2i, i2t;
  t2i.direction = "t2i";
  i2t.direction = "i2t";
  for (int k : {1, 5, 10, 25, 50}) {
    t2i.recall.emplace_back(k, 50.0);
    i2t.recall.emplace_back(k, 40.0);
  }
  t2i.ranks = std::move(t2i_ranks);
  t2i.topk = std::move(t2i_topk);
  i2t.ranks = std::move(i2t_ranks);
  i2t.topk = std::move(i2t_topk);
  store.write_epoch_eval(run, 1, 10, "test", t2i, i2t);
}

}  // namespace hnclip::test
