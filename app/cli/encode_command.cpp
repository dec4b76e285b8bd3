// `hnclip encode --checkpoint PATH [--vocab PATH] [--activation A] [--text T]... [--image P]...`:
// the raw encode_text / encode_image outputs (before normalisation, float32) of a workbench
// checkpoint or any model file or folder job/model_source.h opens (OpenAI CLIP / Long-CLIP /
// open_clip, safetensors, Hugging Face CLIPModel), e.g. to compare with PyTorch's on the same weights.

#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "data/image_pipeline.h"
#include "job/model_source.h"
#include "job/workbench_paths.h"
#include "numeric/non_finite_values.h"
#include "text/control_character.h"
#include "text/tokenizer.h"
#include "text/word_tokenizer.h"

namespace hnclip::cli {

namespace {

constexpr size_t kListedUnknownWords = 8;  // named in the warning; the count says the rest

nlohmann::json rows(const torch::Tensor& t) {
  nlohmann::json out = nlohmann::json::array();
  const auto c = t.to(torch::kFloat).contiguous();
  for (int64_t i = 0; i < c.size(0); ++i) {
    const float* p = c[i].data_ptr<float>();
    out.push_back(std::vector<float>(p, p + c.size(1)));
  }
  return out;
}

}  // namespace

CommandAction add_encode_command(CLI::App& app) {
  struct Options {
    std::string checkpoint, vocab, activation;
    std::vector<std::string> texts, images;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "encode", "print a model's raw text and image features (before normalisation)");
  cmd->add_option("--checkpoint", o->checkpoint,
                  "workbench checkpoint ('pretrained' = the committed tiny one), or a CLIP ViT "
                  "model file or folder: OpenAI / Long-CLIP / open_clip .pt or .bin, safetensors, "
                  "Hugging Face CLIPModel or open_clip hub folder (see `hnclip inspect`)")
      ->required();
  cmd->add_option("--vocab", o->vocab,
                  "CLIP BPE vocabulary for an OpenAI / Long-CLIP file (default: the shipped "
                  "bpe_simple_vocab_16e6.txt.gz)");
  cmd->add_option("--activation", o->activation,
                  "quick_gelu | gelu for a file that does not record its MLP activation")
      ->check(CLI::IsMember({"quick_gelu", "gelu"}));
  cmd->add_option("--text", o->texts, "a text to encode (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--image", o->images, "an image file to encode (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", o->json, "machine-readable output on stdout");
  return [o]() {
    if (o->texts.empty() && o->images.empty())
      throw UsageError(
          "--text or --image: nothing to encode (hnclip inspect FILE describes a model)");
    auto source =
        open_model_source(resolve_init_checkpoint(o->checkpoint), o->vocab, "--checkpoint",
                          /*need_tokenizer=*/!o->texts.empty(), /*long_clip=*/false,
                          o->activation);
    for (const auto& note : source.notes) std::cerr << note << "\n";
    ClipModel model(source.shape);
    load_model_source_weights(source, model);
    source.clip_weights.clear();
    model->eval();
    torch::NoGradGuard no_grad;

    torch::Tensor text, image;
    if (!o->texts.empty()) {
      const auto tokenizer = tokenizer_from_json(source.tokenizer);
      std::vector<int64_t> ids;
      const auto* word = dynamic_cast<const WordTokenizer*>(tokenizer.get());
      for (size_t i = 0; i < o->texts.size(); ++i) {
        const auto& t = o->texts[i];
        // A word-level vocabulary (the built-in benchmark's) maps every word it lacks to one
        // unknown token: said, since such a feature says nothing about those words.
        if (const auto unknown = word ? word->unknown_words(t) : std::vector<std::string>{};
            !unknown.empty()) {
          std::string list;
          for (size_t w = 0; w < unknown.size() && w < kListedUnknownWords; ++w)
            list += (w ? ", " : "") + one_line(unknown[w]);
          if (unknown.size() > kListedUnknownWords) list += ", …";
          std::cerr << "hnclip: --text " << i + 1 << ": " << unknown.size() << " of "
                    << WordTokenizer::words(t).size()
                    << " words are not in the checkpoint's word vocabulary and encode as one "
                       "unknown token ("
                    << list << ")\n";
        }
        const auto row = tokenizer->encode(t);
        ids.insert(ids.end(), row.begin(), row.end());
      }
      const auto tokens = torch::tensor(ids).reshape({static_cast<int64_t>(o->texts.size()), -1});
      text = model->encode_text(tokens).pooled;
    }
    if (!o->images.empty()) {
      ImagePipelineConfig pc;
      pc.image_size = static_cast<int>(source.shape.image_size);
      const ImagePipeline pipeline(pc);
      auto batch =
          torch::empty({static_cast<int64_t>(o->images.size()), 3, pc.image_size, pc.image_size});
      for (size_t i = 0; i < o->images.size(); ++i) {
        pipeline.load(o->images[i], batch[static_cast<int64_t>(i)].data_ptr<float>());
      }
      image = model->encode_image(batch).pooled;
    }
    // null in the JSON and exit 0 would pass garbage on as features.
    for (const auto& [features, what] : {std::pair{text, "--text"}, std::pair{image, "--image"}}) {
      if (const auto bad = find_non_finite(features)) {
        throw NonFiniteError(std::string(what) + " " + std::to_string(bad->first[0] + 1) +
                             ": its feature is not finite (" + describe(*bad) + ")");
      }
    }
    const nlohmann::json out{{"text", text.defined() ? rows(text) : nlohmann::json::array()},
                             {"image", image.defined() ? rows(image) : nlohmann::json::array()}};
    if (o->json) {
      std::cout << out.dump() << std::endl;
    } else {
      const auto& c = source.shape;
      std::cout << (source.workbench ? "workbench checkpoint" : "CLIP state dict") << " "
                << source.path << ": image " << c.image_size << "px, context " << c.context_length
                << ", embedding " << c.embed_dim << (c.frozen_positions ? " (Long-CLIP)" : "")
                << "\n";
      for (const char* key : {"text", "image"}) {
        const auto& list = out.at(key);
        for (size_t i = 0; i < list.size(); ++i) {
          std::cout << key << " " << i << ":";
          for (size_t k = 0; k < std::min<size_t>(list[i].size(), 6); ++k)
            std::cout << " " << list[i][k].get<float>();
          std::cout << " ...\n";
        }
      }
    }
    return kExitOk;
  };
}

}  // namespace hnclip::cli
