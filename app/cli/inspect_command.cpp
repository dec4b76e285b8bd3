// `hnclip inspect PATH [--activation A] [--json]`: what a model file or folder is (kind,
// architecture, parameter count, dtypes, activation and where it comes from), recognised by
// content as train --init and encode --checkpoint recognise it, without building a model.

#include <iostream>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "job/model_file_report.h"
#include "job/workbench_paths.h"

namespace hnclip::cli {

CommandAction add_inspect_command(CLI::App& app) {
  struct Options {
    std::string path, activation;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "inspect", "say what a model file or folder is: kind, architecture, parameters, activation");
  cmd->add_option("path", o->path,
                  "a workbench checkpoint ('pretrained' = the committed one), .pt / .bin, "
                  ".safetensors, Hugging Face CLIPModel or open_clip folder")
      ->required();
  cmd->add_option("--activation", o->activation,
                  "quick_gelu | gelu, as train --init would be told for a file that does not record it")
      ->check(CLI::IsMember({"quick_gelu", "gelu"}));
  cmd->add_flag("--json", o->json, "machine-readable output on stdout");
  return [o]() {
    const auto report = inspect_model_file(resolve_init_checkpoint(o->path), o->activation);
    if (o->json) {
      std::cout << to_json(report).dump() << std::endl;
    } else {
      std::cout << to_text(report);
    }
    return kExitOk;
  };
}

}  // namespace hnclip::cli
