// Tests core/train/checkpoint: round trip of weights, optimiser state and header; a GPU run's
// checkpoint (its optimiser state written on the GPU) opens on the CPU; a checkpoint that does not
// fit the model is refused with the offending names and leaves the model untouched.

#include "train/checkpoint.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <functional>
#include <limits>
#include <vector>

#include "model/make_clip_model.h"
#include "model/state_dict_file.h"
#include "model/zip_end_record.h"
#include "numeric/non_finite_values.h"
#include "support/in_memory_data.h"
#include "support/test_dirs.h"
#include "train/trainer.h"

namespace hnclip {
namespace {

TEST(Checkpoint, RoundTripsWeightsAndHeader) {
  test::ScratchDir dir;
  auto cfg = test::tiny_test_config();
  auto a = make_clip_model(cfg, 1);
  CheckpointMeta meta{cfg, nlohmann::json{{"kind", "word"}, {"vocab", {"a", "b"}}},
                      3,   120,
                      7,   nlohmann::json{{"loss_gamma", 0.5}}};
  const auto path = (dir / "sub" / "c.pt").string();
  save_checkpoint(path, a, meta);
  EXPECT_TRUE(std::filesystem::exists(path));
  auto m = read_checkpoint_meta(path);
  EXPECT_TRUE(m.model == cfg);
  EXPECT_EQ(m.tokenizer, meta.tokenizer);
  EXPECT_EQ(m.epoch, 3);
  EXPECT_EQ(m.step, 120);
  EXPECT_EQ(m.run_id, 7);
  EXPECT_EQ(m.train_config["loss_gamma"], 0.5);
  auto b = make_clip_model(cfg, 2);
  load_checkpoint_weights(path, b);
  auto pa = a->named_parameters(), pb = b->named_parameters();
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
}

TEST(Checkpoint, OptimizerStateRoundTrips) {
  test::ScratchDir dir;
  auto cfg = test::tiny_test_config();
  auto model = make_clip_model(cfg, 1);
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3));
  auto loss =
      model->encode_text(torch::tensor({{18, 3, 19, 0, 0, 0, 0, 0}}, torch::kLong)).pooled.sum();
  loss.backward();
  opt.step();
  save_checkpoint((dir / "c.pt").string(), model, {cfg, {}, 1, 1, 0, {}}, &opt);
  auto model2 = make_clip_model(cfg, 1);
  torch::optim::AdamW opt2(model2->parameters(), torch::optim::AdamWOptions(1e-3));
  load_checkpoint_weights((dir / "c.pt").string(), model2, &opt2);
  // Same state: the next step from the same gradient gives the same weights.
  for (auto* m : {&model, &model2}) {
    (*m)->zero_grad();
    (*m)->encode_text(torch::tensor({{18, 3, 19, 0, 0, 0, 0, 0}}, torch::kLong))
        .pooled.sum()
        .backward();
  }
  opt.step();
  opt2.step();
  auto p1 = model->named_parameters(), p2 = model2->named_parameters();
  for (const auto& p : p1) EXPECT_TRUE(torch::equal(p.value(), p2[p.key()])) << p.key();
}

