#pragma once
// Temporary checkpoint files left by killed writers. save_checkpoint writes "<name>.tmp-<pid>"
// and renames it into place, so a kill mid-write never leaves a truncated checkpoint — but it
// does leave that temporary file, possibly hundreds of MB, which nothing else would ever remove.

#include <string>

namespace hnclip {

// Removes every checkpoint temporary under checkpoint_root(database)/run-*/ (and the legacy
// checkpoints/run-*/ beside the database: job/workbench_paths.h) whose
// writing process no longer exists on this host (a live writer's file is left alone: another
// run may be saving right now). Returns how many were removed; files that cannot be removed are
// skipped, never an error — the sweep must not stop a run from starting.
int remove_stale_checkpoint_temporaries(const std::string& database_path);

}  // namespace hnclip
