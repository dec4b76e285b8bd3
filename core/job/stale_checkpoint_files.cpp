#include "job/stale_checkpoint_files.h"

#include <filesystem>
#include <system_error>

#include "job/workbench_paths.h"
#include "store/host_process.h"
#include "train/checkpoint.h"

namespace hnclip {

namespace fs = std::filesystem;

namespace {

int remove_under(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return 0;
  int removed = 0;
  for (fs::directory_iterator runs(root, ec), end; !ec && runs != end; runs.increment(ec)) {
    if (!runs->is_directory(ec) || runs->path().filename().string().rfind("run-", 0) != 0) continue;
    std::error_code inner;
    for (fs::directory_iterator f(runs->path(), inner); !inner && f != end; f.increment(inner)) {
      const int64_t writer = checkpoint_temporary_writer(f->path().filename().string());
      if (writer <= 0 || process_exists(writer)) continue;
      std::error_code rm;
      if (fs::remove(f->path(), rm)) ++removed;
    }
  }
  return removed;
}

}  // namespace

int remove_stale_checkpoint_temporaries(const std::string& database_path) {
  // The legacy folder too: a writer killed before the move left its temporary there.
  return remove_under(checkpoint_root(database_path)) +
         remove_under(legacy_checkpoint_root(database_path));
}

}  // namespace hnclip
