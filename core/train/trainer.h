#pragma once
// Trainer: the fine-tuning loop — seeded data order, HN-CLIP loss, AdamW with warm-up + cosine,
// evaluation (test split, and a validation split when given) and an atomic checkpoint after every
// epoch, best-epoch selection (on test), clean stop.
// With --peft lora|dora the constructor attaches adapters (model/peft.h): only they, and the logit
// scale unless --fixed-scale, are optimised. On CUDA the encoders run under bf16 autocast
// (--precision auto) with the loss in fp32; on the CPU only with --precision bf16.
// Ownership: holds the model (shared holder) and references to the data, which must outlive it.
// Threading: run() blocks the calling thread (a worker thread in the GUI); `stop` may be set from
// any thread and is honoured between steps. Observers are called on the calling thread.
// Data-parallel (set_process_group, config.world_size > 1): every rank trains its shard of the
// same global batches one process would, the loss is built over the gathered global batch and
// the gradients are summed over the ranks (while the backward runs), so every rank takes the
// one-process step. Evaluation is sharded over the ranks (or rank 0's alone: dist_eval) and
// ranked on rank 0; Ḡ snapshots and checkpoints happen on rank 0 alone (the others wait at a
// barrier), and a stop on any rank stops every rank at the same step.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "model/clip_model.h"
#include "text/structure_word_list.h"
#include "train/batch_source.h"
#include "train/evaluator.h"
#include "train/paired_data.h"
#include "train/pause_gate.h"
#include "train/train_config.h"
#include "train/train_observer.h"
#include "train/train_result.h"

namespace hnclip {

class ProcessGroup;

// Where a run starts: fresh (all zero) or after `completed_epochs` of an earlier attempt whose
// checkpoint (weights + optimiser) is `checkpoint`.
struct TrainStart {
  int completed_epochs = 0;
  int64_t completed_steps = 0;
  double completed_seconds = 0;  // training wall time already spent (step events continue from it)
  std::string checkpoint;
  int best_epoch = -1;
  double best_mean_r1 = -1;
};

class Trainer {
 public:
  Trainer(ClipModel model, TrainConfig config, const PairedData& train, const PairedData& test,
          BatchSourceFactory make_loader, std::string checkpoint_dir, nlohmann::json tokenizer,
          int64_t run_id = 0);
  ~Trainer();

  // The run this trainer's checkpoints belong to, when it was not known at construction: a job
  // builds the trainer (and so runs every check its constructor makes) before it records the run.
  void set_run(int64_t run_id, std::string checkpoint_dir) {
    run_id_ = run_id;
    checkpoint_dir_ = std::move(checkpoint_dir);
  }
  void add_observer(TrainObserver* observer) { observers_.push_back(observer); }
  // The text encoder frozen Ḡ is computed from. Defaults to the model's weights when run() starts
  // (right for a fresh run); a resumed run must pass its true starting point.
  void set_frozen_reference(ClipModel reference) { frozen_reference_ = std::move(reference); }
  // StructXLIP: the words its filtered captions drop (text/structure_word_list.h). Required for
  // --framework structxlip before run(); the job reads the file, so a bad list is refused before
  // the run is recorded.
  void set_structure_words(StructureWordList words) {
    structure_words_ = std::move(words);
    has_structure_words_ = true;
  }
  // Optional: run() waits at this gate before every step; time spent paused is not training time.
  // In a data-parallel run the other ranks wait in a collective meanwhile, which gives up after
  // the group's timeout.
  void set_pause_gate(PauseGate* gate) { pause_gate_ = gate; }
  // This process's place in a data-parallel run of config.world_size ranks, before run(). On
  // CUDA without an explicit index the model moves to cuda:LOCAL_RANK; the group is joined on
  // that device when it has not been. Throws ConfigError when the group's world size is not
  // config.world_size.
  void set_process_group(std::shared_ptr<ProcessGroup> group);
  bool leader() const;  // rank 0, or the only process: the one that evaluates and saves
  // Optional: the split config.val_split names, evaluated right after the test split (epoch 0
  // and after every epoch) and reported as its own EvalEvent. It chooses nothing: the best epoch
  // and the checkpoints' scores stay the test split's. Must outlive the trainer, like `test`.
  // Throws ConfigError when config.val_split is empty.
  void set_validation(const PairedData& val);

  TrainResult run(const TrainStart& start, const std::atomic<bool>& stop);

