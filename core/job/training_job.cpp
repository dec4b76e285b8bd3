#include "job/training_job.h"

#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>

#include "data/batch_loader.h"
#include "data/benchmark_registry.h"
#include "data/benchmark_summary.h"
#include "data/goal_segments.h"
#include "data/shared_image_files.h"
#include "distributed/process_group.h"
#include "fault/fault_point.h"
#include "job/git_revision.h"
#include "job/located_checkpoints.h"
#include "job/new_run_config.h"
#include "job/run_assets.h"
#include "job/run_benchmark_spec.h"
#include "job/stale_checkpoint_files.h"
#include "job/stored_best_epoch.h"
#include "job/stored_run_config.h"
#include "job/unchanged_run_data.h"
#include "job/workbench_paths.h"
#include "model/make_clip_model.h"
#include "store/host_process.h"
#include "store/run_recorder.h"
#include "store/run_store.h"
#include "text/control_character.h"
#include "text/structure_word_list.h"
#include "train/autocast_guard.h"
#include "train/best_epoch.h"
#include "train/checkpoint.h"
#include "train/compute_setup.h"
#include "train/family_batches.h"
#include "train/framework.h"
#include "train/trainer.h"

namespace hnclip {

namespace {
constexpr int kPrefetchDepth = 4;  // BatchLoader's default: batches loaded ahead of the step
// The rendezvous store's key under which rank 0 publishes the run to the other ranks.
constexpr const char* kPublishedRunKey = "hnclip/run";
// How long rank 0, having published a refusal, waits for the others to have read it: it serves
// the rendezvous store, and a follower whose read had not reached it before it exited got
// "Connection reset by peer" instead of rank 0's reason (seen under load, 1 run in 15).
constexpr std::chrono::seconds kRefusalReadWait{10};

// The key a rank above 0 publishes once it has read the run (or its refusal).
std::string run_read_key(int rank) { return "hnclip/run-read/" + std::to_string(rank); }

// What rank 0 publishes: the run's config and starting point, or the error that refused it.
nlohmann::json published_run(int64_t run_id, const TrainConfig& config, const TrainStart& start) {
  return {{"run_id", run_id},
          {"config", config},
          {"start",
           {{"completed_epochs", start.completed_epochs},
            {"completed_steps", start.completed_steps},
            {"completed_seconds", start.completed_seconds},
            {"checkpoint", start.checkpoint}}}};
}

// Keeps runs.best_epoch current while training, for whoever reads the database with SQL (the
// workbench itself reads the best epoch from the stored evaluations: job/stored_best_epoch.h).
// Only the test split's evaluations count: a validation split's are stored, never offered.
class BestEpochTracker : public TrainObserver {
 public:
  BestEpochTracker(RunStore& store, int64_t run, BestEpochSelector best, std::string test_split)
      : store_(store), run_(run), best_(best), test_split_(std::move(test_split)) {}
  void on_eval(const EvalEvent& e) override {
    if (e.split != test_split_) return;
    if (best_.offer(e.epoch, e.mean_r1())) store_.set_best_epoch(run_, e.epoch);
  }

 private:
  RunStore& store_;
  int64_t run_;
  BestEpochSelector best_;
  std::string test_split_;
};

// A resumed run whose best epoch was evaluated before the resume gets that epoch's recall from
// the store (the trainer only holds the evaluations it ran itself), so its result reports it.
void fill_best_eval_from_store(const RunStore& store, int64_t run, const std::string& test_split,
                               TrainResult& result) {
  if (result.best_epoch < 0 || !result.best_eval.t2i.recall.empty()) return;
  EvalEvent& e = result.best_eval;
  e.epoch = result.best_epoch;
  e.split = test_split;
  e.t2i.direction = "t2i";
  e.i2t.direction = "i2t";
  for (const auto& row : store.epoch_evals(run)) {  // ordered by k: recall stays K ascending
    if (row.epoch != result.best_epoch || row.split != test_split) continue;
    e.step = row.step;
    if (row.direction == e.t2i.direction) e.t2i.recall.emplace_back(row.k, row.recall);
    if (row.direction == e.i2t.direction) e.i2t.recall.emplace_back(row.k, row.recall);
  }
}
}  // namespace

struct TrainingJob::Impl {
  TrainConfig config;
  JobPaths paths;
  JobLog log;
  std::unique_ptr<RunStore> store;
  std::unique_ptr<Benchmark> benchmark;
  std::shared_ptr<const Tokenizer> tokenizer;
  ClipModel model{nullptr};
  ClipModel frozen_reference{nullptr};
  std::unique_ptr<SplitData> train_data, test_data;
  std::unique_ptr<SplitData> val_data;  // null without --val-split
  // Built in prepare(), before the run's row: its constructor's checks (batch against the split,
  // adapters, device) then refuse a run that could never train without recording it.
  std::unique_ptr<Trainer> trainer;
  std::unique_ptr<BadImageLog> skipped;  // --skip-bad-images: what the loaders left out
  int64_t run_id = 0;
  TrainStart start;
  std::shared_ptr<ProcessGroup> group;  // data-parallel only
  nlohmann::json data_summary;  // per-split counts of the benchmark, stored with a new run

