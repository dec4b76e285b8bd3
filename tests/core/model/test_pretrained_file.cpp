// Tests core/model/pretrained_file (and through it hf_clip_layout, open_clip_layout and
// hf_clip_folder) against files real PyTorch writes from an independent name mapping
// (tests/core/reference/pretrained_layouts.py): a Hugging Face CLIPModel folder, open_clip hub
// folders with and without quick_gelu, an open_clip training checkpoint, and models the workbench
// cannot represent. Every read must give back the original OpenAI-named tensors exactly, with the
// architecture (heads, activation) the config says; every refusal names the file and the key.

#include "model/pretrained_file.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "model/hf_clip_folder.h"
#include "model/make_clip_model.h"
#include "model/model_state_dict.h"
#include "model/safetensors_file.h"
#include "support/test_dirs.h"
#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;

const std::string kPretrainedScript =
    std::string(HNCLIP_TEST_SOURCE_DIR) + "/core/reference/pretrained_layouts.py";

// Heads that OpenAI's width / 64 rule would not give (width 64 -> 1): only a config can say them.
ClipConfig tiny_shape() {
  ClipConfig c;
  c.image_size = 32; c.patch_size = 8; c.vision_width = 64; c.vision_layers = 2; c.vision_heads = 2;
  c.context_length = 16; c.vocab_size = 300; c.text_width = 64; c.text_layers = 2; c.text_heads = 4;
  c.embed_dim = 32;
  return c;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

class PretrainedFile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::ScratchDir>();
    auto model = make_clip_model(tiny_shape(), 7);
    original_ = new StateDict(model_state_dict(model));
    write_state_dict_file((dir_->path() / "clip.pt").string(), *original_);
    std::string out, err;
    const int code = test::run_command(std::string(HNCLIP_REFERENCE_PYTHON) + " " + kPretrainedScript + " " +
                                           (dir_->path() / "clip.pt").string() + " " +
                                           dir_->path().string() + " 4 2",
                                       &out, &err);
    ASSERT_EQ(code, 0) << err;
  }
  static void TearDownTestSuite() {
    delete original_;
    dir_.reset();
  }
  static std::string at(const std::string& name) { return (dir_->path() / name).string(); }

  static void expect_original_weights(const StateDict& got) {
    std::map<std::string, torch::Tensor> by_name;
    for (const auto& [k, v] : got) by_name[k] = v;
    ASSERT_EQ(by_name.size(), original_->size());
    for (const auto& [k, v] : *original_) {
      ASSERT_TRUE(by_name.count(k)) << k;
      EXPECT_EQ(by_name[k].sizes(), v.sizes()) << k;
      EXPECT_TRUE(by_name[k].to(torch::kFloat).equal(v)) << k;
    }
  }

  static inline std::unique_ptr<test::ScratchDir> dir_;
  static inline StateDict* original_ = nullptr;
};

TEST_F(PretrainedFile, HuggingFaceFolderMapsBackToOpenAiNamesExactly) {
  const auto f = read_pretrained_file(at("hf"), "", "--init");
  EXPECT_EQ(f.format, PretrainedFormat::HuggingFaceClip);
  EXPECT_EQ(f.shape, tiny_shape()) << describe_differences(f.shape, tiny_shape());
  EXPECT_EQ(f.shape.activation, MlpActivation::QuickGelu);
  EXPECT_NE(f.activation_from.find("hidden_act"), std::string::npos);
  // The reference config leaves out vision_config.num_channels, as many hub files do.
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("vision_config.num_channels absent: transformers' default 3"),
            std::string::npos) << f.notes[0];
  expect_original_weights(f.weights);
  // The weight file named alone, with its config.json beside it, is the same model.
  const auto by_file = read_pretrained_file(at("hf/pytorch_model.bin"), "", "--init");
  EXPECT_EQ(by_file.format, PretrainedFormat::HuggingFaceClip);
  EXPECT_EQ(by_file.shape, tiny_shape());
}

TEST_F(PretrainedFile, HuggingFaceHiddenActGeluIsExactGelu) {
  const auto f = read_pretrained_file(at("hf_gelu"), "", "--init");
  EXPECT_EQ(f.shape.activation, MlpActivation::Gelu);
  const auto msg = error_of([&] { read_pretrained_file(at("hf_gelu"), "quick_gelu", "--init"); });
  EXPECT_NE(msg.find("--activation quick_gelu contradicts"), std::string::npos) << msg;
}

