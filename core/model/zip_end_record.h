#pragma once
// Whether a zip archive (torch.save, torch.jit.save and workbench checkpoints are all zip
// archives) still has its end: the end-of-central-directory record, which a writer puts last. A
// download or copy cut short keeps the "PK\3\4" start but loses it, and LibTorch's reader then
// says "failed finding central directory"; this lets the refusal say what happened instead. Plain
// file reads: any thread.

#include <string>

namespace hnclip {

// True when the last 64 KiB + 22 bytes of the file (where the record must start: it is 22 bytes
// and its comment at most 65,535) hold the record's signature "PK\5\6". False for a file that
// cannot be read.
bool has_zip_end_record(const std::string& path);

// The words every refusal of such a file ends with.
constexpr const char* kCutShortZip =
    "a zip archive without its end record: the file is cut short (an interrupted download or "
    "copy?)";

}  // namespace hnclip