  void say(const std::string& s) const {
    if (log) log(s);
  }

  void sweep_stale_temporaries() const {
    const int removed = remove_stale_checkpoint_temporaries(paths.database);
    if (removed > 0) {
      say("removed " + std::to_string(removed) +
          " temporary checkpoint file(s) left by killed processes");
    }
  }

  // Opens the run database, marks the runs whose process died as interrupted and removes their
  // checkpoint temporaries.
  void open_store() {
    store = std::make_unique<RunStore>(paths.database);
    store->mark_dead_runs_interrupted();
    sweep_stale_temporaries();
  }

  // Everything up to (not including) the database row: data, tokenizer, model.
  void prepare(const std::string& weights_checkpoint) {
    auto assets = build_run_assets(config, paths.cache_dir, weights_checkpoint, log);
    tokenizer = assets.tokenizer;
    model = assets.model;
    train_data = std::move(assets.train);
    test_data = std::move(assets.test);
    val_data = std::move(assets.val);
    benchmark = std::move(assets.benchmark);
    data_summary = benchmark_summary(*benchmark);
    data_summary["train_split"] = config.train_split;
    data_summary["test_split"] = config.test_split;
    if (!config.val_split.empty()) data_summary["val_split"] = config.val_split;
    say("data: " + describe_benchmark_summary(data_summary));
    if (config.framework == Framework::kGoal ||
        (config.framework == Framework::kStructxlip && config.structxlip_local_weight > 0)) {
      attach_goal_segments();
    }
    const bool needs_start_text = (config.loss_gamma > 0 && config.loss_gbar == GbarMode::kFrozen) ||
                                  config.batch_sampler == BatchSampler::kFamilies;
    if (needs_start_text && !weights_checkpoint.empty()) {
      // Resuming: the model takes the checkpoint's weights when training starts, but frozen Ḡ
      // (and the families of data without groups) must keep coming from the true starting point —
      // which is what `model` still holds now.
      frozen_reference = make_clip_model(model->config(), config.seed);
      torch::NoGradGuard no_grad;
      auto src = model->named_parameters();
      for (auto& p : frozen_reference->named_parameters()) p.value().copy_(src[p.key()]);
    }
    const int workers = config.loader_workers;
    if (config.skip_bad_images) skipped = std::make_unique<BadImageLog>();
    BadImageLog* skips = skipped.get();
    BatchSourceFactory loaders = [workers, skips](const PairedData& d) {
      return std::make_unique<BatchLoader>(d, workers, kPrefetchDepth, skips);
    };
    trainer = std::make_unique<Trainer>(model, config, *train_data, *test_data, loaders,
                                        run_checkpoint_dir(paths.database, run_id),
                                        tokenizer->to_json(), run_id);
    if (frozen_reference) trainer->set_frozen_reference(frozen_reference);
    if (config.framework == Framework::kStructxlip) {
      // Read (and checked: not UTF-8, a bad entry, no entries) before anything is recorded.
      const std::string file = config.structxlip_words.empty() ? shipped_structxlip_words()
                                                               : config.structxlip_words;
      const auto words = read_structure_word_list(file);
      say("StructXLIP: filtered captions drop " + std::to_string(words.size()) +
          " words and phrases (" + file + ")");
      trainer->set_structure_words(words);
    }
    if (val_data) trainer->set_validation(*val_data);
    say_images_shared_with_training("--test-split", config.test_split, *test_data);
    if (val_data) {
      say_images_shared_with_training("--val-split", config.val_split, *val_data);
      // The epoch chosen on the validation split is then partly chosen on the test images.
      const auto shared = shared_image_files(image_files(*val_data), image_files(*test_data));
      set_shared_image_count(data_summary, config.val_split, config.test_split,
                             static_cast<int64_t>(shared.size()));
      if (!shared.empty())
        say("--val-split " + config.val_split + ": " + std::to_string(shared.size()) + " of its " +
            std::to_string(val_data->num_images()) + " images are also test images (split " +
            config.test_split + ", e.g. " + shared.front() +
            "): the best epoch is partly chosen on the test split");
    }
    say_near_twins_in_batches();
  }

