#include "job/experiment_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "data/benchmark_registry.h"
#include "data/benchmark_summary.h"
#include "job/new_run_config.h"
#include "job/run_assets.h"
#include "job/run_benchmark_spec.h"
#include "job/unchanged_run_data.h"
#include "store/host_process.h"
#include "store/run_store.h"
#include "train/train_observer.h"

namespace hnclip {

namespace {

using Clock = std::chrono::steady_clock;

// How often a running run reports progress (besides its start and end).
constexpr double kProgressIntervalSeconds = 5.0;
// Steps measured before an ETA is shown (as the Train tab's): the first step also pays for the
// start's evaluation.
constexpr double kStepsBeforeEta = 5;

// The work a slot stands for, in units whose step count scales alike: epochs × the share of the
// training split it trains on / batch size. Steps ≈ units × (training images), measured once a
// run has reported its steps per epoch.
double work_units(const TrainConfig& c) {
  return c.epochs * c.data_fraction / static_cast<double>(c.batch_size);
}

struct Slot {
  ExperimentSlotRow row;
  TrainConfig config;
  std::string label;  // the cell's label and the seed
};

// What the runner knows while runs are under way; guarded by its mutex.
struct Shared {
  std::mutex mutex;
  ExperimentProgressCallback progress;
  ExperimentProgress state;
  std::deque<Slot> queue;
  std::map<int64_t, std::string> current;  // run id -> progress text
  std::map<int64_t, double> remaining_units;  // run id -> units left in that run
  double pending_units = 0;                   // units of the slots still queued
  double seconds = 0, steps = 0;              // measured wall seconds per step, summed over runs
  double steps_per_unit = 0;                  // training images, from the first run's step counts
  bool stopped = false;

  void publish(const std::string& event) {  // mutex held
    state.current.clear();
    for (const auto& [id, text] : current) state.current.push_back(text);
    state.running = static_cast<int>(current.size());
    state.event = event;
    if (steps >= kStepsBeforeEta && steps_per_unit > 0) {
      double units = pending_units;
      for (const auto& [id, u] : remaining_units) units += u;
      const int workers = std::max(1, state.running);
      state.eta_seconds = units * steps_per_unit * (seconds / steps) / workers;
    }
    if (progress) progress(state);
  }
};

// Feeds the ETA and the progress lines from one run's steps.
class SlotObserver : public TrainObserver {
 public:
  SlotObserver(Shared& shared, int64_t run, const Slot& slot)
      : shared_(shared), run_(run), slot_(slot), start_(Clock::now()) {}

  void on_step(const StepEvent& e) override {
    const double now = std::chrono::duration<double>(Clock::now() - start_).count();
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (first_step_ < 0) {
      // Timing starts at the first step: before it lie the build and the start's evaluation,
      // which would make the first estimates hours too long. (A resumed run starts mid-way.)
      first_step_ = e.step;
      counted_seconds_ = now;
    }
    const double steps_here = static_cast<double>(e.step - first_step_);
    shared_.seconds += now - counted_seconds_;
    shared_.steps += steps_here - counted_steps_;
    counted_seconds_ = now;
    counted_steps_ = steps_here;
    const double units = work_units(slot_.config);
    if (shared_.steps_per_unit == 0 && units > 0 && e.total_steps > 0)
      shared_.steps_per_unit = static_cast<double>(e.total_steps) / units;
    if (e.total_steps > 0)
      shared_.remaining_units[run_] =
          units * static_cast<double>(e.total_steps - e.step) / static_cast<double>(e.total_steps);
    shared_.current[run_] = "run " + std::to_string(run_) + " · " + slot_.label + " · step " +
                            std::to_string(e.step) + "/" + std::to_string(e.total_steps);
    if (now - last_report_ >= kProgressIntervalSeconds || e.step == e.total_steps) {
      last_report_ = now;
      shared_.publish("");
    }
  }

