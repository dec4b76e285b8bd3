#pragma once
// Where the workbench keeps its files when the user does not say: the run database and checkpoints
// in the user's data directory (XDG_DATA_HOME, else ~/.local/share), generated benchmarks in the
// cache directory (XDG_CACHE_HOME, else ~/.cache), committed resources next to the sources or
// wherever HNCLIP_RESOURCE_DIR points.

#include <cstdint>
#include <string>

namespace hnclip {

// The two places a job writes to, as the CLI's flags or the GUI's settings give them.
struct JobPaths {
  std::string database;   // SQLite file (checkpoints in <database>.checkpoints/ beside it)
  std::string cache_dir;  // generated benchmarks
};

std::string default_database_path();
std::string default_cache_dir();
std::string resource_dir();
// The folder of one database's checkpoints: <database>.checkpoints/ beside it (runs.db ->
// runs.db.checkpoints/), as an absolute path. Named after the database, as its -wal and .backup-vN
// files are: every database numbers its runs from 1, and the checkpoints/ folder that two databases
// in one folder used to share let one's run 1 overwrite the other's checkpoints (and deleting one's
// run delete the other's).
std::string checkpoint_root(const std::string& database_path);
constexpr const char* kCheckpointRootSuffix = ".checkpoints";  // what checkpoint_root appends
// checkpoints/ beside the database, where runs recorded before kept their files. They are still
// read (the store records every checkpoint's path); nothing new is written there.
std::string legacy_checkpoint_root(const std::string& database_path);
// Checkpoints of run `id`: checkpoint_root(database)/run-<id>/.
std::string run_checkpoint_dir(const std::string& database_path, int64_t run_id);
// CLIP's BPE vocabulary (bpe_simple_vocab_16e6.txt.gz, MIT; licence beside it), shipped in the
// resources and installed with the programs: what an OpenAI / Long-CLIP file is tokenized with
// when --vocab does not name another.
std::string shipped_clip_vocab();
// StructXLIP's default word list (structxlip_words.txt), shipped and installed the same way: what
// its filtered captions drop when --structxlip-words does not name another file.
std::string shipped_structxlip_words();
// "pretrained" names the committed tiny checkpoint; any other value is a path, returned as is.
std::string resolve_init_checkpoint(const std::string& value);

}  // namespace hnclip