  // A held-out split that shares image files with the training split (a manifest may list a file
  // under both) is not held out for those images. Allowed, never silently: said now and kept in
  // the run's data summary (`show`, `runs` and the Runs tab say it); a split that is the training
  // split is said where the run is created.
  void say_images_shared_with_training(const std::string& flag, const std::string& split,
                                       const SplitData& data) {
    if (split == config.train_split) return;
    const auto shared = shared_image_files(image_files(data), image_files(*train_data));
    set_shared_image_count(data_summary, split, config.train_split,
                           static_cast<int64_t>(shared.size()));
    if (shared.empty()) return;
    say(flag + " " + split + ": " + std::to_string(shared.size()) + " of its " +
        std::to_string(data.num_images()) + " images are also training images (split " +
        config.train_split + ", the same files, e.g. " + shared.front() +
        "): its recall on them measures how well the run fits images it trained on");
  }

  // GOAL: the segment sidecar (--goal-segments, else the built-in benchmark's own segments.json)
  // read and checked against every split's images before anything is recorded; the training
  // split keeps its images' segments. Without a file the Trainer refuses the run, saying how to
  // give one.
  void attach_goal_segments() {
    std::filesystem::path file = config.goal_segments;
    if (file.empty() && benchmark->name() == "synthetic") {
      file = std::filesystem::path(benchmark->root()) / "segments.json";
    }
    if (file.empty()) return;
    std::vector<Sample> all;
    for (const auto& split : benchmark->splits()) {
      auto samples = benchmark->split(split);
      all.insert(all.end(), std::make_move_iterator(samples.begin()),
                 std::make_move_iterator(samples.end()));
    }
    train_data->set_segments(read_goal_segments(file, all));
    const std::string who = config.framework == Framework::kGoal ? "GOAL" : "StructXLIP";
    say(who + ": " + std::to_string(train_data->images_with_segments()) + " of the " +
        std::to_string(train_data->num_images()) + " training images have a segment (" +
        file.string() + ")");
  }

  // With near-twin groups in the data: how many near-twin pairs share a batch in epoch 1 — what
  // --batch-sampler changes (random batches rarely hold one; family batches nearly all).
  void say_near_twins_in_batches() const {
    std::vector<std::string> groups(static_cast<size_t>(train_data->num_images()));
    bool any = false;
    for (int64_t i = 0; i < train_data->num_images(); ++i) {
      groups[static_cast<size_t>(i)] = train_data->image_group(i);
      any = any || !groups[static_cast<size_t>(i)].empty();
    }
    if (!any) return;
    std::vector<std::vector<int64_t>> batches;
    for (auto& b : trainer->epoch_batches(1)) batches.push_back(std::move(b.images));
    const auto count =
        family_pairs_in_batches(batches, families_from_groups(groups), train_data->num_images());
    if (count.total == 0) return;
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", 100.0 * static_cast<double>(count.together) /
                                                     static_cast<double>(count.total));
    say("batches: " + to_string(config.batch_sampler) + " — " + std::to_string(count.together) +
        " of the " + std::to_string(count.total) + " near-twin pairs of the training images (" +
        share + ") share a batch in epoch 1");
  }
};