 private:
  Shared& shared_;
  int64_t run_;
  Slot slot_;
  Clock::time_point start_;
  int64_t first_step_ = -1;
  double counted_seconds_ = 0, counted_steps_ = 0;
  double last_report_ = 0;
};

std::string seed_label(const std::string& cell_label, int64_t seed) {
  return cell_label + " · seed " + std::to_string(seed);
}

}  // namespace

ExperimentCreation create_experiment(const ExperimentSpec& spec, bool confirmed,
                                     const JobPaths& paths, JobLog log) {
  ExperimentPlan plan = expand_experiment(spec, confirmed);
  // Stored and compared as a run records its own configuration: a relative --init or data root
  // given to `sweep` would neither match a finished run nor be found by a later `resume`.
  for (auto& s : plan.slots) s.config = with_absolute_paths(s.config);
  // Every data set, split and --init the runs name is opened and checked before anything is
  // recorded, each distinct one once.
  std::map<std::string, std::unique_ptr<Benchmark>> benchmarks;  // benchmark_data_key → opened
  const auto benchmark_of = [&](const TrainConfig& c) -> const Benchmark& {
    const BenchmarkSpec spec = run_benchmark_spec(c, paths.cache_dir);
    auto& opened = benchmarks[benchmark_data_key(spec)];
    if (!opened) opened = open_benchmark(spec, log);
    return *opened;
  };
  std::set<std::string> checked;
  for (const auto& s : plan.slots) {
    const auto& c = s.config;
    const std::string inputs =
        nlohmann::json{benchmark_data_key(run_benchmark_spec(c, paths.cache_dir)),
                       c.train_split,
                       c.test_split,
                       c.val_split,
                       c.init,
                       c.vocab,
                       c.long_clip,
                       c.init_activation,
                       c.model}
            .dump();
    if (!checked.insert(inputs).second) continue;
    const std::string where =
        " (cell '" + plan.cells[s.cell].label + "'; no experiment was recorded)";
    try {
      check_data_root_is_read(c.benchmark, c.benchmark_root);
      check_generator_settings_are_read(c.benchmark, to_string(c.benchmark_size), c.data_seed);
      check_run_inputs(c, benchmark_of(c), log);
    } catch (const std::invalid_argument& e) {  // a flag: ConfigError, or open_benchmark's
      throw ConfigError(e.what() + where);
    } catch (const std::exception& e) {
      throw std::runtime_error(e.what() + where);
    }
  }
  RunStore store(paths.database);
  // Finished runs by the configuration they trained: the newest of equals fills a slot.
  std::map<std::string, RunRecord> finished;
  for (const auto& run : store.list_runs()) {  // newest first
    if (run.status != RunStatus::Finished) continue;
    try {
      finished.emplace(comparable_config(parse_train_config(run.config_json)).dump(), run);
    } catch (const ConfigError&) {
      // A run whose stored config this version cannot read is simply not reused.
    }
  }
  // The same configuration names its data by path: a finished run is reused only while that path
  // holds the data the run recorded (a manifest written again since would put two data sets in
  // one table). Each data set is opened once, and only when a run could be reused.
  std::map<std::string, nlohmann::json> data_now;  // benchmark_data_key → its summary now
  const auto data_change = [&](const RunRecord& run, const TrainConfig& c) {
    const BenchmarkSpec spec = run_benchmark_spec(c, paths.cache_dir);
    const std::string key = benchmark_data_key(spec);
    auto it = data_now.find(key);
    if (it == data_now.end()) it = data_now.emplace(key, benchmark_summary(benchmark_of(c))).first;
    return run_data_change(run, it->second, {c.train_split, c.test_split, c.val_split});
  };
  std::vector<ExperimentCellRow> cells;
  for (const auto& c : plan.cells) cells.push_back({c.index, c.label, c.role, c.settings.dump()});
  ExperimentCreation out;
  std::vector<ExperimentSlotRow> slots;
  for (const auto& s : plan.slots) {
    ExperimentSlotRow row;
    row.cell = s.cell;
    row.seed = static_cast<int64_t>(s.seed);
    row.config_json = nlohmann::json(s.config).dump();
    const auto it = finished.find(comparable_config(s.config).dump());
    const std::string slot_label = seed_label(plan.cells[s.cell].label, row.seed);
    const std::string change = it == finished.end() ? "" : data_change(it->second, s.config);
    if (it != finished.end() && !change.empty()) {
      if (log)
        log("not reusing finished run " + std::to_string(it->second.id) + " for " + slot_label +
            ": its data changed since (" + change + "); training it anew");
    } else if (it != finished.end()) {
      row.run_id = it->second.id;
      row.reused = true;
      ++out.reused;
      if (log)
        log("reusing finished run " + std::to_string(it->second.id) + " for " + slot_label +
            " (same configuration)");
    }
    slots.push_back(std::move(row));
  }
  ExperimentSpec stored = spec;
  stored.selection = plan.selection;  // resolved once, so every later table states the same rule
  ExperimentRecord record;
  record.name = spec.name.empty() ? "experiment" : spec.name;
  record.spec_json = nlohmann::json(stored).dump();
  out.id = store.create_experiment(record, cells, slots);
  out.cells = static_cast<int>(plan.cells.size());
  out.runs = static_cast<int>(plan.slots.size());
  out.selection = plan.selection;
  return out;
}

ExperimentRunner::ExperimentRunner(int64_t experiment_id, const JobPaths& paths, JobLog log)
    : id_(experiment_id), paths_(paths), log_(std::move(log)) {}

std::string ExperimentRunner::run(const std::atomic<bool>& stop, PauseGate* pause,
                                  const ExperimentProgressCallback& progress) {
  RunStore store(paths_.database);
  store.mark_dead_runs_interrupted();
  store.mark_dead_experiments_interrupted();
  const auto experiment = store.find_experiment(id_);
  if (!experiment) {
    throw StoreError(paths_.database + ": no experiment with id " + std::to_string(id_));
  }
  const std::string host = current_host_name();
  if (experiment->status == kExperimentRunning && experiment->pid != getpid() &&
      (experiment->host != host || process_exists(experiment->pid))) {
    throw ConfigError("experiment " + std::to_string(id_) + " is being run by process " +
                      std::to_string(experiment->pid) + " on " + experiment->host);
  }
  ExperimentSpec spec;
  from_json(nlohmann::json::parse(experiment->spec_json), spec);
  std::map<int, std::string> labels;
  for (const auto& c : store.experiment_cells(id_)) labels[c.cell] = c.label;

  Shared shared;
  shared.progress = progress;
  for (const auto& row : store.experiment_slots(id_)) {
    ++shared.state.total;
    Slot slot{row, parse_train_config(row.config_json), seed_label(labels[row.cell], row.seed)};
    if (row.run_id != 0) {
      const auto run = store.find_run(row.run_id);
      if (run && run->status == RunStatus::Finished) {
        ++shared.state.done;
        continue;
      }
      if (run && run->status == RunStatus::Failed) {
        ++shared.state.failed;
        if (log_)
          log_("run " + std::to_string(row.run_id) + " (" + slot.label + ") failed: " +
               run->status_message + " — left as it is; `hnclip train --resume " +
               std::to_string(row.run_id) + "` retries it");
        continue;
      }
      if (!run) slot.row.run_id = 0;  // deleted since: train the slot again
    }
    shared.pending_units += work_units(slot.config);
    shared.queue.push_back(std::move(slot));
  }
  store.set_experiment_running(id_, getpid(), host);

  // The global RNG seeds a new model's weights, and a benchmark is generated once per process:
  // jobs are built one at a time, so parallel runs start exactly as they would alone.
  std::mutex build_mutex;
  auto worker = [&]() {
    RunStore worker_store(paths_.database);
    for (;;) {
      Slot slot;
      {
        std::lock_guard<std::mutex> lock(shared.mutex);
        if (shared.queue.empty() || stop.load()) return;
        slot = std::move(shared.queue.front());
        shared.queue.pop_front();
        shared.pending_units = std::max(0.0, shared.pending_units - work_units(slot.config));
      }
      std::unique_ptr<TrainingJob> job;
      try {
        std::lock_guard<std::mutex> build(build_mutex);
        if (slot.row.run_id != 0) {
          job = TrainingJob::resume(slot.row.run_id, paths_, log_);
        } else {
          job = std::make_unique<TrainingJob>(slot.config, paths_, log_);
          // Linked at once, so a kill from here on resumes this run instead of starting another.
          worker_store.set_experiment_slot_run(id_, slot.row.cell, slot.row.seed, job->run_id(),
                                               false);
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(shared.mutex);
        ++shared.state.failed;
        shared.publish("could not start " + slot.label + ": " + e.what());
        continue;
      }
      const int64_t run_id = job->run_id();
      {
        std::lock_guard<std::mutex> lock(shared.mutex);
        shared.current[run_id] = "run " + std::to_string(run_id) + " · " + slot.label;
        shared.remaining_units[run_id] = work_units(slot.config);
        shared.publish((slot.row.run_id != 0 ? "resumed run " : "started run ") +
                       std::to_string(run_id) + " · " + slot.label);
      }
      SlotObserver observer(shared, run_id, slot);
      TrainResult result;
      std::string error;
      try {
        result = job->run(stop, {&observer}, pause);
      } catch (const std::exception& e) {
        result.status = "failed";
        error = e.what();
      }
      std::lock_guard<std::mutex> lock(shared.mutex);
      shared.current.erase(run_id);
      shared.remaining_units.erase(run_id);
      if (result.status == "finished") {
        ++shared.state.done;
      } else if (result.status == "stopped") {
        shared.stopped = true;
      } else {
        ++shared.state.failed;
      }
      const std::string why = !error.empty() ? error : result.message;
      shared.publish(result.status + " run " + std::to_string(run_id) + " · " + slot.label +
                     (result.status == "failed" && !why.empty() ? ": " + why : ""));
    }
  };
  const int workers = std::max(1, std::min<int>(spec.parallel, static_cast<int>(shared.queue.size())));
  std::vector<std::thread> threads;
  for (int i = 1; i < workers; ++i) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();

  std::string status, message;
  if (stop.load() || shared.stopped) {
    status = kExperimentCancelled;
    message = "cancelled with " + std::to_string(shared.state.done) + " of " +
              std::to_string(shared.state.total) + " runs finished; `hnclip experiment resume " +
              std::to_string(id_) + "` continues it";
  } else if (shared.state.failed > 0) {
    status = kExperimentIncomplete;
    message = std::to_string(shared.state.failed) + " of " + std::to_string(shared.state.total) +
              " runs failed";
  } else {
    status = kExperimentFinished;
  }
  store.set_experiment_finished(id_, status, message,
                                status == kExperimentCancelled ? 0 : unix_time_ms());
  return status;
}

}  // namespace hnclip
