// Tests core/model/clip_state_dict: OpenAI CLIP / Long-CLIP state dicts made by an independent
// PyTorch implementation (tests/core/reference/tiny_clip_reference.py) load onto ClipModel and
// give the same image/text features and logits; shapes are inferred as OpenAI's build_model
// does (checked on shape-only fakes of every preset); Long-CLIP's position stretch; and every
// misfit is reported by name; the releasing overload loads the same weights.

#include "model/clip_state_dict.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "model/safetensors_file.h"
#include "numeric/non_finite_values.h"
#include "support/error_check.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using nlohmann::json;

constexpr double kRelTol = 1e-5;  // fp32 against fp32: different kernels, same arithmetic

torch::Tensor from_json(const json& j) {
  std::vector<float> flat;
  std::vector<int64_t> shape{static_cast<int64_t>(j.size())};
  if (!j.empty() && j[0].is_array()) shape.push_back(static_cast<int64_t>(j[0].size()));
  for (const auto& row : j) {
    if (row.is_array()) {
      for (const auto& v : row) flat.push_back(v.get<float>());
    } else {
      flat.push_back(row.get<float>());
    }
  }
  return torch::tensor(flat).reshape(shape);
}

torch::Tensor tokens_from_json(const json& j) {
  std::vector<int64_t> flat;
  for (const auto& row : j) {
    for (const auto& v : row) flat.push_back(v.get<int64_t>());
  }
  return torch::tensor(flat).reshape({static_cast<int64_t>(j.size()), -1});
}

// max |a - b| <= tol * max |b|: relative to the output's scale, element-wise.
void expect_close(const torch::Tensor& got, const torch::Tensor& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double err = (got - want).abs().max().item<double>();
  const double scale = want.abs().max().item<double>();
  EXPECT_LE(err, tol * scale) << what << ": max abs error " << err << " at output scale " << scale;
}

torch::Tensor logits(ClipModel& m, const torch::Tensor& images, const torch::Tensor& tokens) {
  auto i = m->encode_image(images).pooled;
  auto t = m->encode_text(tokens).pooled;
  i = i / i.norm(2, {1}, true);
  t = t / t.norm(2, {1}, true);
  return m->logit_scale.exp() * torch::matmul(i, t.t());
}

// The Python reference runs once for the whole suite (importing torch takes a while).
class ReferenceCheckpoints : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::ScratchDir>();
    std::string out, err;
    const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                            "/core/reference/tiny_clip_reference.py " + dir_->path().string();
    script_status_ = test::run_command(cmd, &out, &err);
    script_err_ = err;
    if (script_status_ == 0) ref_ = json::parse(test::read_text_file(*dir_ / "reference.json"));
  }
  static void TearDownTestSuite() { dir_.reset(); }
  void SetUp() override {
    ASSERT_EQ(script_status_, 0) << "reference script failed: " << script_err_;
  }

  static std::string file(const std::string& name) { return (*dir_ / name).string(); }
  static torch::Tensor images() {
    std::vector<int64_t> shape = ref_["image_shape"].get<std::vector<int64_t>>();
    return from_json(ref_["images"]).reshape(shape);
  }

  // Loads `name` and compares the three outputs with the reference's `variant`.
  static ClipModel check_outputs(const std::string& name, const std::string& variant,
                                 const torch::Tensor& tokens) {
    ClipModel m = load_clip_model_file(file(name));
    m->eval();
    torch::NoGradGuard no_grad;
    const auto& want = ref_[variant];
    expect_close(m->encode_image(images()).pooled, from_json(want["image"]), kRelTol,
                 name + " encode_image");
    expect_close(m->encode_text(tokens).pooled, from_json(want["text"]), kRelTol,
                 name + " encode_text");
    expect_close(logits(m, images(), tokens), from_json(want["logits"]), kRelTol, name + " logits");
    return m;
  }

  static std::unique_ptr<test::ScratchDir> dir_;
  static int script_status_;
  static std::string script_err_;
  static json ref_;
};
std::unique_ptr<test::ScratchDir> ReferenceCheckpoints::dir_;
int ReferenceCheckpoints::script_status_ = -1;
std::string ReferenceCheckpoints::script_err_;
json ReferenceCheckpoints::ref_;