TrainingJob::TrainingJob(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

namespace {
// Rank 0: runs `body` (the checks and the record); if it throws, the other ranks learn why
// before the error leaves this process, instead of waiting out their timeout.
template <typename Body>
void publishing_errors(const std::shared_ptr<ProcessGroup>& group, Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    if (group) {
      try {
        group->publish(kPublishedRunKey, nlohmann::json{{"error", e.what()}}.dump());
        const auto until =
            std::chrono::steady_clock::now() +
            std::min<std::chrono::milliseconds>(kRefusalReadWait, group->spec().timeout);
        for (int rank = 1; rank < group->world_size(); ++rank) {
          const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
              until - std::chrono::steady_clock::now());
          if (left.count() <= 0 || !group->published_within(run_read_key(rank), left)) break;
        }
      } catch (const std::exception&) {
        // The others then time out instead; the error below is this rank's to report.
      }
    }
    throw;
  }
}

// Rank 0, before anything is recorded: every other rank's request agrees with the run.
void check_followers(const std::shared_ptr<ProcessGroup>& group, const TrainConfig* new_run,
                     int64_t resumed_run) {
  if (!group) return;
  for (int rank = 1; rank < group->world_size(); ++rank) {
    const auto text = group->wait_for(follower_request_key(rank), "rank " + std::to_string(rank));
    const std::string why =
        follower_disagreement(rank, parse_follower_request(rank, text), new_run, resumed_run);
    if (!why.empty()) throw ConfigError(why);
  }
}

void check_world_size(const std::string& what, int stored,
                      const std::shared_ptr<ProcessGroup>& group) {
  const int have = group ? group->world_size() : 1;
  if (stored != have) {
    throw ConfigError(what + ": the run was trained by " + std::to_string(stored) +
                      " process(es) (--world-size " + std::to_string(stored) +
                      "); resume it with the same world size (got " + std::to_string(have) +
                      "), since its batches' shards depend on it");
  }
}
}  // namespace

TrainingJob::TrainingJob(const TrainConfig& config, const JobPaths& paths, JobLog log,
                         std::shared_ptr<ProcessGroup> group)
    : impl_(std::make_unique<Impl>()) {
  publishing_errors(group, [&] { construct(config, paths, std::move(log), group); });
}

