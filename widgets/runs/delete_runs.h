#pragma once
// delete_runs: removes runs from the store together with their checkpoint files on disk: the run's
// checkpoint folder (run_checkpoint_dir) and any checkpoint file the store lists elsewhere, except
// one in another (still present) database's checkpoints folder: a copied database's runs name the
// original's files, and deleting a run of the copy must not take them from the original.
// Opens its own RunStore, so it may run on a worker thread. Plain C++ (no Qt).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip::gui {

// A deletion refused before anything was changed (a running run, an unknown id).
class RunDeletionRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Deletes every run of `ids` or, when one of them is running or unknown, none: throws
// RunDeletionRefused naming that run. Returns a line per checkpoint file or folder that could not
// be removed (the database rows are gone by then; the files are left for the user).
std::vector<std::string> delete_runs(const std::string& db_path, const std::vector<int64_t>& ids);

}  // namespace hnclip::gui
