// `hnclip train` (fine-tune or resume a run) and `hnclip pretrain` (make the starting checkpoint
// the built-in demo fine-tunes from).

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "distributed/distributed_spec.h"
#include "distributed/process_group.h"
#include "flags_without_effect.h"
#include "job/export_destination.h"
#include "job/follower_request.h"
#include "job/new_run_config.h"
#include "job/training_job.h"
#include "job/workbench_paths.h"
#include "model/peft.h"
#include "progress_printer.h"
#include "store/run_store.h"
#include "stored_recall.h"
#include "train/best_epoch.h"
#include "train/builtin_recipe.h"
#include "train/checkpoint.h"

namespace hnclip::cli {

namespace {

struct TrainOptions {
  CommonOptions common;
  TrainConfig config;
  int64_t resume = 0;
  DistributedFlags dist;
};

// Data-parallel flags of `hnclip train`; unset ones fall back to torchrun's variables.
void add_distributed_options(CLI::App* cmd, DistributedFlags& d) {
  cmd->add_option("--world-size", d.world_size,
                  "data-parallel processes in all (default: WORLD_SIZE, else 1). --batch stays the "
                  "global batch; S and Ḡ are built over all of it");
  cmd->add_option("--rank", d.rank,
                  "this process's place in [0, world size) (default: RANK); rank 0 records the "
                  "run and saves its checkpoints. (The adapter rank of --peft is --peft-rank)");
  cmd->add_option("--local-rank", d.local_rank,
                  "this process's index on its host, its GPU cuda:N (default: LOCAL_RANK, else "
                  "the rank)");
  cmd->add_option("--master", d.master,
                  "ADDR:PORT where rank 0 serves the rendezvous (default: MASTER_ADDR and "
                  "MASTER_PORT)");
  cmd->add_option("--dist-backend", d.backend,
                  "auto (NCCL on CUDA, Gloo on the CPU), gloo or nccl");
  cmd->add_option("--dist-timeout", d.timeout_s,
                  "seconds a rank waits for the others (rendezvous, every collective, rank 0's "
                  "evaluation) before the run stops as interrupted; default 300");
}

// The process group of a data-parallel launch, or null for one process. Bad flags or variables
// (and, for a new run, a config that could not run with this world size) are usage errors naming
// them; a rendezvous that fails names the master's address.
std::shared_ptr<ProcessGroup> join_rendezvous(const DistributedFlags& flags,
                                              const TrainConfig* new_run) {
  DistributedSpec spec;
  try {
    spec = resolve_distributed_spec(flags);
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();
    if (flags.rank && !flags.world_size && message.rfind("--rank", 0) == 0)
      message += " (the adapter rank of --peft is --peft-rank)";
    throw ConfigError(message);
  }
  if (!spec.distributed()) return nullptr;
  if (new_run) {
    // Every rank checks its own flags before the rendezvous, so a bad one never waits for peers.
    TrainConfig c = *new_run;
    c.world_size = spec.world_size;
    c.validate();
  }
  return std::make_shared<ProcessGroup>(spec);
}

// --device has no fixed list (cuda:N): refused here, as a parse error, with TrainConfig's message.
std::string device_word(const std::string& s) {
  try {
    DeviceSpec d;
    from_string(s, d);
    return "";
  } catch (const ConfigError& e) {
    // CLI11 puts "--device: " before the message, which names the flag too.
    const std::string what = e.what();
    const std::string flag = "--device ";
    return what.rfind(flag, 0) == 0 ? what.substr(flag.size()) : what;
  }
}

void add_config_options(CLI::App* cmd, TrainConfig& c) {
  add_benchmark_options(cmd, c.benchmark, c.benchmark_size, c.benchmark_root, c.data_seed);
  add_image_check_options(cmd, c.max_image_pixels, c.allow_outside_root, /*zero_is_default=*/true);
  cmd->add_flag("--skip-bad-images", c.skip_bad_images,
                "a training image that fails to decode mid-run drops its pair from the batch and "
                "is counted in the run record (data summary: skipped_images), instead of failing "
                "the run; evaluation never skips");
  cmd->add_option("--train-split", c.train_split, "split to train on")->capture_default_str();
  cmd->add_option("--test-split", c.test_split, "split to evaluate on")->capture_default_str();
  cmd->add_option("--val-split", c.val_split,
                  "validation split, evaluated like the test split at the start and after every "
                  "epoch and stored under its own name, so an epoch can be selected without the "
                  "test split (the built-in benchmark's: val); the run's best epoch stays chosen "
                  "on test. Default: none");
  cmd->add_option("--model", c.model,
                  "model preset: tiny, ViT-B/32, ViT-B/16, ViT-L/14 (default: the --init "
                  "checkpoint's shape, else tiny)");
  cmd->add_option("--context-length", c.context_length, "word tokenizer context (without --init)")
      ->capture_default_str();
  cmd->add_option("--gamma", c.loss_gamma, "HN margin strength γ >= 0 (0 = plain InfoNCE)")
      ->capture_default_str();
  add_choice_option(cmd, "--gbar", c.loss_gbar, {"recomputed", "frozen"},
                    "caption similarity Ḡ: recomputed (live text encoder) or frozen");
  cmd->add_option("--token-weight", c.loss_token_weight, "weight λtok of the token-level term")
      ->capture_default_str();
  cmd->add_option("--logit-scale", c.logit_scale,
                  "starting logit scale s (<= 100); 0 = keep the checkpoint's")
      ->capture_default_str();
  cmd->add_flag("--fixed-scale", c.fixed_scale, "do not learn s");
  add_choice_option(cmd, "--framework", c.framework, {"plain", "longclip", "debias", "finelip", "goal", "structxlip"},
                    "fine-tuning framework: plain (the global term alone), longclip "
                    "(Long-CLIP: + short caption vs batch-PCA image features, label smoothing, "
                    "s restarted at 100) or debias (DeBias-CLIP on Long-CLIP's code: + an "
                    "augmented caption without its summary sentence, sub-sampled and padded) or "
                    "finelip (FineLIP: aggregated patch and word tokens, a triplet hinge on their "
                    "late-interaction similarity; with --hn on plus the global HN term) or goal "
                    "(GOAL: + crop image vs its sentence, and the image's box tokens and the "
                    "caption's sentence tokens pulled to them; needs segments, --goal-segments) or "
                    "structxlip (StructXLIP: + the image's Canny edge map vs the caption without "
                    "colour/material/texture words, RGB vs edge embedding, and edge segments vs "
                    "caption chunks; the segments as for goal)");
  cmd->add_option_function<std::string>(
         "--hn", [&c](const std::string& v) { c.hn = v == "on"; },
         "on: the framework's global term is the HN loss (--gamma, --gbar); off: its own "
         "(refuses --gamma > 0)")
      ->check(CLI::IsMember({"on", "off"}))
      ->default_str("on");
  cmd->add_option("--longclip-pca", c.longclip_pca_components,
                  "Long-CLIP: principal components kept of the batch's image features")
      ->capture_default_str();
  cmd->add_option("--longclip-smoothing", c.longclip_label_smoothing,
                  "Long-CLIP and DeBias-CLIP: label smoothing of their cross-entropies")
      ->capture_default_str();
  cmd->add_option("--finelip-margin", c.finelip_margin, "FineLIP: the triplet hinge's margin")
      ->capture_default_str();
  cmd->add_flag("--finelip-hardest", c.finelip_hardest_negative,
                "FineLIP: each query's hardest negative only (VSE++'s max violation)");
  cmd->add_option("--finelip-lr", c.finelip_aggregation_lr,
                  "FineLIP: peak learning rate of its token-aggregation nets")
      ->capture_default_str();
  cmd->add_option("--goal-segments", c.goal_segments,
                  "GOAL: segment file (GOAL's training JSON: per image a \"segment\" list of "
                  "crop box + caption sentence; README); default: the built-in benchmark's own");
  cmd->add_option("--goal-crop-weight", c.goal_crop_weight,
                  "GOAL: weight of its crop-image vs sentence CLIP term")
      ->capture_default_str();
  cmd->add_option("--train-towers", c.train_towers,
                  "full fine-tuning: the towers whose weights train, with any framework (the other "
                  "is frozen; s trains unless --fixed-scale)")
      ->check(CLI::IsMember({"image", "text", "both"}))
      ->capture_default_str();
  cmd->add_option("--dist-eval", c.dist_eval,
                  "data-parallel evaluation: sharded (every rank encodes its share, rank 0 ranks) "
                  "or rank0 (rank 0 alone; the others wait)")
      ->check(CLI::IsMember({"sharded", "rank0"}))
      ->capture_default_str();
  cmd->add_option("--structxlip-words", c.structxlip_words,
                  "StructXLIP: word list its filtered captions drop (UTF-8, one word or phrase "
                  "per line, # comments); default: the shipped structxlip_words.txt");
  cmd->add_option("--structxlip-structure-weight", c.structxlip_structure_weight,
                  "StructXLIP: weight of the edge map vs filtered caption CLIP term")
      ->capture_default_str();
  cmd->add_option("--structxlip-consistency-weight", c.structxlip_consistency_weight,
                  "StructXLIP: weight of the RGB vs edge-map cosine term")
      ->capture_default_str();
  cmd->add_option("--structxlip-local-weight", c.structxlip_local_weight,
                  "StructXLIP: weight of the edge segments vs caption chunks term (0 = off, for "
                  "data without segments)")
      ->capture_default_str();
  cmd->add_option("--structxlip-chunk-words", c.structxlip_chunk_words,
                  "StructXLIP: words per caption chunk of the local term")
      ->capture_default_str();
  cmd->add_option("--debias-keep", c.debias_keep_ratio,
                  "DeBias-CLIP: share of the non-summary sentences its augmented caption keeps")
      ->capture_default_str();
  cmd->add_option("--debias-pad", c.debias_pad_tokens,
                  "DeBias-CLIP: padding tokens before the augmented caption's sentences; -1 = as "
                  "many as it lost (it ends where the full caption ends)")
      ->capture_default_str();
  cmd->add_option("--epochs", c.epochs, "epochs")->capture_default_str();
  cmd->add_option("--batch", c.batch_size, "batch size (>= 2)")->capture_default_str();
  cmd->add_option("--lr", c.lr, "peak learning rate (AdamW)")->capture_default_str();
  cmd->add_option("--weight-decay", c.weight_decay,
                  "AdamW weight decay (not on gains, biases, embeddings, s)")
      ->capture_default_str();
  cmd->add_option("--warmup", c.warmup_fraction,
                  "fraction of steps of linear warm-up before cosine decay")
      ->capture_default_str();
  cmd->add_option("--grad-clip", c.grad_clip, "clip the global gradient norm (0 = off)")
      ->capture_default_str();
  cmd->add_option("--gbar-snapshots", c.gbar_snapshots,
                  "fixed training batches whose Ḡ is stored per epoch (heatmaps)")
      ->capture_default_str();
  cmd->add_option("--probe-every", c.probe_every,
                  "gradient probe (standard vs boosted loss) every K steps; 0 = off")
      ->capture_default_str();
  cmd->add_option("--seed", c.seed, "seed of data order, subset and initial weights")
      ->capture_default_str();
  add_choice_option(cmd, "--batch-sampler", c.batch_sampler, {"random", "families"},
                    "random batches, or near-twin families kept together in batches (the "
                    "split's groups, else nearest-caption clusters of the starting model)");
  cmd->add_option("--data-fraction", c.data_fraction,
                  "train on this fraction of the split (same subset per seed)")
      ->capture_default_str();
  cmd->add_option_function<std::string>(
         "--device", [&c](const std::string& s) { from_string(s, c.device); },
         "auto | cpu | cuda | cuda:N")
      ->check(std::function<std::string(const std::string&)>(device_word))
      ->default_str(to_string(c.device));
  cmd->add_option(
         "--threads", c.threads,
         "LibTorch intra-op threads (OpenBLAS is held to 1 so the two do not oversubscribe)")
      ->capture_default_str();
  cmd->add_option("--loader-workers", c.loader_workers, "batch loader threads")
      ->capture_default_str();
  cmd->add_option("--init", c.init,
                  "checkpoint to start from: a workbench checkpoint ('pretrained' = the committed "
                  "tiny one; 'random' = from scratch) or a CLIP ViT model file or folder of any "
                  "kind `hnclip inspect` recognises (OpenAI / Long-CLIP / open_clip .pt or .bin, "
                  "safetensors, Hugging Face CLIPModel or open_clip folder). Default for `train`: "
                  "'pretrained' on the built-in benchmark "
                  "without --model, else random");
  cmd->add_option("--vocab", c.vocab,
                  "CLIP BPE vocabulary for an OpenAI / Long-CLIP --init (default: the shipped "
                  "bpe_simple_vocab_16e6.txt.gz)");
  cmd->add_option("--activation", c.init_activation,
                  "quick_gelu | gelu: the MLP activation of an --init file that does not record it "
                  "(OpenAI-layout state dicts assume quick_gelu and say so; open_clip training "
                  "checkpoints need it)");
  cmd->add_flag("--long-clip", c.long_clip,
                "start Long-CLIP from a 77-position CLIP --init: positions stretched to 248, the "
                "first 20 frozen");
  cmd->add_option("--name", c.name, "run name");
  add_choice_option(cmd, "--peft", c.peft, {"none", "lora", "dora"},
                    "parameter-efficient fine-tuning: none (all weights train), lora or dora (only "
                    "adapters train)");
  cmd->add_option("--peft-rank", c.peft_rank, "adapter rank r (--peft lora|dora)")
      ->capture_default_str();
  cmd->add_option("--alpha", c.peft_alpha, "adapter scale α; updates are scaled by α/r")
      ->capture_default_str();
  cmd->add_option("--peft-towers", c.peft_towers, "towers that get adapters: image, text or both")
      ->check(CLI::IsMember({"image", "text", "both"}))
      ->capture_default_str();
  add_choice_option(cmd, "--precision", c.precision, {"auto", "fp32", "bf16"},
                    "auto (bf16 autocast on CUDA, fp32 on CPU), fp32 or bf16 (autocast on CUDA or the CPU)");
}

// The starting checkpoint's recall on the run's test split, {"t2i": {"R@1": …}, "i2t": …} as
// `show` has it, read from the store (a resumed run evaluated it in an earlier process); null when
// the start was not evaluated or cannot be read (a run that failed on a full disk still reports
// its failure, without it). It is the run's first control: a best epoch below it is a
// fine-tuning that lost recall, which the summary must say.
nlohmann::json stored_start_recall(const JobPaths& paths, int64_t run_id,
                                   const std::string& test_split) {
  try {
    return epoch_recall_json(recall_table(RunStore(paths.database), run_id, test_split),
                             kStartEpoch);
  } catch (const std::exception&) {
    return nullptr;
  }
}

// " (above the best epoch in both directions)", " (t2i above the best epoch)", or "".
std::string start_above_best(const nlohmann::json& start, const TrainResult& result) {
  std::vector<std::string> above;
  for (const auto* best : {&result.best_eval.t2i, &result.best_eval.i2t}) {
    if (start.contains(best->direction) &&
        start[best->direction].value("R@1", -1.0) > best->recall_at(1))
      above.push_back(best->direction);
  }
  if (above.empty()) return "";
  if (above.size() == 2) return " (above the best epoch in both directions)";
  return " (" + above[0] + " above the best epoch)";
}

// Runs a job to its end with progress on stderr; returns the exit code and prints the result.
int run_job(TrainingJob& job, const JobPaths& paths, bool json, TrainResult* result_out = nullptr) {
  install_stop_handlers();
  ProgressPrinter printer(std::cerr);
  std::cerr << "run " << job.run_id() << " started" << std::endl;
  const TrainResult result = job.run(stop_flag(), {&printer});
  if (result_out) *result_out = result;
  const bool have_best = result.best_epoch >= 0 && !result.best_eval.t2i.recall.empty();
  const nlohmann::json start = stored_start_recall(paths, job.run_id(), job.config().test_split);
  const double ips = result.train_seconds > 0 ? result.images_seen / result.train_seconds : 0.0;
  if (json) {
    nlohmann::json out{{"run_id", job.run_id()},
                       {"status", result.status},
                       {"best_epoch", result.best_epoch},
                       {"n_test", job.test_images()},
                       {"n_test_captions", job.test_captions()},
                       {"t2i", have_best ? recall_json(result.best_eval.t2i) : nlohmann::json()},
                       {"i2t", have_best ? recall_json(result.best_eval.i2t) : nlohmann::json()},
                       {"train_seconds", result.train_seconds},
                       {"probe_seconds", result.probe_seconds},
                       {"probes", result.probes},
                       {"backward_seconds", result.backward_seconds},
                       {"backward_passes", result.backward_passes},
                       {"loader_wait_seconds", result.loader_wait_seconds},
                       {"images_per_second", ips},
                       {"config", nlohmann::json(job.config())}};
    if (!start.is_null()) out["start"] = start;
    if (!result.message.empty()) out["message"] = result.message;
    std::cout << out.dump() << std::endl;
  } else if (have_best) {
    std::cout << "run " << job.run_id() << " " << result.status << "; best epoch "
              << result.best_epoch << " on " << job.test_images() << " images of split "
              << job.config().test_split << ":\n";
    for (const auto* r : {&result.best_eval.t2i, &result.best_eval.i2t}) {
      std::cout << "  " << r->direction << ":";
      for (const auto& [k, v] : r->recall) std::cout << "  R@" << k << " " << v;
      std::cout << "\n";
    }
    if (!start.is_null()) {
      std::cout << "  start (epoch 0): t2i R@1 " << start["t2i"].value("R@1", 0.0) << ", i2t R@1 "
                << start["i2t"].value("R@1", 0.0) << start_above_best(start, result) << "\n";
    }
    std::cout << "  " << result.train_seconds << " s of training, " << ips << " images/s"
              << std::endl;
  } else {
    std::cout << "run " << job.run_id() << " " << result.status
              << (result.message.empty() ? "" : ": " + result.message) << std::endl;
  }
  if (result.status == "stopped") return kExitStopped;
  if (result.status == "failed") return kExitRuntime;
  return kExitOk;
}

// A rank above 0: no progress lines or result (rank 0 prints those), its own throughput at the end.
int follow_job(TrainingJob& job, int rank) {
  install_stop_handlers();
  std::cerr << "rank " << rank << ": training run " << job.run_id() << std::endl;
  const TrainResult result = job.run(stop_flag(), {});
  const double ips = result.train_seconds > 0 ? result.images_seen / result.train_seconds : 0.0;
  std::cerr << "rank " << rank << ": " << result.status << ", " << result.steps << " steps, "
            << ips << " images/s of the global batch" << std::endl;
  if (result.status == "stopped") return kExitStopped;
  if (result.status == "failed") return kExitRuntime;
  return kExitOk;
}

// Flags that say where the processes meet and where runs are kept, not what a run computes: the
// only ones --resume takes, and the only ones a rank above 0 may be given besides the run's own.
const std::set<std::string> kNotRunFlags = {
    "--resume", "--db",     "--cache-dir",  "--json",         "--world-size",
    "--rank",   "--master", "--local-rank", "--dist-backend", "--dist-timeout"};

// The first run-configuration flag given to `cmd`; "" when none was.
std::string first_run_flag(const CLI::App* cmd) {
  for (const auto* opt : cmd->get_options()) {
    if (opt->count() > 0 && kNotRunFlags.count(opt->get_name()) == 0) return opt->get_name();
  }
  return "";
}

// A new run's configuration from the flags: the built-in benchmark's default --init named (and
// said, where `log` is given), the world size the group's.
TrainConfig new_run_config(TrainConfig config, const CLI::App* cmd,
                           const std::shared_ptr<ProcessGroup>& group, const JobLog* log) {
  if (config.init == kRandomInit) {
    config.init.clear();
  } else if (cmd->count("--init") == 0 && cmd->count("--model") == 0) {
    config.init = default_init_for(config);
    if (!config.init.empty() && log) {
      (*log)("starting from --init " + config.init +
             " (the built-in benchmark's default; --init random trains from scratch)");
    }
  }
  config.world_size = group ? group->world_size() : 1;
  return config;
}

}  // namespace

void add_train_config_options(CLI::App* cmd, TrainConfig& config) {
  add_config_options(cmd, config);
}

CommandAction add_train_command(CLI::App& app) {
  auto o = std::make_shared<TrainOptions>();
  auto* cmd = app.add_subcommand("train", "fine-tune a dual encoder (a new run, or --resume one)");
  take_last_value(cmd);
  add_config_options(cmd, o->config);
  add_common_options(cmd, o->common);
  add_distributed_options(cmd, o->dist);
  cmd->add_option("--resume", o->resume,
                  "continue an interrupted, stopped or failed run (same id) from its last "
                  "checkpoint; a run that failed on a full disk resumes once space exists");
  return [o, cmd]() {
    const auto group = join_rendezvous(o->dist, o->resume == 0 ? &o->config : nullptr);
    const bool follower = group && group->rank() > 0;
    const std::string who = group ? "rank " + std::to_string(group->rank()) + ": " : "";
    const JobLog log = [who](const std::string& m) { std::cerr << who << m << std::endl; };
    std::unique_ptr<TrainingJob> job;
    const std::string run_flag = first_run_flag(cmd);
    if (follower) {
      // The run is rank 0's: its configuration (new or resumed) comes from there, once rank 0 has
      // checked that this rank's own flags, if any, ask for the same run.
      FollowerRequest request;
      request.configured = !run_flag.empty();
      request.config = settled_new_run_config(new_run_config(o->config, cmd, group, nullptr));
      request.resume = o->resume;
      job = TrainingJob::follow(group, o->common.paths(), log, request);
    } else if (o->resume != 0) {
      if (!run_flag.empty()) {
        throw UsageError("--resume continues a run with its stored configuration; " + run_flag +
                         " cannot be changed");
      }
      job = TrainingJob::resume(o->resume, o->common.paths(), log, group);
    } else {
      // Judged on the run as it will start: the built-in benchmark's default --init included.
      if (const std::string inert =
              flag_without_effect(cmd, new_run_config(o->config, cmd, group, nullptr));
          !inert.empty())
        throw UsageError(inert + ": leave it out, or add what it needs (nothing was recorded)");
      job = std::make_unique<TrainingJob>(new_run_config(o->config, cmd, group, &log),
                                          o->common.paths(), log, group);
    }
    if (follower) return follow_job(*job, group->rank());
    return run_job(*job, o->common.paths(), o->common.json);
  };
}

CommandAction add_pretrain_command(CLI::App& app) {
  auto o = std::make_shared<TrainOptions>();
  auto out_path = std::make_shared<std::string>();
  // The pretraining recipe the README gives (round 2 of the built-in benchmark): the broad
  // `pretrain` split, learnable scale from CLIP's 1/0.07, AdamW lr 2e-3, batch 128, 16 epochs.
  auto& c = o->config;
  c.train_split = "pretrain";
  c.lr = 2e-3;
  c.epochs = 16;
  c.batch_size = 128;
  c.loss_gamma = 0;
  c.warmup_fraction = 0.02;
  c.name = "pretrain";
  auto* cmd = app.add_subcommand("pretrain",
                                 "train the tiny model from scratch on the broad synthetic split "
                                 "and save the starting checkpoint");
  take_last_value(cmd);
  add_config_options(cmd, c);
  add_common_options(cmd, o->common);
  cmd->add_option("--out", *out_path,
                  "where to write the pretrained checkpoint (weights + tokenizer)")
      ->required();
  return [o, out_path, cmd]() {
    // Refused before the epochs of training, not after them.
    if (const std::string inert = flag_without_effect(cmd, o->config); !inert.empty())
      throw UsageError(inert + ": leave it out, or add what it needs (nothing was recorded)");
    check_export_destination("--out", *out_path, o->common.paths().database);
    const auto log = [](const std::string& m) { std::cerr << m << std::endl; };
    TrainingJob job(o->config, o->common.paths(), log);
    TrainResult result;
    const int code = run_job(job, o->common.paths(), o->common.json, &result);
    if (code != kExitOk) return code;
    // Export the last epoch's weights without optimiser state: the committed file stays small.
    const auto ckpt_dir =
        std::filesystem::path(run_checkpoint_dir(o->common.paths().database, job.run_id())) /
        ("epoch-" + std::to_string(o->config.epochs) + ".pt");
    auto meta = read_checkpoint_meta(ckpt_dir.string());
    ClipModel model(meta.model);
    load_checkpoint_weights(ckpt_dir.string(), model);
    merge_adapters(model);  // a starting checkpoint is a plain model (no-op without --peft)
    save_checkpoint(*out_path, model, meta);
    std::cerr << "wrote " << *out_path << " (from " << ckpt_dir.string() << ")" << std::endl;
    return kExitOk;
  };
}

}  // namespace hnclip::cli