void TrainingJob::construct(const TrainConfig& config, const JobPaths& paths, JobLog log,
                            const std::shared_ptr<ProcessGroup>& group) {
  auto& s = *impl_;
  s.config = config;
  s.group = group;
  if (group) {
    if (group->rank() != 0) throw std::logic_error("TrainingJob: only rank 0 records a run");
    check_world_size("--world-size", config.world_size, group);
  } else if (config.world_size != 1) {
    check_world_size("--world-size", config.world_size, group);
  }
  s.config = settled_new_run_config(config);  // absolute paths, a framework's logit scale
  s.paths = paths;
  s.log = std::move(log);
  config.validate();
  // A new run's name is one line (a row of `runs`, a legend entry). Checked here, not in
  // validate(): a run stored with such a name by an earlier version still evaluates and resumes.
  if (const std::string c = control_character_in(config.name); !c.empty())
    throw ConfigError("--name must be one line without control characters (it has " + c + ")");
  // Not in validate() either: a run recorded with such a root (or a data set on disk recorded with
  // the generator's size and seed) by an earlier version still evaluates and resumes on the data
  // it trained on.
  check_data_root_is_read(config.benchmark, config.benchmark_root);
  check_generator_settings_are_read(config.benchmark, to_string(config.benchmark_size),
                                    config.data_seed);
  check_followers(group, &s.config, 0);
  // A framework's own starting logit scale is recorded as the run's, and said.
  if (s.config.logit_scale != config.logit_scale && s.log) {
    s.log("--framework " + to_string(s.config.framework) + ": the logit scale restarts at " +
          std::to_string(static_cast<int>(s.config.logit_scale)) +
          " as in its training code (--logit-scale N to choose another)");
  }
  // Allowed (a manifest with one "all" split), but never silently: such recall is not held out.
  if (s.config.train_split == s.config.test_split && s.log) {
    s.log("--test-split " + s.config.test_split +
          " is also the training split: the recall measures how well the run fits images it "
          "trained on, not retrieval of unseen ones");
  }
  // An unavailable --device (or --precision it cannot run) fails here, before any record exists.
  try {
    const auto device = resolve_device(to_string(config.device));
    use_bf16_autocast(config.precision, device.type());
    s.config.dist_backend =
        group ? to_string(resolve_backend(group->spec().backend, device)) : std::string();
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  // An existing database is opened (and so checked) before the data, which can take minutes to
  // generate or read; a new one is created only once the data has been accepted, so that a
  // refused manifest or data folder leaves no empty database behind.
  std::error_code ec;
  if (std::filesystem::exists(paths.database, ec))
    s.open_store();
  else
    RunStore::check_creatable(paths.database);
  s.prepare("");
  if (!s.store) s.open_store();
  RunRecord record;
  record.name = config.name;
  record.status = RunStatus::Queued;
  // Owned by this process from the start, so a kill before the first step is detectable.
  record.pid = ::getpid();
  record.host = current_host_name();
  record.config_json = nlohmann::json(s.config).dump();
  record.git_rev = git_revision();
  record.created_at_ms = unix_time_ms();
  record.data_summary_json = s.data_summary.dump();
  s.run_id = s.store->create_run(record);
  s.trainer->set_run(s.run_id, run_checkpoint_dir(paths.database, s.run_id));
  fault_point("run.created");
  if (group) group->publish(kPublishedRunKey, published_run(s.run_id, s.config, s.start).dump());
}

std::unique_ptr<TrainingJob> TrainingJob::resume(int64_t run_id, const JobPaths& paths,
                                                 JobLog log, std::shared_ptr<ProcessGroup> group) {
  std::unique_ptr<TrainingJob> job;
  publishing_errors(group, [&] { job = resume_recorded(run_id, paths, std::move(log), group); });
  if (group) {
    const auto& s = *job->impl_;
    group->publish(kPublishedRunKey, published_run(s.run_id, s.config, s.start).dump());
  }
  return job;
}

std::unique_ptr<TrainingJob> TrainingJob::follow(std::shared_ptr<ProcessGroup> group,
                                                 const JobPaths& paths, JobLog log,
                                                 const FollowerRequest& request) {
  if (!group || group->rank() == 0) throw std::logic_error("TrainingJob::follow: ranks above 0");
  group->publish(follower_request_key(group->rank()), follower_request_text(request));
  const auto text = group->wait_for(kPublishedRunKey, "rank 0");
  try {
    group->publish(run_read_key(group->rank()), "1");  // rank 0 may exit now (a refusal)
  } catch (const std::exception&) {
    // Rank 0 is gone already: what it published has been read all the same.
  }
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw DistributedError("rank 0 published a run that is not JSON: " + text.substr(0, 80));
  }
  if (j.contains("error")) {
    throw ConfigError("rank 0 refused the run: " + j["error"].get<std::string>());
  }
  auto impl = std::make_unique<Impl>();
  auto& s = *impl;
  s.paths = paths;
  s.log = std::move(log);
  s.group = group;
  from_json(j.at("config"), s.config);
  check_world_size("--world-size", s.config.world_size, group);
  s.run_id = j.at("run_id").get<int64_t>();
  const auto& st = j.at("start");
  s.start.completed_epochs = st.at("completed_epochs").get<int>();
  s.start.completed_steps = st.at("completed_steps").get<int64_t>();
  s.start.completed_seconds = st.at("completed_seconds").get<double>();
  s.start.checkpoint = st.at("checkpoint").get<std::string>();
  s.prepare(s.start.checkpoint);
  s.trainer->set_run(s.run_id, run_checkpoint_dir(paths.database, s.run_id));
  return std::unique_ptr<TrainingJob>(new TrainingJob(std::move(impl)));
}

