#pragma once
// The source revision this build was made from, as a run records it (runs.git_rev):
// `git rev-parse --short HEAD`, "-dirty" when a tracked file differed from it, "unknown" when
// the source was not a git checkout. Defined by a file that core/write_git_revision.cmake writes
// at every build (hnclip_git_revision), so an incremental build after a commit records the new
// revision, not the one the build folder was configured at.

namespace hnclip {

const char* git_revision();

}  // namespace hnclip