TEST_F(ReferenceCheckpoints, TorchSaveStateDictMatchesPyTorch) {
  auto m = check_outputs("clip.pt", "clip", tokens_from_json(ref_["tokens"]));
  const auto& c = m->config();
  EXPECT_EQ(c.vision_width, 128);
  EXPECT_EQ(c.vision_heads, 2);
  EXPECT_EQ(c.vision_layers, 2);
  EXPECT_EQ(c.patch_size, 8);
  EXPECT_EQ(c.image_size, 32);
  EXPECT_EQ(c.embed_dim, 64);
  EXPECT_EQ(c.context_length, 77);
  EXPECT_EQ(c.vocab_size, 1000);
  EXPECT_EQ(c.text_width, 128);
  EXPECT_EQ(c.text_heads, 2);
  EXPECT_EQ(c.text_layers, 2);
  EXPECT_EQ(c.frozen_positions, 0);
  EXPECT_FALSE(m->positional_embedding_res.defined());
}

TEST_F(ReferenceCheckpoints, TorchScriptArchiveMatchesPyTorch) {
  check_outputs("clip_jit.pt", "clip_jit", tokens_from_json(ref_["tokens"]));
}

TEST_F(ReferenceCheckpoints, LongClipStateDictMatchesPyTorch) {
  // The last token row ends at position 201: positions past 77 and past 20 both matter.
  auto m = check_outputs("longclip.pt", "longclip", tokens_from_json(ref_["long_tokens"]));
  EXPECT_EQ(m->config().context_length, 248);
  EXPECT_EQ(m->config().frozen_positions, kLongClipFrozenPositions);
  EXPECT_FALSE(m->positional_embedding.requires_grad());
  EXPECT_TRUE(m->positional_embedding_res.requires_grad());
}

TEST_F(ReferenceCheckpoints, HalfPrecisionWeightsBecomeFloat32) {
  auto m = check_outputs("clip_fp16.pt", "clip_fp16", tokens_from_json(ref_["tokens"]));
  for (const auto& p : m->named_parameters())
    EXPECT_EQ(p.value().scalar_type(), torch::kFloat) << p.key();
}

TEST_F(ReferenceCheckpoints, StretchedToLongClipKeepsShortCaptions) {
  // Long-CLIP starts from CLIP with the first 20 rows unchanged: a caption that ends before
  // position 20 is encoded exactly as by the 77-position model (causal mask).
  ClipModel m = load_clip_model_file(file("clip.pt"), /*stretch_to_long_clip=*/true);
  EXPECT_EQ(m->config().context_length, 248);
  EXPECT_EQ(m->config().frozen_positions, kLongClipFrozenPositions);
  EXPECT_TRUE(torch::equal(m->positional_embedding, m->positional_embedding_res));
  const auto tokens = tokens_from_json(ref_["tokens"]);
  const auto eot = tokens.argmax(-1);
  ASSERT_LT(eot[0].item<int64_t>(), kLongClipFrozenPositions);
  torch::NoGradGuard no_grad;
  auto padded = torch::zeros({1, 248}, torch::kLong);
  padded.slice(1, 0, 77).copy_(tokens.slice(0, 0, 1));
  expect_close(m->encode_text(padded).pooled, from_json(ref_["clip"]["text"]).slice(0, 0, 1),
               kRelTol, "stretched encode_text");
}

// Zero-strided stand-ins with OpenAI's names and shapes: a ViT-L/14 dict costs no memory.
StateDict fake_clip_state_dict(const ClipConfig& c) {
  StateDict sd;
  const auto put = [&](const std::string& name, std::vector<int64_t> shape) {
    sd.emplace_back(name, torch::zeros({}).expand(shape));
  };
  const auto blocks = [&](const std::string& prefix, int64_t layers, int64_t w) {
    for (int64_t i = 0; i < layers; ++i) {
      const auto p = prefix + std::to_string(i) + ".";
      put(p + "attn.in_proj_weight", {3 * w, w});
      put(p + "attn.in_proj_bias", {3 * w});
      put(p + "attn.out_proj.weight", {w, w});
      put(p + "attn.out_proj.bias", {w});
      put(p + "ln_1.weight", {w});
      put(p + "ln_1.bias", {w});
      put(p + "mlp.c_fc.weight", {4 * w, w});
      put(p + "mlp.c_fc.bias", {4 * w});
      put(p + "mlp.c_proj.weight", {w, 4 * w});
      put(p + "mlp.c_proj.bias", {w});
      put(p + "ln_2.weight", {w});
      put(p + "ln_2.bias", {w});
    }
  };
  const int64_t vw = c.vision_width, tw = c.text_width, g = c.image_size / c.patch_size;
  put("visual.class_embedding", {vw});
  put("visual.positional_embedding", {g * g + 1, vw});
  put("visual.proj", {vw, c.embed_dim});
  put("visual.conv1.weight", {vw, 3, c.patch_size, c.patch_size});
  put("visual.ln_pre.weight", {vw});
  put("visual.ln_pre.bias", {vw});
  blocks("visual.transformer.resblocks.", c.vision_layers, vw);
  put("visual.ln_post.weight", {vw});
  put("visual.ln_post.bias", {vw});
  put("positional_embedding", {c.context_length, tw});
  put("text_projection", {tw, c.embed_dim});
  put("logit_scale", {});
  put("token_embedding.weight", {c.vocab_size, tw});
  blocks("transformer.resblocks.", c.text_layers, tw);
  put("ln_final.weight", {tw});
  put("ln_final.bias", {tw});
  return sd;
}

