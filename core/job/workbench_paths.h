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
  std::string database;   // SQLite file (its folder also holds checkpoints/)
  std::string cache_dir;  // generated benchmarks
};

std::string default_database_path();
std::string default_cache_dir();
std::string resource_dir();
// Checkpoints of run `id` live in <folder of the database>/checkpoints/run-<id>/.
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