namespace {

// A recorded checkpoint's file was complete when its row was written, so a missing one was
// removed since: continuing from an older file (or the start) would silently replace the stored
// results of the epochs after it. Throws ConfigError saying so, before anything is changed.
void refuse_missing_last_checkpoint(int64_t run_id, const std::vector<CheckpointRow>& recorded) {
  if (recorded.empty() || std::filesystem::exists(recorded.back().path)) return;
  std::optional<CheckpointRow> present;
  for (const auto& c : recorded)
    if (std::filesystem::exists(c.path)) present = c;
  const int from = present ? present->epoch : 0;
  const int last = recorded.back().epoch;
  throw ConfigError("--resume " + std::to_string(run_id) + ": the checkpoint of its last epoch, " +
                    std::to_string(last) + ", is missing (" + recorded.back().path +
                    "): resuming would continue " +
                    (present ? "after epoch " + std::to_string(from) + ", the newest file present,"
                             : std::string("from the start, no checkpoint file being left,")) +
                    " and replace the stored results of " +
                    (from + 1 == last
                         ? "epoch " + std::to_string(last)
                         : "epochs " + std::to_string(from + 1) + "–" + std::to_string(last)) +
                    ". Nothing was changed: put the file back, or train a new run with its "
                    "settings (hnclip show " +
                    std::to_string(run_id) + "; the Train tab's \"Same as run\")");
}

}  // namespace

std::unique_ptr<TrainingJob> TrainingJob::resume_recorded(int64_t run_id, const JobPaths& paths,
                                                          JobLog log,
                                                          const std::shared_ptr<ProcessGroup>& group) {
  auto impl = std::make_unique<Impl>();
  auto& s = *impl;
  s.paths = paths;
  s.log = std::move(log);
  s.group = group;
  check_followers(group, nullptr, run_id);
  if (std::error_code ec; !std::filesystem::exists(paths.database, ec))
    throw ConfigError("--resume " + std::to_string(run_id) +
                      ": no such run: there is no database at " + paths.database);
  s.open_store();
  const auto run = s.store->find_run(run_id);
  if (!run)
    throw ConfigError("--resume " + std::to_string(run_id) + ": no such run in " + paths.database);
  // A failed run resumes too: a full disk or a vanished file fails a run that can go on once
  // the cause is fixed (a non-finite loss simply fails again at the same step).
  if (run->status != RunStatus::Interrupted && run->status != RunStatus::Stopped &&
      run->status != RunStatus::Failed) {
    throw ConfigError("--resume " + std::to_string(run_id) + ": the run is " +
                      to_string(run->status) +
                      "; only interrupted, stopped or failed runs can be resumed");
  }
  s.config = stored_run_config(*run);
  s.run_id = run_id;
  check_world_size("--resume " + std::to_string(run_id), s.config.world_size, group);
  // Refused before the run is touched (Trainer refuses it too, for any other caller).
  if (s.config.framework == Framework::kFinelip) {
    throw ConfigError("--resume " + std::to_string(run_id) +
                      ": a FineLIP run's aggregation nets are not kept in its checkpoints yet; "
                      "train it again with its settings (hnclip show " + std::to_string(run_id) +
                      "; the Train tab's \"same as run\")");
  }

  // Training continues from the newest checkpoint, whose file must still be there.
  std::optional<CheckpointRow> last;
  const auto recorded = located_checkpoints(*s.store, run_id);
  refuse_missing_last_checkpoint(run_id, recorded);
  if (!recorded.empty()) last = recorded.back();
  s.prepare(last ? last->path : "");
  refuse_changed_run_data(*run, benchmark_data_label(run_benchmark_spec(s.config, paths.cache_dir)),
                          s.data_summary,
                          {s.config.train_split, s.config.test_split, s.config.val_split},
                          "Resuming would train and select one run on two data sets; nothing was "
                          "changed. Put the data back as it was, or train a new run on it.");
  if (last) {
    s.start.completed_epochs = last->epoch;
    s.start.completed_steps = last->step;
    s.start.checkpoint = last->path;
    for (const auto& m : s.store->step_metrics(run_id)) {
      if (m.step == last->step) s.start.completed_seconds = m.wall_time_s;
    }
    // Best so far among the epochs being kept.
    const StoredBestEpoch kept =
        best_stored_epoch(s.store->epoch_evals(run_id), s.config.test_split, last->epoch);
    if (kept.epoch >= 0) {
      s.start.best_epoch = kept.epoch;
      s.start.best_mean_r1 = kept.score;
    }
  }
  s.store->delete_step_metrics_after(run_id, s.start.completed_steps);
  s.store->delete_probes_after(run_id, s.start.completed_steps);
  s.store->delete_epoch_evals_after(run_id, last ? last->epoch : -1);
  s.store->delete_gbar_snapshots_after(run_id, last ? last->epoch : -1);
  s.say("resuming run " + std::to_string(run_id) + " after epoch " +
        std::to_string(s.start.completed_epochs) + " (step " +
        std::to_string(s.start.completed_steps) + ")");
  return std::unique_ptr<TrainingJob>(new TrainingJob(std::move(impl)));
}

