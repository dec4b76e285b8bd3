#pragma once
// Where `hnclip export` and `hnclip pretrain --out` may write a model file. Both replace an
// existing file at OUT (re-exporting over an earlier export is the common case), so a name given
// by mistake destroyed what was there: `hnclip export 1 runs.db --db runs.db` wrote run 1's
// weights over its own run database, and any run's checkpoint could be overwritten with another
// run's weights. Checked before anything is trained, read or written.

#include <string>

namespace hnclip {

// Throws ConfigError naming `flag` and `out` when OUT is
//  - an existing file that is no model file (the run database or any SQLite database, a manifest,
//    a text file; an empty file may be replaced),
//  - the checkpoint being exported (`source`; "" for none), or
//  - in the checkpoint folder of `database` (checkpoint_root or the legacy checkpoints/ folder
//    beside it): those files are the runs', and the store records them, or
//  - in a folder where no file can be written (the nearest existing one, tried with a file made
//    and removed at once; the writers create the missing ones).
// Paths are compared after resolving symbolic links, ".." and the working directory.
void check_export_destination(const std::string& flag, const std::string& out,
                              const std::string& database, const std::string& source = "");

}  // namespace hnclip