  c10::Device device() const { return device_; }
  int64_t steps_per_epoch() const;
  // Image indices of the training subset (data_fraction), identical for identical seeds.
  std::vector<int64_t> training_subset() const;
  // The batches of one epoch (1-based), one seeded caption per image, the last incomplete batch
  // dropped. batch_sampler random: a seeded permutation of the subset. families: a seeded
  // permutation of the subset's near-twin families packed into batches (train/family_batches.h).
  // Depends on (seed, epoch) only — and, for families of data without groups, on the starting
  // text encoder, whose clusters run() computes first (before that this throws std::logic_error).
  std::vector<BatchRequest> epoch_batches(int epoch) const;
  // The training split's families (batch_sampler families; empty before they are known).
  const std::vector<std::vector<int64_t>>& families() const { return families_; }
  // This rank's rows of each global batch: [rank·n/W, (rank+1)·n/W) — contiguous, so the gathered
  // features are in the global batch's order. The batches themselves without a process group.
  std::vector<BatchRequest> rank_shard(std::vector<BatchRequest> global) const;

 private:
  // The steps of run(), in the shape of pytorch/examples' train() / test(): set-up, one epoch of
  // training steps, one evaluation, the Ḡ snapshots and the epoch's checkpoint.
  struct State;
  struct StepLoss;
  void set_up(State& st, const TrainStart& start);
  torch::Tensor frozen_text_features();
  // batch_sampler families on data without groups: clusters from the starting text encoder.
  void cluster_families(const torch::Tensor& caption_features);
  // False when the epoch ended the run (stopped, non-finite loss).
  bool train(State& st, int epoch, const std::atomic<bool>& stop);
  bool train_step(State& st, const Batch& batch, int epoch);
  StepLoss step_loss(State& st, const Batch& batch);
  // GOAL: adds its crop, patch and span terms to the step's loss (loss/goal_loss.h).
  void goal_terms(State& st, const Batch& batch, const ImageFeatures& img,
                  const TextFeatures& txt, StepLoss& sl);
  // StructXLIP: its structure, consistency and local terms (loss/structxlip_loss.h).
  void structxlip_terms(State& st, const Batch& batch, StepLoss& sl);
  // A probing step's training backward, with the gradient probe around it (trainer.cpp says how
  // it reuses the backward's own gradients).
  void backward_with_probe(State& st, const StepLoss& loss, int epoch);
  // The global gradient norm before clipping (what the step event reports).
  double clip_gradients(const std::vector<torch::Tensor>& trainable) const;
  // Data-parallel: these rows of every rank, in rank order (gather_with_grad); else `local`.
  torch::Tensor gather(const torch::Tensor& local) const;
  // Data-parallel: sums gradients aligned with st.trainable over the ranks, in place (undefined
  // ones become zeros first), except the logit scale's, which the global loss already gives
  // whole on every rank. No-op in one process.
  void sum_over_ranks(const State& st, std::vector<torch::Tensor>& grads) const;
  // The training backward of `loss`. Data-parallel, its gradients are summed over the ranks while
  // it runs (GradientReducer: every trainable parameter but the logit scale).
  void training_backward(State& st, const torch::Tensor& loss) const;
  // Data-parallel: the other ranks wait while rank 0 evaluates or saves. No-op in one process.
  void wait_for_leader() const;
  // Data-parallel runs evaluate on every rank (dist_eval sharded) or on rank 0 alone (rank0);
  // either way only rank 0 gets the ranking, and only its test() reports it (others get {}).
  std::optional<EvalEvent> evaluate(const Evaluator& evaluator);
  EvalEvent test(State& st, int epoch, int64_t step);
  void validate(State& st, int epoch, int64_t step);  // no-op without set_validation
  void snapshot(State& st, int epoch);
  void save_epoch(State& st, int epoch, const EvalEvent& ev);
  void emit_status(const std::string& status, const std::string& message);
  ClipModel model_;
  ClipModel frozen_reference_{nullptr};
  StructureWordList structure_words_;
  bool has_structure_words_ = false;
  PauseGate* pause_gate_ = nullptr;
  TrainConfig config_;
  const PairedData& train_;
  const PairedData& test_;
  const PairedData* val_ = nullptr;
  std::vector<std::vector<int64_t>> families_;  // batch_sampler families: the split's, all images
  BatchSourceFactory make_loader_;
  std::string checkpoint_dir_;
  nlohmann::json tokenizer_;
  int64_t run_id_;
  c10::Device device_;
  std::vector<TrainObserver*> observers_;
  std::shared_ptr<ProcessGroup> group_;  // null in one process
};

}  // namespace hnclip
