#include "job/export_destination.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "job/workbench_paths.h"
#include "model/file_signature.h"
#include "train/train_config.h"

namespace hnclip {

namespace {
namespace fs = std::filesystem;

fs::path resolved(const std::string& path) {
  std::error_code ec;
  auto p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

// Whether `path` is `folder` or below it (both resolved).
bool is_within(const fs::path& path, const fs::path& folder) {
  auto p = path.begin();
  for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
    if (f->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *f) return false;
  }
  return true;
}
}  // namespace

void check_export_destination(const std::string& flag, const std::string& out,
                              const std::string& database, const std::string& source) {
  const std::string refused = flag + " " + out + ": ";
  const std::string nothing = " Nothing was written: choose another name.";
  const auto target = resolved(out);
  if (!source.empty() && fs::exists(source) && target == resolved(source))
    throw ConfigError(refused + "is the checkpoint being exported." + nothing);
  if (!database.empty()) {
    const auto refuse_within = [&](const std::string& folder) {
      throw ConfigError(refused + "is in " + folder + ", a checkpoint folder of the run database " +
                        database + ": its files are the runs' own." + nothing);
    };
    const auto root = checkpoint_root(database);
    if (is_within(target, resolved(root))) refuse_within(root);
    // The legacy folder is a plain "checkpoints/" beside the database, where a user may keep
    // exports of their own: only its run-<id>/ folders are the runs'.
    const auto legacy = resolved(legacy_checkpoint_root(database));
    if (is_within(target, legacy)) {
      const auto below = target.lexically_relative(legacy);
      if (!below.empty() && below.begin()->string().rfind("run-", 0) == 0)
        refuse_within((legacy / *below.begin()).string());
    }
  }
  // The writers create missing folders; the nearest existing one must take a new file. Tried
  // with a file created and removed at once: permission bits say nothing for root, or on a file
  // system that takes no files (`pretrain --out /proc/x.pt` failed after its epochs of training).
  fs::path folder = target.parent_path();
  std::error_code ec;
  while (!folder.empty() && !fs::exists(folder, ec) && folder != folder.root_path())
    folder = folder.parent_path();
  if (!fs::is_directory(folder, ec))
    throw ConfigError(refused + folder.string() + " is not a folder." + nothing);
  const auto probe = folder / (".hnclip-write-check-" + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw ConfigError(refused + "no file can be written in " + folder.string() + " (" +
                      std::strerror(errno) + ")." + nothing);
  }
  ::close(fd);
  fs::remove(probe, ec);
  const auto signature = read_file_signature(out);
  if (signature != FileSignature::kMissing && signature != FileSignature::kEmpty &&
      !is_model_file_signature(signature)) {
    throw ConfigError(refused + "exists and is " + describe_file_signature(signature) +
                      ": only an earlier model file is replaced." + nothing);
  }
}

}  // namespace hnclip