TrainingJob::~TrainingJob() = default;

int64_t TrainingJob::run_id() const { return impl_->run_id; }
const TrainConfig& TrainingJob::config() const { return impl_->config; }
int64_t TrainingJob::test_images() const { return impl_->test_data->num_images(); }
int64_t TrainingJob::test_captions() const { return impl_->test_data->num_captions(); }

TrainResult TrainingJob::run(const std::atomic<bool>& stop,
                             const std::vector<TrainObserver*>& observers, PauseGate* pause) {
  auto& s = *impl_;
  configure_threads(s.config.threads, &s.model->config());
  if (!s.store) {
    // A rank above 0: it trains its shard; rank 0 records and saves the run.
    s.trainer->set_pause_gate(pause);
    s.trainer->set_process_group(s.group);
    for (auto* o : observers) s.trainer->add_observer(o);
    return s.trainer->run(s.start, stop);
  }
  RunRecorder recorder(*s.store, s.run_id);
  BestEpochTracker best(*s.store, s.run_id,
                        BestEpochSelector(s.start.best_epoch, s.start.best_mean_r1),
                        s.config.test_split);
  // Whatever the outcome, the record says which training images were skipped (never silently).
  const auto record_skipped = [&s] {
    if (!s.skipped || s.skipped->pairs_dropped() == 0) return;
    nlohmann::json summary = s.data_summary;
    if (const auto run = s.store->find_run(s.run_id)) {
      summary = nlohmann::json::parse(run->data_summary_json, nullptr, /*exceptions=*/false);
      if (!summary.is_object()) summary = s.data_summary;
    }
    const nlohmann::json earlier = summary.value("skipped_images", nlohmann::json());
    summary["skipped_images"] = s.skipped->summary(earlier);
    s.store->set_data_summary(s.run_id, summary.dump());
    s.say("skipped " + std::to_string(s.skipped->pairs_dropped()) +
          " training pair(s) whose image failed to decode (" +
          std::to_string(s.skipped->images().size()) + " image(s); see the run's data summary)");
  };
  try {
    Trainer& trainer = *s.trainer;
    trainer.set_pause_gate(pause);
    // Joins the other ranks (after the run was published: they join once they have read it).
    if (s.group) trainer.set_process_group(s.group);
    s.store->set_started(s.run_id, ::getpid(), current_host_name(), trainer.device().str(),
                         unix_time_ms());
    trainer.add_observer(&recorder);
    trainer.add_observer(&best);
    for (auto* o : observers) trainer.add_observer(o);
    TrainResult result = trainer.run(s.start, stop);
    record_skipped();
    fill_best_eval_from_store(*s.store, s.run_id, s.config.test_split, result);
    return result;
  } catch (const std::exception& e) {
    // The error that ended the run is the one reported. When the database itself cannot be
    // written (a full disk) the status stays `running` with this dead process's pid, which the
    // next start marks `interrupted` — resumable either way.
    try {
      recorder.flush();
    } catch (const std::exception& flush_error) {
      s.say(std::string("last step metrics not saved: ") + flush_error.what());
    }
    try {
      record_skipped();
    } catch (const std::exception& store_error) {
      s.say(std::string("skipped images not recorded: ") + store_error.what());
    }
    // Another rank gone (or silent past the timeout) is not this run's fault: it resumes as is.
    const bool peer_lost = dynamic_cast<const DistributedError*>(&e) != nullptr;
    try {
      s.store->set_status(s.run_id, peer_lost ? RunStatus::Interrupted : RunStatus::Failed,
                          e.what());
      s.store->set_finished(s.run_id, unix_time_ms());
    } catch (const std::exception& store_error) {
      s.say(std::string("run not marked ") + (peer_lost ? "interrupted: " : "failed: ") +
            store_error.what());
    }
    throw;
  }
}

}  // namespace hnclip
