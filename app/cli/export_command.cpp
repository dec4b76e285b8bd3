// `hnclip export`: a run's checkpoint (or any workbench checkpoint) as a PyTorch state-dict file
// that Python's torch.load reads, or as a safetensors file, under OpenAI CLIP's parameter names,
// or as a Hugging Face CLIPModel folder (--format hf) that transformers' CLIPModel.from_pretrained
// and the workbench read; or with --metrics FILE a run's recorded metrics as a long CSV /
// JSON-lines table (store/run_metrics_export.h).

#include <torch/torch.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "job/export_destination.h"
#include "job/run_checkpoint.h"
#include "model/hf_clip_folder.h"
#include "model/make_clip_model.h"
#include "model/model_state_dict.h"
#include "model/pretrained_file.h"
#include "model/safetensors_file.h"
#include "model/state_dict_file.h"
#include "store/run_metrics_export.h"
#include "store/run_store.h"
#include "text/decimal_digits.h"
#include "train/checkpoint.h"

namespace hnclip::cli {

namespace {
constexpr const char* kFormatStateDict = "state-dict";
constexpr const char* kFormatHf = "hf";
constexpr const char* kFormatSafetensors = "safetensors";
// __metadata__ keys: "format" as Hugging Face's torch writer sets it (readers use it to pick the
// framework), the workbench's own under an "hnclip." prefix.
constexpr const char* kMetaFormat = "format";
constexpr const char* kMetaRun = "hnclip.run";
constexpr const char* kMetaEpoch = "hnclip.epoch";
constexpr uint64_t kInitSeed = 0;  // overwritten by the checkpoint's weights; any seed does

bool has_extension(const std::string& path, std::initializer_list<const char*> extensions) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* e : extensions)
    if (ext == e) return true;
  return false;
}

// The format to write: --format when given, else the one OUT's name says. A name that says the
// other file format is refused: `export --run 3 clip.safetensors` wrote a torch.save zip under
// that name, which safetensors readers then failed on.
std::string export_format(const std::string& given, const std::string& out) {
  const bool safetensors_name = has_extension(out, {".safetensors"});
  if (given.empty()) return safetensors_name ? kFormatSafetensors : kFormatStateDict;
  if (given == kFormatStateDict && safetensors_name)
    throw UsageError("--format state-dict writes a torch.save file, but " + out +
                     " is named as safetensors (--format safetensors, or a .pt name)");
  if (given == kFormatSafetensors && has_extension(out, {".pt", ".pth"}))
    throw UsageError(
        "--format safetensors writes a safetensors file, but " + out +
        " is named as a torch.save file (a .safetensors name, or --format state-dict)");
  return given;
}
}  // namespace

