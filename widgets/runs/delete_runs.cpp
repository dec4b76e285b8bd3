#include "widgets/runs/delete_runs.h"

#include <filesystem>
#include <system_error>

#include "job/located_checkpoints.h"
#include "job/workbench_paths.h"
#include "store/run_store.h"

namespace hnclip::gui {
namespace fs = std::filesystem;

std::vector<std::string> delete_runs(const std::string& db_path, const std::vector<int64_t>& ids) {
  RunStore store(db_path);
  // Validate all first: a refused request must leave every run as it was.
  for (int64_t id : ids) {
    const auto run = store.find_run(id);
    if (!run)
      throw RunDeletionRefused("run " + std::to_string(id) + " does not exist in " + db_path);
    if (run->status == RunStatus::Running)
      throw RunDeletionRefused("run '" + run->name + "' (id " + std::to_string(id) +
                               ") is running: stop it before deleting it");
  }
  std::vector<std::string> problems;
  for (int64_t id : ids) {
    const auto checkpoints = store.checkpoints(id);
    store.delete_run(id);
    std::error_code ec;
    const fs::path folder = run_checkpoint_dir(db_path, id);
    fs::remove_all(folder, ec);
    if (ec) problems.push_back(folder.string() + ": " + ec.message());
    // Checkpoints recorded outside the run's folder: the file, and its folder once empty; but
    // not a file in another database's folder, which a copy of that database recorded (the copy's
    // runs name the original's files until it has its own).
    for (const auto& c : checkpoints) {
      const fs::path file = c.path;
      if (file.empty() || !fs::exists(file, ec)) continue;
      if (const std::string owner = checkpoint_folder_database(file.string());
          !owner.empty() && !fs::equivalent(owner, db_path, ec)) {
        problems.push_back(file.string() + ": kept, it is in the checkpoints folder of " + owner);
        continue;
      }
      if (!fs::remove(file, ec) && ec) {
        problems.push_back(file.string() + ": " + ec.message());
        continue;
      }
      const fs::path parent = file.parent_path();
      if (!parent.empty() && fs::is_directory(parent, ec) && fs::is_empty(parent, ec))
        fs::remove(parent, ec);
    }
  }
  return problems;
}

}  // namespace hnclip::gui