TEST(InferClipConfig, EveryPresetShapeIsRecognised) {
  for (const std::string name : {"ViT-B/32", "ViT-B/16", "ViT-L/14", "ViT-L/14-336"}) {
    const auto want = clip_preset(name, 49408, 77);
    const auto got = infer_clip_config(fake_clip_state_dict(want), name);
    EXPECT_TRUE(got == want) << name << ": " << describe_differences(got, want);
  }
  // OpenAI's published numbers, independent of the presets.
  const auto l336 =
      infer_clip_config(fake_clip_state_dict(clip_preset("ViT-L/14-336", 49408, 77)), "l");
  EXPECT_EQ(l336.image_size, 336);
  EXPECT_EQ(l336.vision_heads, 16);
  EXPECT_EQ(l336.text_heads, 12);
  const auto b32 = infer_clip_config(fake_clip_state_dict(clip_preset("ViT-B/32", 49408, 77)), "b");
  EXPECT_EQ(b32.vision_heads, 12);
  EXPECT_EQ(b32.text_heads, 8);
  EXPECT_EQ(b32.text_width, 512);
}

TEST(InferClipConfig, PositionalEmbeddingResMeansLongClip) {
  auto c = clip_preset("ViT-L/14", 49408, 248);
  auto sd = fake_clip_state_dict(c);
  sd.emplace_back("positional_embedding_res", torch::zeros({1}).expand({248, 768}));
  const auto got = infer_clip_config(sd, "long.pt");
  EXPECT_EQ(got.frozen_positions, kLongClipFrozenPositions);
  EXPECT_EQ(got.context_length, 248);
}