// A GPU run's checkpoint holds its optimiser state as it lived, on the GPU. Made here by
// relocating a CPU checkpoint's tensors to 'cuda:0' (tests/core/reference/gpu_checkpoint.py; a
// reader that restores tensors where they were written fails on it without a GPU, as
// python3-torch's torch.jit.load does): it opens on the CPU, weights and optimiser state, and the
// next step is the one the saved run would take.
TEST(Checkpoint, AGpuRunsCheckpointOpensOnTheCpuWithItsOptimiserState) {
  test::ScratchDir dir;
  auto cfg = test::tiny_test_config();
  auto model = make_clip_model(cfg, 1);
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3));
  auto step = [](ClipModel& m, torch::optim::AdamW& o) {
    o.zero_grad();
    m->encode_text(torch::tensor({{18, 3, 19, 0, 0, 0, 0, 0}}, torch::kLong)).pooled.sum().backward();
    o.step();
  };
  step(model, opt);
  const auto saved = (dir / "cpu.pt").string(), gpu = (dir / "gpu.pt").string();
  save_checkpoint(saved, model, {cfg, {}, 1, 1, 0, {}}, &opt);
  std::string out, err;
  ASSERT_EQ(test::run_command(std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                                  "/core/reference/gpu_checkpoint.py " + saved + " " + gpu,
                              &out, &err),
            0)
      << out << err;
  ASSERT_NE(out.find("relocated 1"), std::string::npos) << out;

  EXPECT_EQ(read_checkpoint_meta(gpu).epoch, 1);
  auto model2 = make_clip_model(cfg, 2);
  torch::optim::AdamW opt2(model2->parameters(), torch::optim::AdamWOptions(1e-3));
  ASSERT_NO_THROW(load_checkpoint_weights(gpu, model2, &opt2));
  ASSERT_EQ(opt2.state().size(), opt.state().size());
  for (const auto& entry : opt2.state()) {
    const auto& s = static_cast<const torch::optim::AdamWParamState&>(*entry.second);
    EXPECT_TRUE(s.exp_avg().device().is_cpu());
    EXPECT_TRUE(s.exp_avg_sq().device().is_cpu());
  }
  step(model, opt);
  step(model2, opt2);
  auto p1 = model->named_parameters(), p2 = model2->named_parameters();
  for (const auto& p : p1) EXPECT_TRUE(torch::equal(p.value(), p2[p.key()])) << p.key();
}

TEST(Checkpoint, MismatchNamesTheKeysAndChangesNothing) {
  test::ScratchDir dir;
  auto cfg = test::tiny_test_config();
  auto other = cfg;
  other.text_width = 48;
  other.text_heads = 3;
  other.text_layers = 2;
  auto other_model = make_clip_model(other, 1);
  save_checkpoint((dir / "other.pt").string(), other_model, {other, {}, 0, 0, 0, {}});
  auto model = make_clip_model(cfg, 5);
  auto before = model->named_parameters()["ln_final.weight"].clone();
  try {
    load_checkpoint_weights((dir / "other.pt").string(), model);
    FAIL() << "expected CheckpointError";
  } catch (const CheckpointError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("other.pt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("shape mismatches: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("positional_embedding (checkpoint [8, 48], model [8, 32])"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("unexpected keys: transformer.resblocks.1."), std::string::npos) << msg;
  }
  EXPECT_TRUE(torch::equal(before, model->named_parameters()["ln_final.weight"]));
}

TEST(Checkpoint, NonFiniteWeightsAreRefusedByTensorAndChangeNothing) {
  test::ScratchDir dir;
  const auto cfg = test::tiny_test_config();
  auto broken = make_clip_model(cfg, 2);
  {
    torch::NoGradGuard no_grad;
    broken->named_parameters()["text_projection"][1][2] = std::numeric_limits<float>::quiet_NaN();
  }
  save_checkpoint((dir / "nan.pt").string(), broken, {cfg, {}, 3, 30, 7, {}});
  auto model = make_clip_model(cfg, 5);
  const auto before = model->named_parameters()["ln_final.weight"].clone();
  try {
    load_checkpoint_weights((dir / "nan.pt").string(), model);
    FAIL() << "loaded NaN weights";
  } catch (const NonFiniteError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("nan.pt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("tensor text_projection holds 1 NaN"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[1, 2]"), std::string::npos) << msg;
  }
  EXPECT_TRUE(torch::equal(before, model->named_parameters()["ln_final.weight"]));
}

