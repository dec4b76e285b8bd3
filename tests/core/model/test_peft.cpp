// Tests core/model/peft (LoRA / DoRA adapters on a ClipModel): adapters start as the identity,
// only they receive gradients, merging folds them in exactly, DoRA's magnitude is the per-output
// row norm, checkpoints carry them (also through a stopped and resumed run), and a --peft lora run
// through the Trainer changes nothing but the adapters and the logit scale.

#include "model/peft.h"

#include <gtest/gtest.h>

#include <torch/torch.h>
#include "model/model_state_dict.h"

#include <set>

#include "model/make_clip_model.h"
#include "support/epoch_loss.h"
#include "support/in_memory_data.h"
#include "support/test_dirs.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace hnclip {
namespace {

torch::Tensor test_images() {
  torch::manual_seed(7);
  return torch::randn({3, 3, test::kTinyImage, test::kTinyImage});
}

torch::Tensor test_tokens() {
  return torch::tensor(
      {{18, 3, 9, 19, 0, 0, 0, 0}, {18, 5, 19, 0, 0, 0, 0, 0}, {18, 2, 4, 6, 11, 19, 0, 0}},
      torch::kLong);
}

struct Outputs {
  torch::Tensor image, image_patches, text, text_tokens;
};

Outputs encode(ClipModel& m) {
  torch::NoGradGuard no_grad;
  auto img = m->encode_image(test_images(), TowerOutputs::Tokens);
  auto txt = m->encode_text(test_tokens(), TowerOutputs::Tokens);
  return {img.pooled, img.patches, txt.pooled, txt.tokens};
}

void expect_close(const Outputs& a, const Outputs& b, double rtol, double atol) {
  EXPECT_TRUE(torch::allclose(a.image, b.image, rtol, atol))
      << (a.image - b.image).abs().max().item<double>();
  EXPECT_TRUE(torch::allclose(a.image_patches, b.image_patches, rtol, atol));
  EXPECT_TRUE(torch::allclose(a.text, b.text, rtol, atol))
      << (a.text - b.text).abs().max().item<double>();
  EXPECT_TRUE(torch::allclose(a.text_tokens, b.text_tokens, rtol, atol));
}

std::set<std::string> names(const ClipModel& m) {
  std::set<std::string> out;
  for (const auto& p : m->named_parameters()) out.insert(p.key());
  return out;
}

// Gives every adapter a non-trivial update: random B (and, for DoRA, a perturbed magnitude).
void randomize_adapters(ClipModel& m, uint64_t seed) {
  torch::manual_seed(seed);
  torch::NoGradGuard no_grad;
  for (auto& p : m->named_parameters()) {
    if (p.key().find(".lora_B") != std::string::npos) p.value().normal_(0.0, 0.2);
    if (p.key().find(".magnitude") != std::string::npos)
      p.value().mul_(1.0 + 0.1 * torch::randn_like(p.value()));
  }
}

AdapterSpec spec(AdapterKind kind, int64_t rank = 4, double alpha = 8,
                 const std::string& towers = "both") {
  return AdapterSpec{kind, rank, alpha, towers};
}

TEST(Peft, AdapterParameterCountIsRankTimesInPlusOut) {
  const auto cfg = test::tiny_test_config();  // width 32 in both towers, one block each
  for (const std::string towers : {"both", "image", "text"}) {
    auto m = make_clip_model(cfg, 1);
    const auto base = names(m);
    attach_adapters(m, spec(AdapterKind::Lora, 4, 8, towers), 5);
    int64_t count = 0;
    std::set<std::string> adapter_names;
    for (const auto& p : m->named_parameters()) {
      if (!is_adapter_parameter(p.key())) continue;
      count += p.value().numel();
      adapter_names.insert(p.key());
      EXPECT_EQ(base.count(p.key()), 0u) << p.key();
      const bool image = p.key().rfind("visual.transformer.", 0) == 0;
      const bool text = p.key().rfind("transformer.", 0) == 0;
      EXPECT_TRUE(towers == "both" ? image || text : towers == "image" ? image : text) << p.key();
    }
    // Per block, r·(in+out) for in_proj [3W, W], out_proj [W, W], c_fc [4W, W], c_proj [W, 4W].
    const int64_t w = 32, r = 4;
    const int64_t per_block = r * (w + 3 * w) + r * (w + w) + r * (w + 4 * w) + r * (4 * w + w);
    const int64_t blocks = towers == "both" ? 2 : 1;
    EXPECT_EQ(count, blocks * per_block) << towers;
    EXPECT_EQ(adapter_names.size(), static_cast<size_t>(blocks * 4 * 2)) << towers;
    EXPECT_TRUE(adapter_names.count(
        towers == "text" ? "transformer.resblocks.0.attn.in_proj_adapter.lora_A"
                         : "visual.transformer.resblocks.0.attn.in_proj_adapter.lora_A"));
    // The base parameters are all still there, under their OpenAI names.
    auto after = names(m);
    for (const auto& n : base) EXPECT_EQ(after.count(n), 1u) << n;
  }
  auto d = make_clip_model(cfg, 1);
  attach_adapters(d, spec(AdapterKind::Dora, 2, 4, "image"), 5);
  int64_t count = 0;
  for (const auto& p : d->named_parameters())
    if (is_adapter_parameter(p.key())) count += p.value().numel();
  // DoRA adds one magnitude per output feature: 3W + W + 4W + W.
  EXPECT_EQ(count, 2 * (4 * 32 + 2 * 32 + 5 * 32 + 5 * 32) + 9 * 32);
}

TEST(Peft, AdaptedModelStartsAsTheBaseModel) {
  const auto cfg = test::tiny_test_config();
  auto base = make_clip_model(cfg, 3);
  const auto before = encode(base);
  auto lora = make_clip_model(cfg, 3);
  attach_adapters(lora, spec(AdapterKind::Lora), 11);
  const auto l = encode(lora);
  // B = 0: LoRA adds an exact zero.
  EXPECT_TRUE(torch::equal(l.image, before.image));
  EXPECT_TRUE(torch::equal(l.text, before.text));
  auto dora = make_clip_model(cfg, 3);
  attach_adapters(dora, spec(AdapterKind::Dora), 11);
  // m = ‖W‖, so m/‖W‖ = 1; only the separate bias add differs from the fused linear's rounding.
  expect_close(encode(dora), before, 1e-5, 1e-6);
  // A is random (not zero) so that B learns: the adapter is not a dead zero.
  for (const auto& p : lora->named_parameters()) {
    if (p.key().find(".lora_A") != std::string::npos) {
      EXPECT_GT(p.value().abs().max().item<double>(), 0.0) << p.key();
      EXPECT_LE(p.value().abs().max().item<double>(), 1.0 / std::sqrt(32.0) + 1e-7) << p.key();
    }
    if (p.key().find(".lora_B") != std::string::npos)
      EXPECT_EQ(p.value().abs().max().item<double>(), 0.0);
  }
}

TEST(Peft, DoraMagnitudeIsTheNormOfEachOutputFeature) {
  auto m = make_clip_model(test::tiny_test_config(), 3);
  attach_adapters(m, spec(AdapterKind::Dora, 4, 8, "text"), 1);
  auto attn = m->transformer->resblocks[0]->as<ResidualAttentionBlock>()->attn;
  const auto& w = attn->in_proj_weight;  // [3W, W]: 96 output features of 32 inputs
  ASSERT_EQ(attn->in_proj_adapter->magnitude.sizes(), torch::IntArrayRef({96}));
  EXPECT_TRUE(torch::allclose(attn->in_proj_adapter->magnitude, w.norm(2, {1}), 1e-6, 1e-7));
  // The other axis would be a different vector (and a different length): the axis is checked.
  EXPECT_NE(w.norm(2, {0}).size(0), 96);
}

TEST(Peft, OnlyAdaptersReceiveGradients) {
  for (auto kind : {AdapterKind::Lora, AdapterKind::Dora}) {
    auto m = make_clip_model(test::tiny_test_config(), 3);
    attach_adapters(m, spec(kind), 2);
    randomize_adapters(m, 9);  // with B = 0 the gradient of A would be zero
    auto loss = m->encode_image(test_images()).pooled.pow(2).sum() +
                m->encode_text(test_tokens()).pooled.pow(2).sum();
    loss.backward();
    int adapters = 0;
    for (const auto& p : m->named_parameters()) {
      if (is_adapter_parameter(p.key())) {
        ++adapters;
        EXPECT_TRUE(p.value().requires_grad()) << p.key();
        ASSERT_TRUE(p.value().grad().defined()) << p.key();
        EXPECT_GT(p.value().grad().abs().max().item<double>(), 0.0) << p.key();
      } else {
        EXPECT_FALSE(p.value().requires_grad()) << p.key();
        EXPECT_FALSE(p.value().grad().defined()) << p.key();
      }
    }
    EXPECT_EQ(adapters, kind == AdapterKind::Dora ? 24 : 16);
  }
}

TEST(Peft, PooledOnlyTowersMatchTheWholeTowersWithAdapters) {
  // The last block's pooled-row path projects queries through the adapter's full update and then
  // selects them (model/multihead_self_attention.cpp): same features and adapter gradients.
  for (auto kind : {AdapterKind::Lora, AdapterKind::Dora}) {
    auto m = make_clip_model(test::tiny_test_config(), 3);
    attach_adapters(m, spec(kind), 2);
    randomize_adapters(m, 11);
    auto run = [&](TowerOutputs outputs) {
      m->zero_grad();
      const auto image = m->encode_image(test_images(), outputs).pooled;
      const auto text = m->encode_text(test_tokens(), outputs).pooled;
      (image.pow(2).sum() + text.pow(2).sum()).backward();
      std::vector<torch::Tensor> out{image.detach(), text.detach()};
      for (const auto& p : m->named_parameters()) {
        if (is_adapter_parameter(p.key())) out.push_back(p.value().grad().clone());
      }
      return out;
    };
    const auto pooled = run(TowerOutputs::Pooled), whole = run(TowerOutputs::Tokens);
    ASSERT_EQ(pooled.size(), whole.size());
    for (size_t i = 0; i < pooled.size(); ++i) {
      const double scale = whole[i].abs().max().item<double>();
      EXPECT_GT(scale, 0.0) << i;
      EXPECT_LE((pooled[i] - whole[i]).abs().max().item<double>(), 1e-5 * scale) << i;
    }
  }
}

TEST(Peft, MergingFoldsTheAdaptersInExactly) {
  for (auto kind : {AdapterKind::Lora, AdapterKind::Dora}) {
    auto m = make_clip_model(test::tiny_test_config(), 3);
    const auto openai_names = names(m);
    const auto base_out = encode(m);
    attach_adapters(m, spec(kind, 4, 8), 2);
    randomize_adapters(m, 10);
    const auto adapted = encode(m);
    // The adapters do change the model (else the comparison below would prove nothing).
    EXPECT_FALSE(torch::allclose(adapted.image, base_out.image, 1e-3, 1e-4));
    EXPECT_FALSE(torch::allclose(adapted.text, base_out.text, 1e-3, 1e-4));
    const auto state = merged_state_dict(m);
    EXPECT_TRUE(has_adapters(m)) << "merged_state_dict leaves the model alone";
    EXPECT_TRUE(torch::equal(encode(m).text, adapted.text));
    merge_adapters(m);
    EXPECT_FALSE(has_adapters(m));
    EXPECT_FALSE(adapter_spec(m).has_value());
    EXPECT_EQ(names(m), openai_names);
    for (const auto& p : m->named_parameters()) EXPECT_TRUE(p.value().requires_grad()) << p.key();
    expect_close(encode(m), adapted, 1e-5, 1e-6);
    // The state dict is OpenAI's parameter set, in order, with the merged weights.
    ASSERT_EQ(state.size(), openai_names.size());
    auto params = m->named_parameters();
    size_t i = 0;
    for (const auto& p : params) {
      EXPECT_EQ(state.keys()[i++], p.key());
      EXPECT_TRUE(torch::allclose(state[p.key()], p.value(), 1e-6, 1e-7)) << p.key();
    }
  }
}

TEST(Peft, ExportedStateDictHasTheAdaptersMergedIn) {
  auto m = make_clip_model(test::tiny_test_config(), 3);
  const auto openai = m->named_parameters().keys();
  attach_adapters(m, spec(AdapterKind::Dora, 2, 4, "image"), 2);
  randomize_adapters(m, 6);
  const auto exported = model_state_dict(m);
  EXPECT_TRUE(has_adapters(m)) << "exporting leaves the model adapted";
  merge_adapters(m);
  const auto merged = m->named_parameters();
  ASSERT_EQ(exported.size(), openai.size());
  bool some_weight_moved = false;
  for (size_t i = 0; i < exported.size(); ++i) {
    EXPECT_EQ(exported[i].first, openai[i]);
    EXPECT_TRUE(torch::equal(exported[i].second, merged[openai[i]])) << openai[i];
  }
  auto base = make_clip_model(test::tiny_test_config(), 3);
  for (const auto& [name, t] : exported)
    some_weight_moved = some_weight_moved || !torch::equal(t, base->named_parameters()[name]);
  EXPECT_TRUE(some_weight_moved);
}

TEST(Peft, RemoveRestoresTheBaseWeights) {
  auto m = make_clip_model(test::tiny_test_config(), 3);
  const auto before = encode(m);
  attach_adapters(m, spec(AdapterKind::Lora), 2);
  EXPECT_THROW(attach_adapters(m, spec(AdapterKind::Lora), 2), std::invalid_argument);
  randomize_adapters(m, 4);
  remove_adapters(m);
  EXPECT_FALSE(has_adapters(m));
  const auto after = encode(m);
  EXPECT_TRUE(torch::equal(after.image, before.image));
  EXPECT_TRUE(torch::equal(after.text, before.text));
  EXPECT_THROW(attach_adapters(m, spec(AdapterKind::Lora, 0), 2), std::invalid_argument);
  EXPECT_THROW(attach_adapters(m, spec(AdapterKind::Lora, 4, 8, "audio"), 2),
               std::invalid_argument);
  EXPECT_FALSE(has_adapters(m)) << "a bad spec attaches nothing";
}

TEST(Peft, CheckpointRoundTripRestoresTheAdapters) {
  test::ScratchDir dir;
  const auto cfg = test::tiny_test_config();
  auto a = make_clip_model(cfg, 1);
  attach_adapters(a, spec(AdapterKind::Dora, 3, 6, "both"), 8);
  randomize_adapters(a, 12);
  const auto path = (dir / "adapted.pt").string();
  save_checkpoint(path, a, CheckpointMeta{cfg, nlohmann::json::object(), 1, 5, 0, nullptr});
  const auto meta = read_checkpoint_meta(path);
  EXPECT_EQ(meta.adapters.get<AdapterSpec>(), spec(AdapterKind::Dora, 3, 6, "both"));

  // Into a plain model: the header's adapters are attached, then every value is restored.
  auto b = make_clip_model(cfg, 2);
  load_checkpoint_weights(path, b);
  ASSERT_TRUE(adapter_spec(b).has_value());
  EXPECT_EQ(*adapter_spec(b), spec(AdapterKind::Dora, 3, 6, "both"));
  auto pa = a->named_parameters(), pb = b->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
  const auto oa = encode(a), ob = encode(b);
  EXPECT_TRUE(torch::equal(oa.image, ob.image));
  EXPECT_TRUE(torch::equal(oa.text, ob.text));

  // Into a model with other adapters (rank 2): refused by name, and that model is unchanged.
  auto c = make_clip_model(cfg, 2);
  attach_adapters(c, spec(AdapterKind::Dora, 2, 6, "both"), 8);
  const auto c_before = encode(c);
  try {
    load_checkpoint_weights(path, c);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("in_proj_adapter.lora_A"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(torch::equal(encode(c).text, c_before.text));

  // A plain checkpoint into an adapted model: the adapters are missing keys.
  auto plain = make_clip_model(cfg, 2);
  save_checkpoint((dir / "plain.pt").string(), plain, CheckpointMeta{cfg, {}, 1, 5, 0, nullptr});
  EXPECT_THROW(load_checkpoint_weights((dir / "plain.pt").string(), c), CheckpointError);
  EXPECT_TRUE(read_checkpoint_meta((dir / "plain.pt").string()).adapters.is_null());
}

TEST(Peft, AdapterCheckpointWithoutSpecIsRefusedAndChangesNothing) {
  test::ScratchDir dir;
  const auto cfg = test::tiny_test_config();
  // A hand-made archive: adapter weights, but a header that does not describe them.
  auto a = make_clip_model(cfg, 1);
  attach_adapters(a, spec(AdapterKind::Lora), 8);
  torch::serialize::OutputArchive archive, weights;
  for (const auto& p : a->named_parameters()) weights.write(p.key(), p.value().detach());
  nlohmann::json header{{"format", "hnclip-checkpoint"}, {"version", 1}, {"model", cfg},
                        {"tokenizer", nullptr},          {"epoch", 1},   {"step", 1}};
  archive.write("meta", c10::IValue(header.dump()));
  archive.write("model", weights);
  const auto path = (dir / "nospec.pt").string();
  archive.save_to(path);
  auto b = make_clip_model(cfg, 2);
  try {
    load_checkpoint_weights(path, b);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("adapter spec"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(has_adapters(b));
}

// --- through the trainer ---

TrainConfig peft_config() {
  TrainConfig c;
  c.epochs = 4;
  c.batch_size = 8;
  c.lr = 1e-2;
  c.warmup_fraction = 0.1;
  c.seed = 3;
  c.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCpu};
  c.loss_gamma = 0.5;
  c.peft = hnclip::PeftMethod::kLora;
  c.peft_rank = 4;
  c.peft_alpha = 8;
  return c;
}

struct Collect : TrainObserver {
  std::vector<StepEvent> steps;
  std::vector<CheckpointEvent> checkpoints;
  int stop_after_epoch = 0;
  std::atomic<bool>* stop = nullptr;
  void on_step(const StepEvent& e) override { steps.push_back(e); }
  void on_checkpoint(const CheckpointEvent& e) override {
    checkpoints.push_back(e);
    if (e.epoch == stop_after_epoch) *stop = true;
  }
};

struct Run {
  TrainResult result;
  Collect events;
  ClipModel model{nullptr};
};

Run train(const TrainConfig& cfg, const std::string& ckpt_dir, ClipModel model,
          const TrainStart& start = {}, int stop_after_epoch = 0) {
  static test::InMemoryPairedData train_data(32, 1), test_data(14, 2);
  Run r;
  r.model = model;
  Trainer trainer(
      r.model, cfg, train_data, test_data,
      [](const PairedData& d) { return std::make_unique<test::SyncBatchSource>(d); }, ckpt_dir,
      nlohmann::json{{"kind", "test"}});
  std::atomic<bool> stop{false};
  r.events.stop = &stop;
  r.events.stop_after_epoch = stop_after_epoch;
  trainer.add_observer(&r.events);
  r.result = trainer.run(start, stop);
  return r;
}

using test::mean_loss;

TEST(Peft, TrainerChangesOnlyTheAdapters) {
  test::ScratchDir dir;
  auto start = make_clip_model(test::tiny_test_config(), 42);
  std::map<std::string, torch::Tensor> initial;
  for (const auto& p : start->named_parameters()) initial[p.key()] = p.value().detach().clone();
  auto r = train(peft_config(), dir.path().string(), start);
  ASSERT_EQ(r.result.status, "finished") << r.result.message;
  EXPECT_LT(mean_loss(r.events.steps, 4), mean_loss(r.events.steps, 1));
  ASSERT_TRUE(adapter_spec(r.model).has_value());
  EXPECT_EQ(*adapter_spec(r.model), spec(AdapterKind::Lora, 4, 8, "both"));
  int adapters = 0;
  for (const auto& p : r.model->named_parameters()) {
    if (is_adapter_parameter(p.key())) {
      ++adapters;
      if (p.key().find(".lora_B") != std::string::npos) {
        EXPECT_GT(p.value().abs().max().item<double>(), 0.0) << p.key() << " trained";
      }
    } else if (p.key() == "logit_scale") {
      EXPECT_NE(p.value().item<double>(), initial[p.key()].item<double>())
          << "s is learned (no --fixed-scale)";
    } else {
      EXPECT_TRUE(torch::equal(p.value(), initial.at(p.key()))) << p.key() << " must stay frozen";
    }
  }
  EXPECT_EQ(adapters, 16);
  // The epoch checkpoints carry the adapters and their spec.
  ASSERT_EQ(r.events.checkpoints.size(), 4u);
  const auto meta = read_checkpoint_meta(r.events.checkpoints.back().path);
  EXPECT_EQ(meta.adapters.get<AdapterSpec>(), spec(AdapterKind::Lora, 4, 8, "both"));
  EXPECT_EQ(meta.train_config["peft"], "lora");
}

TEST(Peft, FixedScaleFreezesEverythingButTheAdapters) {
  test::ScratchDir dir;
  auto cfg = peft_config();
  cfg.epochs = 1;
  cfg.fixed_scale = true;
  cfg.peft = hnclip::PeftMethod::kDora;
  cfg.peft_towers = "text";
  auto start = make_clip_model(test::tiny_test_config(), 42);
  std::map<std::string, torch::Tensor> initial;
  for (const auto& p : start->named_parameters()) initial[p.key()] = p.value().detach().clone();
  auto r = train(cfg, dir.path().string(), start);
  ASSERT_EQ(r.result.status, "finished") << r.result.message;
  for (const auto& p : r.model->named_parameters()) {
    if (is_adapter_parameter(p.key())) {
      EXPECT_EQ(p.key().rfind("transformer.", 0), 0u) << p.key();
    } else {
      EXPECT_TRUE(torch::equal(p.value(), initial.at(p.key()))) << p.key();
    }
  }
}

TEST(Peft, ResumedRunKeepsItsAdapters) {
  test::ScratchDir straight, split;
  auto cfg = peft_config();
  cfg.epochs = 3;
  auto full = train(cfg, straight.path().string(), make_clip_model(test::tiny_test_config(), 42));
  ASSERT_EQ(full.result.status, "finished");
  auto first =
      train(cfg, split.path().string(), make_clip_model(test::tiny_test_config(), 42), {}, 1);
  ASSERT_EQ(first.result.status, "stopped");
  const auto ck = first.events.checkpoints.back();
  TrainStart start;
  start.completed_epochs = 1;
  start.completed_steps = ck.step;
  start.checkpoint = ck.path;
  auto second =
      train(cfg, split.path().string(), make_clip_model(test::tiny_test_config(), 42), start);
  ASSERT_EQ(second.result.status, "finished") << second.result.message;
  ASSERT_EQ(second.events.steps.size(), 8u);
  for (size_t i = 0; i < second.events.steps.size(); ++i) {
    EXPECT_EQ(second.events.steps[i].loss, full.events.steps[4 + i].loss) << "step " << 5 + i;
  }
  auto pa = full.model->named_parameters(), pb = second.model->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
}

TEST(Peft, TrainerRefusesAdaptersItWasNotAskedFor) {
  test::InMemoryPairedData data(16, 1), test_data(4, 2);
  auto cfg = peft_config();
  cfg.peft = hnclip::PeftMethod::kNone;
  auto m = make_clip_model(test::tiny_test_config(), 1);
  attach_adapters(m, spec(AdapterKind::Lora), 1);
  auto loader = [](const PairedData& d) { return std::make_unique<test::SyncBatchSource>(d); };
  EXPECT_THROW(Trainer(m, cfg, data, test_data, loader, "", nlohmann::json()), ConfigError);
  cfg.peft = hnclip::PeftMethod::kLora;
  cfg.peft_rank = 2;  // the model has rank 4
  EXPECT_THROW(Trainer(m, cfg, data, test_data, loader, "", nlohmann::json()), ConfigError);
  cfg.peft_rank = 4;
  cfg.peft_alpha = 8;  // the very adapters it has: accepted as they are
  Trainer ok(m, cfg, data, test_data, loader, "", nlohmann::json());
  EXPECT_EQ(adapter_spec(m)->rank, 4);
}

TEST(Peft, ConfigRoundTripsAndNamesTheFlag) {
  TrainConfig c;
  EXPECT_EQ(c.peft, hnclip::PeftMethod::kNone);
  c.peft = hnclip::PeftMethod::kDora;
  c.peft_rank = 16;
  c.peft_alpha = 32;
  c.peft_towers = "image";
  c.precision = hnclip::Precision::kBf16;
  TrainConfig back;
  from_json(nlohmann::json(c), back);
  EXPECT_EQ(back.peft, hnclip::PeftMethod::kDora);
  EXPECT_EQ(back.peft_rank, 16);
  EXPECT_EQ(back.peft_alpha, 32);
  EXPECT_EQ(back.peft_towers, "image");
  EXPECT_EQ(back.precision, hnclip::Precision::kBf16);
  // A run stored before these fields existed reads with the defaults.
  auto old = nlohmann::json(TrainConfig{});
  for (const char* k : {"peft", "peft_rank", "peft_alpha", "peft_towers", "precision"})
    old.erase(k);
  TrainConfig o;
  o.peft = hnclip::PeftMethod::kLora;
  from_json(old, o);
  EXPECT_EQ(o.peft, hnclip::PeftMethod::kLora) << "missing keys keep what was there";
  TrainConfig d;
  from_json(old, d);
  EXPECT_EQ(d.peft, hnclip::PeftMethod::kNone);
  EXPECT_EQ(d.precision, hnclip::Precision::kAuto);
  auto expect_flag = [](TrainConfig bad, const std::string& flag) {
    try {
      bad.validate();
      ADD_FAILURE() << "expected ConfigError for " << flag;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  };
  // An unknown word cannot be held by the enums: it is refused where it is read, naming the flag.
  auto expect_word_refused = [](const char* key, const char* word, const std::string& flag) {
    auto j = nlohmann::json(TrainConfig{});
    j[key] = word;
    try {
      TrainConfig c;
      from_json(j, c);
      ADD_FAILURE() << "expected ConfigError for " << flag;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  };
  TrainConfig bad;
  expect_word_refused("peft", "qlora", "--peft");
  bad = TrainConfig{};
  bad.peft_rank = 0;
  expect_flag(bad, "--peft-rank");
  bad = TrainConfig{};
  bad.peft_alpha = -1;
  expect_flag(bad, "--alpha");
  bad = TrainConfig{};
  bad.peft_towers = "audio";
  expect_flag(bad, "--peft-towers");
  expect_word_refused("precision", "fp16", "--precision");
  auto wrong = nlohmann::json(TrainConfig{});
  wrong["peft_rank"] = "four";
  EXPECT_THROW(from_json(wrong, d), ConfigError);
}

}  // namespace
}  // namespace hnclip
