// Tests core/job/model_source: a Hugging Face folder with CLIP's tokenizer files is tokenized with
// CLIP's BPE after its files are checked (and refused when they differ); a bare state dict says
// which vocabulary and which activation it assumed; a workbench checkpoint refuses an
// --activation it was not trained with.

#include "job/model_source.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

#include "job/workbench_paths.h"
#include "model/hf_clip_folder.h"
#include "model/make_clip_model.h"
#include "model/model_state_dict.h"
#include "support/test_dirs.h"
#include "train/train_config.h"

namespace hnclip {
namespace {

ClipConfig clip_bpe_shape() {
  ClipConfig c = clip_preset("tiny", 49408, 16);
  c.embed_dim = 16;
  return c;
}

bool any_note_has(const ModelSource& s, const std::string& needle) {
  for (const auto& n : s.notes) {
    if (n.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(ModelSource, HuggingFaceTokenizerFilesAreCheckedToBeClips) {
  test::ScratchDir dir;
  auto model = make_clip_model(clip_bpe_shape(), 1);
  const nlohmann::json tokenizer = {
      {"kind", "clip-bpe"}, {"vocab_path", HNCLIP_VOCAB_PATH}, {"context_length", 16}};
  const auto folder = (dir / "hf").string();
  write_hf_clip_folder(folder, clip_bpe_shape(), model_state_dict(model), tokenizer);
  const auto s = open_model_source(folder, HNCLIP_VOCAB_PATH, "--init");
  EXPECT_FALSE(s.workbench);
  EXPECT_EQ(s.kind, "hf-clip");
  EXPECT_EQ(s.tokenizer.at("kind"), "clip-bpe");
  EXPECT_EQ(s.tokenizer.at("context_length"), 16);
  EXPECT_TRUE(any_note_has(s, "vocab.json and merges.txt are CLIP's BPE")) << s.notes.size();
  EXPECT_EQ(s.shape, clip_bpe_shape());

  // One merge changed: not the vocabulary the workbench would tokenize with.
  auto merges = test::read_text_file(dir / "hf" / "merges.txt");
  merges.insert(merges.find('\n') + 1, "zz");
  test::write_text_file(dir / "hf" / "merges.txt", merges);
  try {
    open_model_source(folder, HNCLIP_VOCAB_PATH, "--init");
    FAIL() << "a changed merges.txt was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("merges.txt: line 2"), std::string::npos) << e.what();
  }
}

TEST(ModelSource, BareStateDictSaysWhatItAssumed) {
  test::ScratchDir dir;
  auto model = make_clip_model(clip_bpe_shape(), 2);
  const auto path = (dir / "clip.pt").string();
  write_state_dict_file(path, model_state_dict(model));
  const auto s = open_model_source(path, "", "--init");
  EXPECT_EQ(s.kind, "state-dict");
  EXPECT_TRUE(any_note_has(s, "QuickGELU assumed"));
  EXPECT_TRUE(any_note_has(s, "shipped CLIP BPE vocabulary"));
  const auto gelu = open_model_source(path, "", "--init", true, false, "gelu");
  EXPECT_EQ(gelu.shape.activation, MlpActivation::Gelu);
  EXPECT_FALSE(any_note_has(gelu, "QuickGELU assumed"));
}

TEST(ModelSource, WorkbenchCheckpointRefusesAnotherActivation) {
  const auto pretrained = resolve_init_checkpoint("pretrained");
  EXPECT_EQ(open_model_source(pretrained, "", "--init").kind, "workbench");
  try {
    open_model_source(pretrained, "", "--init", true, false, "gelu");
    FAIL() << "--activation gelu was accepted for a QuickGELU checkpoint";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("trained with quick_gelu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hnclip
