#include "model/file_signature.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/safetensors_file.h"

namespace hnclip {

namespace {
constexpr char kZipMagic[] = {'P', 'K', '\x03', '\x04'};
constexpr char kSqliteMagic[] = "SQLite format 3";  // 16 bytes with its NUL, as the file begins
constexpr unsigned char kPickleProto = 0x80;        // PROTO opcode: a pickle of protocol 2 or later
}  // namespace

FileSignature read_file_signature(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return FileSignature::kMissing;
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileSignature::kUnreadable;
  char head[sizeof(kSqliteMagic)] = {};
  in.read(head, sizeof(head));
  const auto n = static_cast<size_t>(in.gcount());
  if (n == 0) return FileSignature::kEmpty;
  if (n >= sizeof(kZipMagic) && std::memcmp(head, kZipMagic, sizeof(kZipMagic)) == 0)
    return FileSignature::kZip;
  if (n == sizeof(kSqliteMagic) && std::memcmp(head, kSqliteMagic, sizeof(kSqliteMagic)) == 0)
    return FileSignature::kSqlite;
  // Before the pickle's 0x80: a safetensors header of 128 + 256k bytes starts with that byte too.
  if (is_safetensors_file(path)) return FileSignature::kSafetensors;
  if (static_cast<unsigned char>(head[0]) == kPickleProto) return FileSignature::kLegacyPickle;
  return FileSignature::kOther;
}

bool is_model_file_signature(FileSignature signature) {
  return signature == FileSignature::kZip || signature == FileSignature::kSafetensors ||
         signature == FileSignature::kLegacyPickle;
}

std::string describe_file_signature(FileSignature signature) {
  switch (signature) {
    case FileSignature::kMissing:
      return "no file";
    case FileSignature::kUnreadable:
      return "a file that cannot be opened";
    case FileSignature::kEmpty:
      return "an empty file (0 bytes)";
    case FileSignature::kZip:
      return "a zip archive (torch.save, torch.jit.save or a workbench checkpoint)";
    case FileSignature::kLegacyPickle:
      return "a legacy (non-zip) torch.save file";
    case FileSignature::kSafetensors:
      return "a safetensors file";
    case FileSignature::kSqlite:
      return "an SQLite database";
    case FileSignature::kOther:
      break;
  }
  return "neither a zip archive nor a safetensors file";
}

}  // namespace hnclip
