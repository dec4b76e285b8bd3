#pragma once
// Where a stored run's checkpoint files are now. The store records each file's absolute path
// (<db>.checkpoints/run-N/epoch-K.pt), so a database moved or copied together with its
// checkpoints folder — trained on a server with `hnclip`, browsed on a desktop — named files at
// the old place: every eval, export, resume and Retrieval tab query of every run said "checkpoint
// … is missing", and a copy read (and on deletion removed) the original's files. A file found
// under the database's own run folder by the recorded name is that database's, and is taken
// first; otherwise the recorded path stands. Plain C++, no LibTorch: the GUI's deletion uses it.

#include <cstdint>
#include <string>
#include <vector>

#include "store/run_store.h"

namespace hnclip {

// `recorded` (a checkpoint row's path) as this database sees it: its own run folder's file of the
// same name when that exists, else `recorded` unchanged.
std::string located_checkpoint_file(const std::string& database, int64_t run_id,
                                    const std::string& recorded);

// store.checkpoints(run_id) with every path located (the store's own database path).
std::vector<CheckpointRow> located_checkpoints(const RunStore& store, int64_t run_id);

// The database whose checkpoints folder holds `file` (<db>.checkpoints/run-N/<file>) when that
// database file exists; "" for any other file. Deleting a run of a copied database must not
// remove files its original still lists.
std::string checkpoint_folder_database(const std::string& file);

}  // namespace hnclip