TEST_F(PretrainedFile, OpenClipHubFolderTakesItsActivationFromTheConfig) {
  const auto laion = read_pretrained_file(at("open_clip"), "", "--init");
  EXPECT_EQ(laion.format, PretrainedFormat::OpenClipHub);
  EXPECT_EQ(laion.shape.activation, MlpActivation::Gelu);  // open_clip's default: no quick_gelu key
  ClipConfig want = tiny_shape();
  want.activation = MlpActivation::Gelu;
  EXPECT_EQ(laion.shape, want) << describe_differences(laion.shape, want);
  expect_original_weights(laion.weights);
  const auto openai = read_pretrained_file(at("open_clip_quick/open_clip_pytorch_model.bin"), "", "--init");
  EXPECT_EQ(openai.shape.activation, MlpActivation::QuickGelu);
}

TEST_F(PretrainedFile, OpenClipWeightFileWithoutItsConfigNeedsActivation) {
  fs::create_directories(at("lone"));
  fs::copy_file(at("open_clip/open_clip_pytorch_model.bin"), at("lone/open_clip_pytorch_model.bin"),
                fs::copy_options::overwrite_existing);
  const auto msg =
      error_of([&] { read_pretrained_file(at("lone/open_clip_pytorch_model.bin"), "", "--init"); });
  EXPECT_NE(msg.find("--activation"), std::string::npos) << msg;
  EXPECT_NE(msg.find("open_clip_config.json"), std::string::npos) << msg;
  EXPECT_EQ(read_pretrained_file(at("lone/open_clip_pytorch_model.bin"), "gelu", "--init").shape.activation,
            MlpActivation::Gelu);
}

