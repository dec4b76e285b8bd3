// End-to-end test of `hnclip train --peft`: a LoRA run on the built-in benchmark (size small)
// finishes, stores its adapter settings with the run (`show`), its checkpoint, adapters included,
// evaluates to the recall the run reported, and `export` writes OpenAI's parameter set with the
// adapters merged in; bad adapter flags fail with one line.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "model/make_clip_model.h"
#include "model/peft.h"
#include "model/state_dict_file.h"
#include "support/cli_runner.h"
#include "support/test_dirs.h"
#include "train/checkpoint.h"

namespace {

using hnclip::test::expect_one_line_error;
using nlohmann::json;

class CliPeft : public ::testing::Test {
 protected:
  hnclip::test::ScratchDir dir;
  std::string common() const {
    return " --db " + (dir / "runs.db").string() + " --cache-dir " + (dir / "cache").string();
  }
  static std::string small_train() {
    return "train --benchmark-size small --epochs 1 --batch 32 --lr 1e-3 --threads 1";
  }
};

TEST_F(CliPeft, LoraRunStoresItsAdaptersAndEvaluates) {
  auto r =
      hnclip::test::run_hnclip(small_train() + " --peft lora --peft-rank 4 --alpha 8 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["config"]["peft"], "lora");
  EXPECT_EQ(j["config"]["peft_rank"], 4);
  EXPECT_EQ(j["config"]["peft_alpha"], 8.0);
  EXPECT_EQ(j["config"]["peft_towers"], "both");
  const std::string id = std::to_string(j["run_id"].get<int>());

  auto show = hnclip::test::run_hnclip("show " + id + " --json" + common());
  ASSERT_EQ(show.code, 0) << show.err;
  auto s = json::parse(show.out);
  EXPECT_EQ(s["config"]["peft"], "lora");
  EXPECT_EQ(s["config"]["peft_rank"], 4);
  auto text = hnclip::test::run_hnclip("show " + id + common());
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("\"peft\":\"lora\""), std::string::npos) << text.out;

  // The stored checkpoint holds the adapters: evaluating it gives the run's own numbers.
  auto ev = hnclip::test::run_hnclip("eval --run " + id + " --json" + common());
  ASSERT_EQ(ev.code, 0) << ev.err;
  auto e = json::parse(ev.out);
  EXPECT_EQ(e["t2i"], j["t2i"]);
  EXPECT_EQ(e["i2t"], j["i2t"]);

  // Export: no adapter names, and each weight is the merged one.
  const auto out = (dir / "merged.pt").string();
  auto ex = hnclip::test::run_hnclip("export --run " + id + " --epoch 1" + common() + " " + out);
  ASSERT_EQ(ex.code, 0) << ex.err;
  const auto exported = hnclip::read_state_dict_file(out);
  const auto ckpt = s["checkpoints"][0]["path"].get<std::string>();
  auto model = hnclip::make_clip_model(hnclip::read_checkpoint_meta(ckpt).model, 0);
  hnclip::load_checkpoint_weights(ckpt, model);
  ASSERT_TRUE(hnclip::has_adapters(model));
  auto adapted_b = model->named_parameters()["transformer.resblocks.0.attn.in_proj_adapter.lora_B"];
  EXPECT_GT(adapted_b.abs().max().item<double>(), 0.0) << "the run trained its adapters";
  hnclip::merge_adapters(model);
  const auto params = model->named_parameters();
  ASSERT_EQ(exported.size(), params.size());
  for (size_t i = 0; i < exported.size(); ++i) {
    EXPECT_EQ(exported[i].first, params.keys()[i]);
    EXPECT_FALSE(hnclip::is_adapter_parameter(exported[i].first)) << exported[i].first;
    EXPECT_TRUE(torch::equal(exported[i].second, params.values()[i])) << exported[i].first;
  }
}

TEST_F(CliPeft, BadAdapterFlagsNameTheFlag) {
  expect_one_line_error(hnclip::test::run_hnclip(small_train() + " --peft qlora" + common()), 2,
                        "--peft");
  expect_one_line_error(
      hnclip::test::run_hnclip(small_train() + " --peft lora --peft-rank 0" + common()), 2, "--peft-rank");
  expect_one_line_error(
      hnclip::test::run_hnclip(small_train() + " --peft dora --alpha -1" + common()), 2, "--alpha");
  expect_one_line_error(hnclip::test::run_hnclip(small_train() + " --peft-towers audio" + common()),
                        2, "--peft-towers");
  expect_one_line_error(hnclip::test::run_hnclip(small_train() + " --precision fp16" + common()), 2,
                        "--precision");
}

}  // namespace
