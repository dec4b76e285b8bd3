#include "job/located_checkpoints.h"

#include <filesystem>
#include <system_error>

#include "job/workbench_paths.h"

namespace hnclip {
namespace fs = std::filesystem;

std::string located_checkpoint_file(const std::string& database, int64_t run_id,
                                    const std::string& recorded) {
  const fs::path name = fs::path(recorded).filename();
  if (name.empty()) return recorded;
  const fs::path own = fs::path(run_checkpoint_dir(database, run_id)) / name;
  std::error_code ec;
  return fs::is_regular_file(own, ec) ? own.string() : recorded;
}

std::vector<CheckpointRow> located_checkpoints(const RunStore& store, int64_t run_id) {
  auto rows = store.checkpoints(run_id);
  for (auto& row : rows) row.path = located_checkpoint_file(store.path(), run_id, row.path);
  return rows;
}

std::string checkpoint_folder_database(const std::string& file) {
  const fs::path root = fs::path(file).parent_path().parent_path();
  const std::string folder = root.filename().string();
  const std::string_view suffix = kCheckpointRootSuffix;
  if (folder.size() <= suffix.size() ||
      folder.compare(folder.size() - suffix.size(), suffix.size(), suffix) != 0)
    return "";
  const fs::path database = root.parent_path() / folder.substr(0, folder.size() - suffix.size());
  std::error_code ec;
  return fs::is_regular_file(database, ec) ? database.string() : "";
}

}  // namespace hnclip