TEST_F(PretrainedFile, TrainingCheckpointIsRefusedWithoutActivationAndStrippedWithIt) {
  const auto msg = error_of([&] { read_pretrained_file(at("train_ckpt.pt"), "", "--init"); });
  EXPECT_NE(msg.find("train_ckpt.pt"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--activation"), std::string::npos) << msg;
  const auto f = read_pretrained_file(at("train_ckpt.pt"), "gelu", "--init");
  EXPECT_EQ(f.format, PretrainedFormat::TrainingCheckpoint);
  EXPECT_EQ(f.shape.activation, MlpActivation::Gelu);
  EXPECT_EQ(f.activation_from, "--activation");
  expect_original_weights(f.weights);  // "module." stripped
  const auto described = inspect_pretrained_file(at("train_ckpt.pt"), "", "inspect");
  EXPECT_FALSE(described.activation_known);
}

TEST_F(PretrainedFile, BareStateDictAssumesQuickGeluAndSaysSo) {
  const auto f = read_pretrained_file(at("clip.pt"), "", "--init");
  EXPECT_EQ(f.format, PretrainedFormat::StateDict);
  EXPECT_EQ(f.shape.activation, MlpActivation::QuickGelu);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("QuickGELU assumed"), std::string::npos) << f.notes[0];
  EXPECT_NE(f.notes[0].find("--activation gelu"), std::string::npos) << f.notes[0];
  EXPECT_EQ(read_pretrained_file(at("clip.pt"), "gelu", "--init").shape.activation, MlpActivation::Gelu);
}

TEST_F(PretrainedFile, SafetensorsFilesAreRecognisedByContent) {
  // Named .bin on purpose: the content decides.
  write_safetensors_file(at("clip_st.bin"), *original_);
  const auto plain = read_pretrained_file(at("clip_st.bin"), "", "--init");
  EXPECT_EQ(plain.format, PretrainedFormat::Safetensors);
  EXPECT_EQ(plain.shape.activation, MlpActivation::QuickGelu);
  EXPECT_EQ(plain.notes.size(), 1u);  // QuickGELU assumed, said
  expect_original_weights(plain.weights);

  // The workbench's own export records its model config: heads and activation come back.
  ClipConfig declared = tiny_shape();
  declared.activation = MlpActivation::Gelu;
  write_safetensors_file(at("export.safetensors"), *original_,
                         {{"format", "pt"}, {"hnclip.model", nlohmann::json(declared).dump()}});
  const auto ours = read_pretrained_file(at("export.safetensors"), "", "--init");
  EXPECT_EQ(ours.shape, declared) << describe_differences(ours.shape, declared);
  EXPECT_TRUE(ours.notes.empty());
  declared.text_layers = 5;  // metadata that contradicts the tensors
  write_safetensors_file(at("lying.safetensors"), *original_,
                         {{"hnclip.model", nlohmann::json(declared).dump()}});
  const auto msg = error_of([&] { read_pretrained_file(at("lying.safetensors"), "", "--init"); });
  EXPECT_NE(msg.find("contradicts the weights: text_layers 5 vs 2"), std::string::npos) << msg;

  // An open_clip hub folder with open_clip_model.safetensors.
  fs::create_directories(at("oc_st"));
  fs::copy_file(at("open_clip_quick/open_clip_config.json"), at("oc_st/open_clip_config.json"),
                fs::copy_options::overwrite_existing);
  write_safetensors_file(at("oc_st/open_clip_model.safetensors"), *original_);
  const auto hub = read_pretrained_file(at("oc_st"), "", "--init");
  EXPECT_EQ(hub.format, PretrainedFormat::OpenClipHub);
  EXPECT_EQ(hub.shape.activation, MlpActivation::QuickGelu);
  expect_original_weights(hub.weights);
}

TEST_F(PretrainedFile, ModelsTheWorkbenchCannotRepresentAreRefusedByName) {
  auto msg = error_of([&] { read_pretrained_file(at("siglip.pt"), "", "--init"); });
  EXPECT_NE(msg.find("logit_bias"), std::string::npos) << msg;
  EXPECT_NE(msg.find("SigLIP"), std::string::npos) << msg;
  msg = error_of([&] { read_pretrained_file(at("layer_scale.pt"), "", "--init"); });
  EXPECT_NE(msg.find("ls_1"), std::string::npos) << msg;
  msg = error_of([&] { read_pretrained_file(dir_->path().string(), "", "--init"); });
  EXPECT_NE(msg.find("neither config.json"), std::string::npos) << msg;
}

TEST_F(PretrainedFile, HuggingFaceConfigThatContradictsTheWeightsIsRefused) {
  fs::create_directories(at("hf_bad"));
  fs::copy_file(at("hf/pytorch_model.bin"), at("hf_bad/pytorch_model.bin"), fs::copy_options::overwrite_existing);
  auto config = nlohmann::json::parse(test::read_text_file(at("hf/config.json")));
  config["vision_config"]["num_hidden_layers"] = 3;
  test::write_text_file(at("hf_bad/config.json"), config.dump());
  auto msg = error_of([&] { read_pretrained_file(at("hf_bad"), "", "--init"); });
  EXPECT_NE(msg.find("contradicts the weights"), std::string::npos) << msg;
  EXPECT_NE(msg.find("vision_layers 3 vs 2"), std::string::npos) << msg;

  config = nlohmann::json::parse(test::read_text_file(at("hf/config.json")));
  config.erase("text_config");
  test::write_text_file(at("hf_bad/config.json"), config.dump());
  msg = error_of([&] { read_pretrained_file(at("hf_bad"), "", "--init"); });
  EXPECT_NE(msg.find("text_config"), std::string::npos) << msg;
  EXPECT_NE(msg.find("hf_bad/config.json"), std::string::npos) << msg;

  // HF weights without the config they came with cannot be given an architecture.
  fs::create_directories(at("hf_alone"));
  fs::copy_file(at("hf/pytorch_model.bin"), at("hf_alone/pytorch_model.bin"), fs::copy_options::overwrite_existing);
  msg = error_of([&] { read_pretrained_file(at("hf_alone/pytorch_model.bin"), "", "--init"); });
  EXPECT_NE(msg.find("config.json"), std::string::npos) << msg;
}

TEST_F(PretrainedFile, BrokenFilesOfEachKindAreRefusedNamingTheFileAndKey) {
  // A truncated weight file in a Hugging Face folder.
  fs::create_directories(at("hf_cut"));
  fs::copy_file(at("hf/config.json"), at("hf_cut/config.json"), fs::copy_options::overwrite_existing);
  const auto bin = test::read_text_file(at("hf/pytorch_model.bin"));
  test::write_text_file(at("hf_cut/pytorch_model.bin"), bin.substr(0, bin.size() / 2));
  auto msg = error_of([&] { read_pretrained_file(at("hf_cut"), "", "--init"); });
  EXPECT_NE(msg.find("hf_cut/pytorch_model.bin"), std::string::npos) << msg;

  // A config.json that is not JSON.
  test::write_text_file(at("hf_cut/config.json"), "{\"text_config\": ");
  msg = error_of([&] { read_pretrained_file(at("hf_cut"), "", "--init"); });
  EXPECT_NE(msg.find("hf_cut/config.json: not JSON"), std::string::npos) << msg;

  // open_clip: a config that contradicts the weights, and one naming a tower ClipModel lacks.
  fs::create_directories(at("oc_bad"));
  fs::copy_file(at("open_clip/open_clip_pytorch_model.bin"), at("oc_bad/open_clip_pytorch_model.bin"),
                fs::copy_options::overwrite_existing);
  auto config = nlohmann::json::parse(test::read_text_file(at("open_clip/open_clip_config.json")));
  config["model_cfg"]["text_cfg"]["width"] = 128;
  test::write_text_file(at("oc_bad/open_clip_config.json"), config.dump());
  msg = error_of([&] { read_pretrained_file(at("oc_bad"), "", "--init"); });
  EXPECT_NE(msg.find("open_clip_config.json contradicts the weights"), std::string::npos) << msg;
  EXPECT_NE(msg.find("text_width 128 vs 64"), std::string::npos) << msg;
  config = nlohmann::json::parse(test::read_text_file(at("open_clip/open_clip_config.json")));
  config["model_cfg"]["vision_cfg"]["timm_model_name"] = "vit_base_patch16_224";
  test::write_text_file(at("oc_bad/open_clip_config.json"), config.dump());
  msg = error_of([&] { read_pretrained_file(at("oc_bad"), "", "--init"); });
  EXPECT_NE(msg.find("model_cfg.vision_cfg.timm_model_name"), std::string::npos) << msg;
  // Another image normalisation (SigLIP-style 0.5s) would give wrong features with no error.
  config = nlohmann::json::parse(test::read_text_file(at("open_clip/open_clip_config.json")));
  config["preprocess_cfg"]["mean"] = {0.5, 0.5, 0.5};
  test::write_text_file(at("oc_bad/open_clip_config.json"), config.dump());
  msg = error_of([&] { read_pretrained_file(at("oc_bad"), "", "--init"); });
  EXPECT_NE(msg.find("preprocess_cfg.mean"), std::string::npos) << msg;
  test::write_text_file(at("hf_norm_pre.json"), R"({"image_mean": [0.5, 0.5, 0.5]})");
  fs::create_directories(at("hf_norm"));
  for (const char* f : {"config.json", "pytorch_model.bin"}) {
    fs::copy_file(at(std::string("hf/") + f), at(std::string("hf_norm/") + f), fs::copy_options::overwrite_existing);
  }
  fs::copy_file(at("hf_norm_pre.json"), at("hf_norm/preprocessor_config.json"), fs::copy_options::overwrite_existing);
  msg = error_of([&] { read_pretrained_file(at("hf_norm"), "", "--init"); });
  EXPECT_NE(msg.find("preprocessor_config.json: key image_mean"), std::string::npos) << msg;
  config = nlohmann::json::parse(test::read_text_file(at("open_clip/open_clip_config.json")));
  config["model_cfg"]["text_cfg"]["pool_type"] = "last";
  test::write_text_file(at("oc_bad/open_clip_config.json"), config.dump());
  msg = error_of([&] { read_pretrained_file(at("oc_bad"), "", "--init"); });
  EXPECT_NE(msg.find("another text pooling"), std::string::npos) << msg;
}

TEST_F(PretrainedFile, WorkbenchToHuggingFaceToWorkbenchIsExact) {
  ClipConfig shape = tiny_shape();
  shape.activation = MlpActivation::Gelu;
  const auto tokenizer = WordTokenizer::build({"a red cube", "a blue ball left of a cube"}, shape.context_length);
  shape.vocab_size = tokenizer.vocab_size();
  auto sized = make_clip_model(shape, 11);
  const auto sized_weights = model_state_dict(sized);
  write_hf_clip_folder(at("roundtrip"), shape, sized_weights, tokenizer.to_json());
  const auto back = read_pretrained_file(at("roundtrip"), "", "--init");
  EXPECT_EQ(back.shape, shape) << describe_differences(back.shape, shape);
  EXPECT_EQ(back.workbench_tokenizer, tokenizer.to_json());
  ASSERT_EQ(back.weights.size(), sized_weights.size());
  std::map<std::string, torch::Tensor> by_name(back.weights.begin(), back.weights.end());
  for (const auto& [k, v] : sized_weights) {
    ASSERT_TRUE(by_name.count(k)) << k;
    EXPECT_TRUE(by_name[k].equal(v)) << k;  // bit for bit
  }
  // A folder that holds something is never overwritten.
  const auto msg = error_of([&] { write_hf_clip_folder(at("roundtrip"), shape, sized_weights, tokenizer.to_json()); });
  EXPECT_NE(msg.find("not an empty folder"), std::string::npos) << msg;
  // Long-CLIP's split table has no HF counterpart: refused before anything is written.
  ClipConfig long_clip = shape;
  long_clip.frozen_positions = 4;
  const auto msg2 = error_of([&] { write_hf_clip_folder(at("long"), long_clip, sized_weights, tokenizer.to_json()); });
  EXPECT_NE(msg2.find("Long-CLIP"), std::string::npos) << msg2;
  EXPECT_FALSE(fs::exists(at("long")));
}

}  // namespace
}  // namespace hnclip
