#pragma once
// What a file's first bytes say it is, before any reader sees it: the readers' own errors on the
// wrong kind of file are cryptic ("failed finding central directory"), and a writer must not
// replace a file that is no model at all (the run database, a manifest) with one. Plain file
// reads: any thread.

#include <string>

namespace hnclip {

enum class FileSignature {
  kMissing,       // no file at the path (or a folder)
  kUnreadable,    // a file that cannot be opened
  kEmpty,         // 0 bytes: a failed copy or write
  kZip,           // "PK\3\4": torch.save, torch.jit.save and workbench checkpoints
  kLegacyPickle,  // a bare pickle (protocol 2+): torch.save before PyTorch 1.6
  kSafetensors,   // as is_safetensors_file says
  kSqlite,        // "SQLite format 3\0": a database (the run database sits beside the checkpoints)
  kOther,
};

FileSignature read_file_signature(const std::string& path);

// Whether a file of this signature holds model weights in a format the workbench reads or writes.
bool is_model_file_signature(FileSignature signature);

// "an SQLite database", "an empty file (0 bytes)", ... for messages.
std::string describe_file_signature(FileSignature signature);

}  // namespace hnclip