TEST(InferClipConfig, ResNetCheckpointIsRefusedByName) {
  StateDict sd = fake_clip_state_dict(clip_preset("ViT-B/32", 49408, 77));
  StateDict resnet;
  for (auto& [k, v] : sd) {
    if (k.rfind("visual.", 0) != 0) resnet.emplace_back(k, v);
  }
  resnet.emplace_back("visual.layer1.0.conv1.weight", torch::zeros({1}).expand({64, 64, 1, 1}));
  try {
    infer_clip_config(resnet, "RN50.pt");
    FAIL() << "no error";
  } catch (const StateDictError& e) {
    EXPECT_NE(std::string(e.what()).find("RN50.pt"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ResNet CLIP not supported"), std::string::npos)
        << e.what();
  }
}

TEST(InferClipConfig, NotAClipDictNamesTheMissingKey) {
  StateDict sd{{"visual.conv1.weight", torch::zeros({64, 3, 8, 8})}};
  try {
    infer_clip_config(sd, "odd.pt");
    FAIL() << "no error";
  } catch (const StateDictError& e) {
    EXPECT_NE(std::string(e.what()).find("odd.pt"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("visual.positional_embedding"), std::string::npos)
        << e.what();
  }
}

TEST(LongClipStretch, LinearTableStaysLinear) {
  // P[i] = (i, -2i): rows 0..19 are i, row 20 + 4(i-20) + s is i + s/4, and the last four rows
  // continue the same slope: row r >= 20 is 20 + (r - 20)/4 throughout.
  auto i = torch::arange(77, torch::kFloat);
  auto p = torch::stack({i, -2 * i}, 1);
  auto s = long_clip_stretch_positions(p);
  ASSERT_EQ(s.sizes(), (std::vector<int64_t>{248, 2}));
  for (int64_t r = 0; r < 248; ++r) {
    const double want = r < 20 ? r : 20.0 + (r - 20) / 4.0;
    EXPECT_DOUBLE_EQ(s[r][0].item<double>(), want) << "row " << r;
    EXPECT_DOUBLE_EQ(s[r][1].item<double>(), -2 * want) << "row " << r;
  }
}

TEST(LongClipStretch, QuadraticTableHandComputedRows) {
  auto i = torch::arange(77, torch::kFloat);
  auto p = (i * i).unsqueeze(1);
  auto s = long_clip_stretch_positions(p);
  const std::vector<std::pair<int64_t, double>> rows{{0, 0},
                                                     {19, 361},
                                                     {20, 400},
                                                     {21, 0.75 * 400 + 0.25 * 441},
                                                     {22, 420.5},
                                                     {23, 430.75},
                                                     {24, 441},
                                                     {240, 75 * 75},
                                                     {241, 0.75 * 5625 + 0.25 * 5776},
                                                     {243, 0.25 * 5625 + 0.75 * 5776},
                                                     {244, 5776},
                                                     {245, 5776 + 37.75},
                                                     {246, 5776 + 75.5},
                                                     {247, 5776 + 113.25}};
  for (const auto& [r, want] : rows) EXPECT_DOUBLE_EQ(s[r][0].item<double>(), want) << "row " << r;
}

TEST(LongClipStretch, RefusesOtherLengthsAndLongClipDicts) {
  EXPECT_THROW(long_clip_stretch_positions(torch::zeros({76, 4})), c10::Error);
  StateDict sd{{"positional_embedding", torch::zeros({248, 4})}};
  EXPECT_THROW(long_clip_from_clip_state_dict(sd, "x.pt"), StateDictError);
  sd = {{"positional_embedding", torch::zeros({77, 4})},
        {"positional_embedding_res", torch::zeros({77, 4})}};
  EXPECT_THROW(long_clip_from_clip_state_dict(sd, "x.pt"), StateDictError);
}

ClipConfig tiny() { return clip_preset("tiny", 30, 12); }

StateDict dict_of(ClipModel& m) {
  StateDict sd;
  for (const auto& p : m->named_parameters()) sd.emplace_back(p.key(), p.value().detach().clone());
  return sd;
}

TEST(LoadClipStateDict, ListsEveryMisfitAndChangesNothing) {
  torch::manual_seed(1);
  ClipModel source(tiny());
  StateDict sd;
  for (auto& [k, v] : dict_of(source)) {
    if (k == "ln_final.weight" || k == "visual.ln_post.bias") continue;  // missing
    if (k == "text_projection") v = torch::zeros({64, 32});              // mismatch
    if (k == "token_embedding.weight") v = torch::zeros({31, 64});       // mismatch
    sd.emplace_back(k, v);
  }
  sd.emplace_back("visual.attnpool.c_proj.weight", torch::zeros({2}));  // unexpected
  sd.emplace_back("extra_table", torch::zeros({2}));                    // unexpected
  ClipModel target(tiny());
  const auto before = target->visual->proj.clone();
  try {
    load_clip_state_dict(target, sd, "/tmp/some/ViT-X.pt");
    FAIL() << "no error";
  } catch (const StateDictError& e) {
    const std::string msg = e.what();
    for (const std::string needle :
         {"/tmp/some/ViT-X.pt", "missing keys:", "ln_final.weight", "visual.ln_post.bias",
          "unexpected keys:", "visual.attnpool.c_proj.weight", "extra_table",
          "shape mismatches:", "text_projection (file [64, 32], model [64, 64])",
          "token_embedding.weight (file [31, 64]"}) {
      EXPECT_NE(msg.find(needle), std::string::npos) << "'" << needle << "' not in: " << msg;
    }
  }
  EXPECT_TRUE(torch::equal(target->visual->proj, before)) << "a refused file changed the model";
}

void expect_same_parameters(ClipModel& a, ClipModel& b) {
  const auto pa = a->named_parameters(), pb = b->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].key(), pb[i].key());
    EXPECT_TRUE(torch::equal(pa[i].value(), pb[i].value())) << pa[i].key();
  }
}