TEST(Checkpoint, UnreadableFilesAreNamed) {
  test::ScratchDir dir;
  test::write_text_file(dir / "junk.pt", "not a checkpoint");
  auto model = make_clip_model(test::tiny_test_config(), 1);
  try {
    read_checkpoint_meta((dir / "junk.pt").string());
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("junk.pt"), std::string::npos);
  }
  EXPECT_THROW(load_checkpoint_weights((dir / "missing.pt").string(), model), CheckpointError);
}

// A checkpoint cut short (a copy or download interrupted, a disk that filled up) keeps the zip
// start and loses the end: it was refused as "not a PyTorch archive (PytorchStreamReader failed
// reading zip archive: failed finding central directory)".
TEST(Checkpoint, ACheckpointCutShortIsSaidToBe) {
  test::ScratchDir dir;
  auto model = make_clip_model(test::tiny_test_config(), 1);
  CheckpointMeta meta;
  meta.model = test::tiny_test_config();
  meta.tokenizer = nlohmann::json{{"kind", "word"}, {"vocab", {"a", "b"}}};
  const std::string whole = (dir / "whole.pt").string();
  save_checkpoint(whole, model, meta);
  EXPECT_TRUE(has_zip_end_record(whole));
  const std::string bytes = test::read_text_file(whole);
  const std::string cut = (dir / "cut.pt").string();
  test::write_text_file(cut, bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(has_zip_end_record(cut));
  for (const auto& read : std::vector<std::function<void()>>{[&] { is_workbench_checkpoint(cut); },
                                                             [&] { read_checkpoint_meta(cut); }}) {
    try {
      read();
      ADD_FAILURE() << "no error";
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(cut), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("the file is cut short"), std::string::npos) << e.what();
    }
  }
  // Not a zip at all, or nothing readable: no end record either.
  test::write_text_file(dir / "tiny.pt", "PK");
  EXPECT_FALSE(has_zip_end_record((dir / "tiny.pt").string()));
  EXPECT_FALSE(has_zip_end_record((dir / "absent.pt").string()));
}

TEST(Checkpoint, LongClipModelRoundTripsWithItsSecondTable) {
  test::ScratchDir dir;
  auto cfg = test::tiny_test_config();
  cfg.frozen_positions = 3;
  auto a = make_clip_model(cfg, 1);
  {
    torch::NoGradGuard no_grad;
    a->positional_embedding_res.normal_();
  }
  const auto path = (dir / "long.pt").string();
  save_checkpoint(path, a, {cfg, {}, 0, 0, 0, {}});
  const auto meta = read_checkpoint_meta(path);
  EXPECT_EQ(meta.model.frozen_positions, 3);
  auto b = make_clip_model(meta.model, 2);
  load_checkpoint_weights(path, b);
  EXPECT_TRUE(torch::equal(a->positional_embedding_res, b->positional_embedding_res));
  EXPECT_TRUE(torch::equal(a->positional_embedding, b->positional_embedding));
  EXPECT_FALSE(b->positional_embedding.requires_grad());  // frozen again after loading
}

TEST(Checkpoint, WorkbenchCheckpointsAreToldFromStateDicts) {
  test::ScratchDir dir;
  auto cfg = test::tiny_test_config();
  auto model = make_clip_model(cfg, 1);
  save_checkpoint((dir / "ours.pt").string(), model, {cfg, {}, 0, 0, 0, {}});
  EXPECT_TRUE(is_workbench_checkpoint((dir / "ours.pt").string()));
  StateDict sd;
  for (const auto& p : model->named_parameters()) sd.emplace_back(p.key(), p.value().detach());
  write_state_dict_file((dir / "openai.pt").string(), sd);
  EXPECT_FALSE(is_workbench_checkpoint((dir / "openai.pt").string()));
  test::write_text_file(dir / "junk.pt", "not a checkpoint");
  EXPECT_THROW(is_workbench_checkpoint((dir / "junk.pt").string()), CheckpointError);
  EXPECT_THROW(is_workbench_checkpoint((dir / "missing.pt").string()), CheckpointError);
}

}  // namespace
}  // namespace hnclip