CommandAction add_export_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    int64_t run = 0;
    std::string epoch = "best";
    std::string checkpoint;
    std::string format;  // "": from OUT's name
    std::string out;
    std::string first_word;  // RUN of `export RUN OUT`, or OUT when it is the only word
    std::string metrics;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "export",
      "write a run's checkpoint as a PyTorch state dict (torch.load-able .pt) or safetensors file");
  take_last_value(cmd);
  auto* run = cmd->add_option("--run", o->run,
                              "run id (its checkpoint chosen by --epoch); or give it before OUT");
  auto* epoch = cmd->add_option("--epoch", o->epoch, "best | last | N")->capture_default_str();
  auto* checkpoint = cmd->add_option("--checkpoint", o->checkpoint,
                                     "a workbench checkpoint file instead of --run");
  run->excludes(checkpoint);
  cmd->add_option("--format", o->format,
                  "state-dict | safetensors (both OpenAI CLIP names, fp32; safetensors also "
                  "records the model config, run and epoch in __metadata__) | hf (a Hugging Face "
                  "CLIPModel folder: config.json, weights, tokenizer); default: safetensors for "
                  "a .safetensors name, else state-dict");
  // `export 3 clip.pt` as `show 3` and `eval 3`: a run id may come before OUT.
  // CLI11 fills positionals in order, so one word lands in "run": the action reads it as OUT.
  auto* first = cmd->add_option("run", o->first_word, "run id (as --run), when OUT follows");
  auto* second = cmd->add_option("out", o->out,
                                 "output file (.pt or .safetensors), or folder for --format hf");
  auto* metrics = cmd->add_option(
      "--metrics", o->metrics,
      "instead of weights: every step metric, probe and evaluation of --run as a long table "
      "(FILE.csv or FILE.jsonl)");
  add_common_options(cmd, o->common);
  return [o, run, checkpoint, epoch, metrics, first, second]() {
    bool run_given = run->count() > 0;
    const auto take_run = [&](const std::string& text) {
      if (run_given) throw UsageError(text + ": the run is given twice (here and as --run)");
      if (checkpoint->count() > 0)
        throw UsageError(text + ": a run and --checkpoint exclude each other");
      if (!is_decimal_digits(text, kInt64Digits))
        throw UsageError("'" + text + "' is not a run id (hnclip export [RUN] OUT)");
      o->run = std::stoll(text);
      run_given = true;
    };
    bool out_given = second->count() > 0;
    if (out_given) {
      take_run(o->first_word);
    } else if (first->count() > 0) {
      if (metrics->count() > 0 && !run_given) {
        take_run(o->first_word);  // `export 3 --metrics m.csv`
      } else if (is_decimal_digits(o->first_word, kInt64Digits) && !run_given &&
                 checkpoint->count() == 0) {
        throw UsageError("export " + o->first_word +
                         ": the output file goes after the run (hnclip export " + o->first_word +
                         " OUT)");
      } else {
        o->out = o->first_word;
        out_given = true;
      }
    }
    if (epoch->count() > 0 && !run_given)
      throw UsageError(
          "--epoch chooses a run's checkpoint: give the run (export RUN OUT, or --run)");
    if ((metrics->count() > 0) == out_given) {
      throw UsageError(metrics->count() > 0
                           ? "--metrics and out: give one of them (a metrics table or the weights)"
                           : "out or --metrics: give the weights file (or folder) to write, or --metrics FILE");
    }
    if (metrics->count() > 0) {
      if (!run_given) throw UsageError("--metrics needs --run ID (the run whose metrics)");
      if (epoch->count() > 0) {
        throw UsageError("--metrics exports every epoch; --epoch chooses a checkpoint");
      }
      try {
        metrics_file_format(o->metrics);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--metrics ") + e.what());
      }
      RunStore store(o->common.stored_paths().database);
      if (!store.find_run(o->run)) {
        throw UsageError("run " + std::to_string(o->run) + ": no such run in " + store.path());
      }
      size_t rows = 0;
      try {
        rows = write_run_metrics(store, o->run, o->metrics);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--metrics ") + e.what());
      } catch (const StoreError&) {
        throw;
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("--metrics ") + e.what());
      }
      if (o->common.json) {
        std::cout << nlohmann::json{{"out", o->metrics}, {"run_id", o->run}, {"rows", rows}}.dump()
                  << std::endl;
      } else {
        std::cout << "exported " << rows << " metric rows of run " << o->run << " to "
                  << o->metrics << "\n";
      }
      return kExitOk;
    }
    if (!o->format.empty() && o->format != kFormatStateDict && o->format != kFormatSafetensors &&
        o->format != kFormatHf) {
      throw UsageError("--format " + o->format + ": unknown (supported: " + kFormatStateDict + ", " +
                       kFormatSafetensors + ", " + kFormatHf + ")");
    }
    o->format = export_format(o->format, o->out);
    std::string path = o->checkpoint;
    int64_t run_id = 0;
    int epoch = 0;
    if (run_given) {
      const auto paths = o->common.stored_paths();
      RunStore store(paths.database);
      const auto chosen = choose_run_checkpoint(store, paths.database, o->run, o->epoch);
      if (chosen.start_model) {
        throw UsageError("--epoch 0: run " + std::to_string(o->run) +
                         " saved no checkpoint of its start, " +
                         (chosen.checkpoint.path.empty()
                              ? std::string("which was random weights: there is nothing to export")
                              : "which is its --init file: export that (--checkpoint " +
                                    chosen.checkpoint.path + ")"));
      }
      if (!chosen.note.empty()) std::cerr << "hnclip: " << chosen.note << "\n";
      path = chosen.checkpoint.path;
      run_id = o->run;
      epoch = chosen.checkpoint.epoch;
    } else if (checkpoint->count() == 0) {
      throw UsageError("--run or --checkpoint: one of them says what to export");
    } else if (!std::filesystem::exists(path)) {
      throw UsageError("--checkpoint " + path + ": no such file");
    }
    check_export_destination("out", o->out, o->common.paths().database, path);
    const auto meta = read_checkpoint_meta(path);
    auto model = make_clip_model(meta.model, kInitSeed);
    load_checkpoint_weights(path, model);
    const auto tensors = model_state_dict(model);
    const int exported_epoch = run_id != 0 ? epoch : meta.epoch;
    const bool word_tokenizer =
        meta.tokenizer.is_object() && meta.tokenizer.value("kind", std::string()) != "clip-bpe";
    if (o->format == kFormatHf) {
      write_hf_clip_folder(o->out, meta.model, tensors, meta.tokenizer);
    } else if (o->format == kFormatSafetensors) {
      std::map<std::string, std::string> metadata = {
          {kMetaFormat, "pt"},
          {kWorkbenchModelKey, nlohmann::json(meta.model).dump()},
          {kMetaRun, std::to_string(run_id != 0 ? run_id : meta.run_id)},
          {kMetaEpoch, std::to_string(exported_epoch)}};
      // A word tokenizer goes with the weights, as in an hf folder: without it the file could not
      // start a run or encode a caption (a CLIP BPE model takes the shipped vocabulary or --vocab).
      if (word_tokenizer) metadata[kWorkbenchTokenizerKey] = meta.tokenizer.dump();
      write_safetensors_file(o->out, tensors, metadata);
    } else {
      write_state_dict_file(o->out, tensors);
      if (word_tokenizer)
        std::cerr << "hnclip: " << o->out << " holds the weights only: a .pt state dict has no "
                  << "place for the run's word tokenizer (its "
                  << meta.tokenizer.value("vocab", nlohmann::json::array()).size()
                  << "-word vocabulary), so it cannot start a run (--init) or encode captions; "
                     "--format safetensors or hf keeps it\n";
    }

    double checksum = 0;
    int64_t numel = 0;
    for (const auto& [name, t] : tensors) {
      checksum += t.to(torch::kDouble).sum().item<double>();
      numel += t.numel();
    }
    if (o->common.json) {
      std::cout
          << nlohmann::json{{"out", o->out},       {"checkpoint", path},
                            {"run_id", run_id},    {"epoch", exported_epoch},
                            {"format", o->format}, {"tensors", tensors.size()},
                            {"parameters", numel}, {"checksum", checksum}}
                 .dump()
          << std::endl;
    } else {
      std::cout << "exported " << tensors.size() << " tensors (" << numel << " parameters, fp32, "
                << o->format << ") from " << path << " to " << o->out << "\n";
    }
    return kExitOk;
  };
}

}  // namespace hnclip::cli