TEST(LoadClipStateDict, ReleasingOverloadLoadsTheSameWeightsAndEmptiesTheDict) {
  torch::manual_seed(4);
  ClipModel source(tiny());
  // Half of the entries in bf16, so the conversion path is taken by both overloads too.
  StateDict sd = dict_of(source);
  for (size_t i = 0; i < sd.size(); i += 2) sd[i].second = sd[i].second.to(torch::kBFloat16);
  ClipModel by_ref(tiny()), by_move(tiny());
  load_clip_state_dict(by_ref, sd, "ref.pt");
  StateDict moved = sd;
  load_clip_state_dict(by_move, std::move(moved), "moved.pt");
  expect_same_parameters(by_ref, by_move);
  ASSERT_EQ(moved.size(), sd.size());  // the entries stay, their tensors are gone
  for (const auto& [key, t] : moved) EXPECT_FALSE(t.defined()) << key;
  for (const auto& [key, t] : sd) EXPECT_TRUE(t.defined()) << key;  // a copy of the dict is untouched

  // From a safetensors file, whose views are the only references: the same weights again.
  test::ScratchDir dir;
  const auto path = (dir / "w.safetensors").string();
  write_safetensors_file(path, sd);
  ClipModel from_file(tiny());
  load_clip_state_dict(from_file, read_safetensors_file(path), path);
  expect_same_parameters(by_ref, from_file);
}

TEST(LoadClipStateDict, ReleasingOverloadRefusesAMisfitBeforeTouchingModelOrDict) {
  torch::manual_seed(5);
  ClipModel source(tiny());
  StateDict sd;
  for (auto& [k, v] : dict_of(source)) {
    if (k == "ln_final.weight") continue;                        // missing
    if (k == "text_projection") v = torch::zeros({64, 32});      // mismatch
    sd.emplace_back(k, v);
  }
  sd.emplace_back("extra_table", torch::zeros({2}));  // unexpected
  torch::manual_seed(6);  // a and b start equal
  ClipModel a(tiny());
  torch::manual_seed(6);
  ClipModel b(tiny());
  test::expect_error_containing<StateDictError>(
      [&] { load_clip_state_dict(a, std::move(sd), "misfit.safetensors"); },
      {"misfit.safetensors", "missing keys: ln_final.weight", "unexpected keys: extra_table",
       "text_projection (file [64, 32], model [64, 64])"});
  expect_same_parameters(a, b);  // nothing copied
  // std::move only made `sd` an rvalue; the overload takes it by reference and, refusing, kept it.
  for (const auto& [key, t] : sd) EXPECT_TRUE(t.defined()) << key;  // nothing released
}

TEST(LoadClipStateDict, NonFiniteWeightsAreRefusedNamingFileAndTensor) {
  torch::manual_seed(7);
  ClipModel source(tiny());
  StateDict sd = dict_of(source);
  for (auto& [k, v] : sd) {
    if (k == "visual.proj") {
      v = v.clone();
      v[0][3] = -std::numeric_limits<float>::infinity();
    }
  }
  ClipModel target(tiny());
  const auto before = target->visual->proj.clone();
  test::expect_error_containing<NonFiniteError>(
      [&] { load_clip_state_dict(target, sd, "diverged.pt"); },
      {"diverged.pt", "tensor visual.proj holds 0 NaN and 1 infinite", "[0, 3]"});
  EXPECT_TRUE(torch::equal(target->visual->proj, before)) << "a refused file changed the model";
  // The releasing overload (safetensors) refuses the same file.
  test::ScratchDir dir;
  const auto path = (dir / "diverged.safetensors").string();
  write_safetensors_file(path, sd);
  ClipModel from_file(tiny());
  test::expect_error_containing<NonFiniteError>(
      [&] { load_clip_state_dict(from_file, read_safetensors_file(path), path); },
      {"diverged.safetensors", "tensor visual.proj"});
}

TEST(LoadClipStateDict, SkipsOpenAiMetadataAndConvertsHalf) {
  torch::manual_seed(2);
  ClipModel source(tiny());
  StateDict sd;
  for (auto& [k, v] : dict_of(source)) sd.emplace_back(k, v.to(torch::kBFloat16));
  sd.emplace_back("input_resolution", torch::tensor(48));
  sd.emplace_back("context_length", torch::tensor(12));
  sd.emplace_back("vocab_size", torch::tensor(30));
  ClipModel target(tiny());
  load_clip_state_dict(target, sd, "half.pt");
  EXPECT_EQ(target->visual->proj.scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(target->visual->proj,
                           source->visual->proj.to(torch::kBFloat16).to(torch::kFloat)));
}

}  // namespace
}  // namespace hnclip
