#include "job/workbench_paths.h"

#include <cstdlib>
#include <filesystem>

namespace hnclip {

namespace {
constexpr const char* kAppFolder = "hnclip-workbench";
constexpr const char* kPretrainedName = "checkpoints/tiny-synthetic-pretrained.pt";
constexpr const char* kClipVocabName = "bpe_simple_vocab_16e6.txt.gz";
constexpr const char* kStructxlipWordsName = "structxlip_words.txt";
// Relative to the installation prefix (the folder above bin/); matches the install() rules.
constexpr const char* kInstalledResourceDir = "share/hnclip-workbench/resources";

std::filesystem::path xdg(const char* var, const char* fallback) {
  if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return v;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : ".") / fallback;
}
}  // namespace

std::string default_database_path() {
  return (xdg("XDG_DATA_HOME", ".local/share") / kAppFolder / "runs.db").string();
}

std::string default_cache_dir() { return (xdg("XDG_CACHE_HOME", ".cache") / kAppFolder).string(); }

std::string resource_dir() {
  if (const char* v = std::getenv("HNCLIP_RESOURCE_DIR"); v != nullptr && *v != '\0') return v;
  // An installed program (cmake --install, the .deb) finds its resources next to its bin/ folder;
  // a program run from the build tree uses the sources' resources/.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / kInstalledResourceDir;
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return HNCLIP_RESOURCE_DIR_DEFAULT;
}

std::string shipped_clip_vocab() {
  return (std::filesystem::path(resource_dir()) / kClipVocabName).string();
}

std::string shipped_structxlip_words() {
  return (std::filesystem::path(resource_dir()) / kStructxlipWordsName).string();
}

// Absolute: the store records each checkpoint's path as given, and a relative one (`train --db
// runs.db`) named a file only from the folder the run was started in.
std::string checkpoint_root(const std::string& database_path) {
  return std::filesystem::absolute(database_path).string() + kCheckpointRootSuffix;
}

std::string legacy_checkpoint_root(const std::string& database_path) {
  return (std::filesystem::absolute(database_path).parent_path() / "checkpoints").string();
}

std::string run_checkpoint_dir(const std::string& database_path, int64_t run_id) {
  return (std::filesystem::path(checkpoint_root(database_path)) / ("run-" + std::to_string(run_id)))
      .string();
}

std::string resolve_init_checkpoint(const std::string& value) {
  if (value == "pretrained")
    return (std::filesystem::path(resource_dir()) / kPretrainedName).string();
  return value;
}

}  // namespace hnclip
