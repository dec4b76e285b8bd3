// read_file_signature on files of each kind, written here: the workbench's own writers (a
// torch.save zip, a safetensors file), a legacy pickle's first bytes, an SQLite database's header,
// an empty file, a text file, a folder and a missing path. A safetensors header 128 bytes long
// begins with 0x80, the byte a legacy pickle begins with: it must still read as safetensors.

#include "model/file_signature.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <string>

#include "model/safetensors_file.h"
#include "model/state_dict_file.h"
#include "support/test_dirs.h"

namespace {

using hnclip::FileSignature;

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(FileSignature, EachKindOfFileIsRecognised) {
  hnclip::test::ScratchDir dir;
  const hnclip::StateDict tensors{{"w", torch::ones({2, 2})}};
  hnclip::write_state_dict_file((dir / "w.pt").string(), tensors);
  hnclip::write_safetensors_file((dir / "w.safetensors").string(), tensors, {});
  write_bytes(dir / "legacy.pt", std::string("\x80\x02\x8a\x0alZ\xa0\xfcl\x06", 10));
  write_bytes(dir / "runs.db", std::string("SQLite format 3\0", 16) + std::string(100, '\0'));
  write_bytes(dir / "empty.pt", "");
  write_bytes(dir / "notes.txt", "a cat on a mat\n");

  EXPECT_EQ(hnclip::read_file_signature((dir / "w.pt").string()), FileSignature::kZip);
  EXPECT_EQ(hnclip::read_file_signature((dir / "w.safetensors").string()),
            FileSignature::kSafetensors);
  EXPECT_EQ(hnclip::read_file_signature((dir / "legacy.pt").string()),
            FileSignature::kLegacyPickle);
  EXPECT_EQ(hnclip::read_file_signature((dir / "runs.db").string()), FileSignature::kSqlite);
  EXPECT_EQ(hnclip::read_file_signature((dir / "empty.pt").string()), FileSignature::kEmpty);
  EXPECT_EQ(hnclip::read_file_signature((dir / "notes.txt").string()), FileSignature::kOther);
  EXPECT_EQ(hnclip::read_file_signature(dir.path().string()), FileSignature::kMissing);
  EXPECT_EQ(hnclip::read_file_signature((dir / "none.pt").string()), FileSignature::kMissing);

  EXPECT_TRUE(hnclip::is_model_file_signature(FileSignature::kZip));
  EXPECT_TRUE(hnclip::is_model_file_signature(FileSignature::kSafetensors));
  EXPECT_FALSE(hnclip::is_model_file_signature(FileSignature::kSqlite));
  EXPECT_FALSE(hnclip::is_model_file_signature(FileSignature::kEmpty));
  EXPECT_FALSE(hnclip::is_model_file_signature(FileSignature::kOther));
}

TEST(FileSignature, ASafetensorsHeaderStartingWithThePickleByteIsSafetensors) {
  hnclip::test::ScratchDir dir;
  // Header length 128 = 0x80 in the first little-endian byte, then '{'.
  std::string header = "{}";
  header.resize(128, ' ');
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(0x80);
  write_bytes(dir / "x.safetensors", bytes + header);
  EXPECT_EQ(hnclip::read_file_signature((dir / "x.safetensors").string()),
            FileSignature::kSafetensors);
}

}  // namespace
