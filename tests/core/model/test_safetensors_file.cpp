// Tests core/model/safetensors_file against a reader and writer written by hand from the format's
// specification in Python (tests/core/reference/safetensors_files.py, run at test time): files it
// writes are read with every dtype, shape, value and the metadata checked; files the C++ writer
// makes are read by it, and rewritten by it byte for byte the same; tensors are views of the
// mapping whose pages go back when the tensor goes; every malformed header is refused naming
// the file and the key.

#include "model/safetensors_file.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/error_check.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSafetensorsScript =
    std::string(HNCLIP_TEST_SOURCE_DIR) + "/core/reference/safetensors_files.py";

std::string safetensors_dtype(c10::ScalarType t) {
  switch (t) {
    case c10::kDouble:
      return "F64";
    case c10::kFloat:
      return "F32";
    case c10::kHalf:
      return "F16";
    case c10::kBFloat16:
      return "BF16";
    case c10::kLong:
      return "I64";
    case c10::kInt:
      return "I32";
    case c10::kShort:
      return "I16";
    case c10::kChar:
      return "I8";
    case c10::kByte:
      return "U8";
    case c10::kBool:
      return "BOOL";
    default:
      return c10::toString(t);
  }
}

// The same description the Python script writes: key, dtype, shape, values as float64.
json describe_as_safetensors_script(const StateDict& sd) {
  auto out = json::array();
  for (const auto& [key, t] : sd) {
    auto flat = t.reshape({-1}).to(torch::kDouble).contiguous();
    std::vector<double> values(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel());
    out.push_back({{"key", key},
                   {"dtype", safetensors_dtype(t.scalar_type())},
                   {"shape", t.sizes().vec()},
                   {"values", values}});
  }
  return out;
}

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A file with this header text and `data_bytes` bytes of data (value 1, valid as any dtype).
std::string raw_file(const std::string& header, size_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\1');
}

int python(const std::string& args, std::string* err) {
  std::string out;
  return test::run_command(std::string(HNCLIP_REFERENCE_PYTHON) + " " + kSafetensorsScript + " " + args, &out,
                           err);
}

// Every dtype the format and LibTorch share, a 0-d and an empty tensor, in a mixed order.
StateDict every_dtype() {
  torch::manual_seed(3);
  return {
      {"f32", torch::randn({3, 4})},
      {"f16", torch::randn({2, 3}).to(torch::kHalf)},
      {"bf16", torch::randn({5}).to(torch::kBFloat16)},
      {"bool", torch::tensor({true, false, false, true})},
      {"f64", torch::randn({2, 2}, torch::kDouble)},
      {"i64", torch::tensor({int64_t{-3}, int64_t{1} << 40})},
      {"i32", torch::tensor({-5, 6}, torch::kInt)},
      {"i16", torch::tensor({-300, 301}, torch::kShort)},
      {"i8", torch::tensor({-128, 127}, torch::kChar)},
      {"u8", torch::tensor({0, 255, 9}, torch::kByte)},
      {"scalar", torch::tensor(2.5)},
      {"empty", torch::zeros({0, 3})},
      {"empty_i64", torch::zeros({2, 0}, torch::kLong)},
  };
}

class SafetensorsFile : public ::testing::Test {
 protected:
  // Python's fixtures, made once per test program (importing torch takes seconds).
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::ScratchDir>();
    std::string err;
    ASSERT_EQ(python("make " + dir_->path().string(), &err), 0) << err;
    expected_ = json::parse(test::read_text_file(dir_->path() / "expected.json"));
  }
  static void TearDownTestSuite() { dir_.reset(); }
  static std::string fixture(const std::string& name) { return (dir_->path() / name).string(); }

  static void expect_matches_python(const std::string& name) {
    SCOPED_TRACE(name);
    std::map<std::string, std::string> meta;
    const auto sd = read_safetensors_file(fixture(name), &meta);
    EXPECT_EQ(describe_as_safetensors_script(sd), expected_.at(name).at("tensors"));
    EXPECT_EQ(json(meta), expected_.at(name).at("metadata"));
  }

  // Python's reader must find exactly `sd` and `meta` in the C++-written `path`.
  void expect_python_reads(const fs::path& path, const StateDict& sd,
                           const std::map<std::string, std::string>& meta) {
    const auto want = out / (path.filename().string() + ".expected.json");
    test::write_text_file(want, json{{"tensors", describe_as_safetensors_script(sd)}, {"metadata", meta}}.dump());
    std::string err;
    EXPECT_EQ(python("check " + path.string() + " " + want.string(), &err), 0) << err;
  }

  // read_safetensors_file refuses the file, naming it and `key`, with `detail` in the message.
  void expect_refused(const std::string& bytes, const std::string& key, const std::string& detail) {
    const auto path = (out / ("bad" + std::to_string(++bad_count) + ".safetensors")).string();
    write_bytes(path, bytes);
    expect_refused_file(path, key, detail);
  }
  void expect_refused_file(const std::string& path, const std::string& key,
                           const std::string& detail) {
    SCOPED_TRACE(key + " / " + detail);
    test::expect_error_containing<StateDictError>([&] { read_safetensors_file(path); },
                                                  {path, "key '" + key + "'", detail});
  }

  test::ScratchDir out;
  int bad_count = 0;
  static std::unique_ptr<test::ScratchDir> dir_;
  static json expected_;
};

std::unique_ptr<test::ScratchDir> SafetensorsFile::dir_;
json SafetensorsFile::expected_;

TEST_F(SafetensorsFile, ReadsEveryDtypeAndTheMetadataPythonWrote) {
  expect_matches_python("dtypes.safetensors");
  const auto sd = read_safetensors_file(fixture("dtypes.safetensors"));
  ASSERT_EQ(sd.size(), 12u);
  EXPECT_EQ(sd[3].second.scalar_type(), torch::kBFloat16);  // as stored, not widened
  EXPECT_EQ(sd[10].second.dim(), 0);                        // 0-d stays 0-d
  EXPECT_EQ(sd[11].second.sizes(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(sd[4].second[1][1].item<int64_t>(), int64_t{1} << 40);
}

TEST_F(SafetensorsFile, ReadsInByteOrderWhateverOrderTheHeaderListsThem) {
  expect_matches_python("header_order.safetensors");  // header lists c, a, b; bytes are a, b, c
  std::map<std::string, std::string> meta{{"stale", "value"}};
  read_safetensors_file(fixture("header_order.safetensors"), &meta);
  EXPECT_TRUE(meta.empty());
}

TEST_F(SafetensorsFile, ReadsTensorsAtUnalignedOffsets) {
  // An odd, unpadded header: the f32 and f64 bytes start at odd addresses, so they are copied.
  expect_matches_python("unaligned.safetensors");
}

TEST_F(SafetensorsFile, RoundTripsEveryDtypeWithMetadataAndPythonReadsIt) {
  const auto sd = every_dtype();
  const std::map<std::string, std::string> meta{{"format", "pt"}, {"hnclip.model", "{\"a\": 1}"}};
  const auto path = out / "all.safetensors";
  write_safetensors_file(path.string(), sd, meta);
  std::map<std::string, std::string> got_meta;
  const auto got = read_safetensors_file(path.string(), &got_meta);
  EXPECT_EQ(got_meta, meta);
  ASSERT_EQ(got.size(), sd.size());
  for (size_t i = 0; i < sd.size(); ++i) {
    EXPECT_EQ(got[i].first, sd[i].first);
    EXPECT_EQ(got[i].second.scalar_type(), sd[i].second.scalar_type()) << sd[i].first;
    EXPECT_TRUE(torch::equal(got[i].second, sd[i].second)) << sd[i].first;
  }
  expect_python_reads(path, sd, meta);
}

TEST_F(SafetensorsFile, LayoutIsByteForByteThePythonWriters) {
  // C++ writes, Python reads and rewrites: the same bytes (header text, padding, data).
  const auto cpp = out / "cpp.safetensors";
  const auto py = out / "py.safetensors";
  write_safetensors_file(cpp.string(), every_dtype(), {{"format", "pt"}, {"b", "2"}, {"a", "1"}});
  std::string err;
  ASSERT_EQ(python("rewrite " + cpp.string() + " " + py.string(), &err), 0) << err;
  EXPECT_EQ(file_bytes(cpp), file_bytes(py));
  // And the other way: Python's file, read and rewritten by C++.
  std::map<std::string, std::string> meta;
  const auto sd = read_safetensors_file(fixture("dtypes.safetensors"), &meta);
  const auto again = out / "again.safetensors";
  write_safetensors_file(again.string(), sd, meta);
  EXPECT_EQ(file_bytes(again), file_bytes(fixture("dtypes.safetensors")));
  // The header length is the padded JSON's; the padding is spaces.
  const auto bytes = file_bytes(cpp);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes[8], '{');
  const auto text = bytes.substr(8, n);
  EXPECT_EQ(text.find_last_not_of(' '), text.find_last_of('}'));
}

TEST_F(SafetensorsFile, TensorsAreWritableViewsOfOneMappingAndTheFileNeverChanges) {
  const auto path = out / "views.safetensors";
  write_safetensors_file(path.string(), {{"a", torch::arange(16, torch::kFloat)},
                                         {"b", torch::arange(8, torch::kFloat)}});
  const auto before = file_bytes(path);
  auto sd = read_safetensors_file(path.string());
  // Zero-copy: b's bytes follow a's in the same mapping.
  EXPECT_EQ(
      static_cast<char*>(sd[1].second.data_ptr()) - static_cast<char*>(sd[0].second.data_ptr()),
      16 * 4);
  sd[0].second.fill_(-1);  // copy-on-write: this tensor changes, the file does not
  EXPECT_EQ(sd[0].second[3].item<float>(), -1.f);
  EXPECT_EQ(file_bytes(path), before);
  EXPECT_TRUE(torch::equal(read_safetensors_file(path.string())[0].second,
                           torch::arange(16, torch::kFloat)));
  // A tensor outlives the StateDict it came in (the mapping stays while a tensor uses it).
  const auto b = sd[1].second;
  sd.clear();
  EXPECT_TRUE(torch::equal(b, torch::arange(8, torch::kFloat)));
}

// Resident bytes of this process's mappings of `file` (the Rss lines of /proc/self/smaps).
int64_t mapped_rss_bytes(const std::string& file) {
  const std::string path = fs::canonical(file).string();  // as the kernel spells it
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_mapping = false;
  int64_t total = 0;
  while (std::getline(smaps, line)) {
    const bool header = !line.empty() && line.find(':') != std::string::npos &&
                        line.find(' ') < line.find(':') && line.find('-') < line.find(' ');
    if (header) {
      in_mapping = line.size() >= path.size() &&
                   line.compare(line.size() - path.size(), path.size(), path) == 0;
    } else if (in_mapping && line.rfind("Rss:", 0) == 0) {
      total += std::stoll(line.substr(4)) * 1024;
    }
  }
  return total;
}

TEST_F(SafetensorsFile, ATensorsPagesGoBackWhenTheTensorGoes) {
  constexpr int64_t kFloats = 4 << 20;  // 16 MiB each
  const auto path = (out / "big.safetensors").string();
  write_safetensors_file(path, {{"a", torch::ones({kFloats})}, {"b", torch::ones({kFloats})}});
  auto sd = read_safetensors_file(path);
  // Mapped, not read: only the header's pages and what the kernel maps with them (fault-around,
  // or a whole 2 MiB folio of a freshly written file), far from the 32 MiB.
  EXPECT_LT(mapped_rss_bytes(path), 4 << 20);
  EXPECT_EQ(sd[0].second.sum().item<float>(), static_cast<float>(kFloats));
  EXPECT_EQ(sd[1].second.sum().item<float>(), static_cast<float>(kFloats));
  const int64_t both = mapped_rss_bytes(path);
  EXPECT_GE(both, 2 * kFloats * 4);
  sd[0].second.reset();
  const int64_t one = mapped_rss_bytes(path);
  EXPECT_LE(one, both - kFloats * 4 + 2 * 4096);  // a's pages, but for the one it shares with b
  EXPECT_GE(one, kFloats * 4);                    // b's stay while b lives
  sd.clear();
  EXPECT_EQ(mapped_rss_bytes(path), 0);  // unmapped with the last tensor
}

TEST_F(SafetensorsFile, RefusesMalformedFilesNamingTheFileAndTheKey) {
  const std::string ok_entry = R"("w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  // The valid baseline, so the refusals below are about what each one changes.
  write_bytes(out / "ok.safetensors", raw_file("{" + ok_entry + "}", 8));
  EXPECT_EQ(read_safetensors_file((out / "ok.safetensors").string()).size(), 1u);

  expect_refused("\x05\0\0\0", "header length", "fewer than the 8");
  expect_refused(le64(100) + "{}", "header length", "exceeds the 2 bytes after");
  {
    // Longer than the sane limit though the file is longer still (sparse, so cheap).
    const auto path = (out / "huge_header.safetensors").string();
    write_bytes(path, le64(kSafetensorsMaxHeaderBytes + 1) + "{}");
    fs::resize_file(path, kSafetensorsMaxHeaderBytes + 64);
    expect_refused_file(path, "header length", "exceeds the limit of 100000000");
  }
  expect_refused(raw_file("{\"w\": nope}", 0), "header", "not valid JSON");
  expect_refused(raw_file("[1, 2]", 0), "header", "is a JSON array, not an object");
  expect_refused(raw_file(R"({"w":{"shape":[2],"data_offsets":[0,8]}})", 8), "w", "has no dtype");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","data_offsets":[0,8]}})", 8), "w", "has no shape");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[2]}})", 8), "w", "has no data_offsets");
  expect_refused(raw_file(R"({"w":[1,2]})", 8), "w", "is a JSON array, not an object");
  expect_refused(raw_file(R"({"w":{"dtype":4,"shape":[2],"data_offsets":[0,8]}})", 8), "w",
                 "dtype is not a string");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":"2","data_offsets":[0,8]}})", 8), "w",
                 "shape is not an array");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", 8), "w",
                 "not a non-negative integer");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", 8), "w",
                 "not [begin, end]");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":"0,8"}})", 8), "w",
                 "not [begin, end]");
  expect_refused(raw_file(R"({"w":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}})", 8), "w",
                 "unknown dtype C64");
  expect_refused(raw_file(R"({"w":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]}})", 8), "w",
                 "unknown dtype F8_E4M3");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8), "w",
                 "is negative (-2)");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8), "w",
                 "end before they begin");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[-1,8]}})", 8), "w",
                 "is negative");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), "w",
                 "hold 8 bytes, but shape [3] of F32 needs 12");
  expect_refused(
      raw_file(R"({"w":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", 8),
      "w", "more than 2^64");
  expect_refused(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", 8), "w",
                 "reach past the data region's 8 bytes");
  expect_refused(raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                          R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                          12),
                 "b", "overlap 'a'");
  expect_refused(raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                          R"("b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})",
                          16),
                 "b", "leave a gap of 4 bytes after 'a'");
  expect_refused(raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8), "a",
                 "gap of 4 bytes after the start");
  expect_refused(raw_file("{" + ok_entry + "}", 12), "w", "trailing bytes belong to no tensor");
  expect_refused(raw_file("{" + ok_entry + "," + ok_entry + "}", 8), "w", "appears more than once");
  expect_refused(raw_file(R"({"__metadata__":["format"],)" + ok_entry + "}", 8), "__metadata__",
                 "not a string-to-string map");
  expect_refused(raw_file(R"({"__metadata__":{"format":"pt","epoch":3},)" + ok_entry + "}", 8),
                 "__metadata__", "the value of 'epoch' is a JSON number, not a string");
  const std::string bools = R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})";
  expect_refused(le64(bools.size()) + bools + std::string("\1\2", 2), "m", "BOOL element 1 is 2");
  test::expect_error_containing<StateDictError>(
      [&] { read_safetensors_file((out / "missing.safetensors").string()); },
      {(out / "missing.safetensors").string(), "no such file"});
}

// Seen with fuzz_safetensors_header's target on a crafted header (libFuzzer's 4 KB inputs nest
// too shallowly to reach it): the error message dumped the offending value, and dumping a shape
// nested 500,000 arrays deep recursed once per level until the stack overflowed. Nested values are
// now named by their type, and long ones cut.
TEST_F(SafetensorsFile, RefusesADeeplyNestedShapeWithoutDumpingIt) {
  constexpr size_t kDepth = 500'000;
  const std::string header = R"({"w":{"dtype":"F32","shape":[)" + std::string(kDepth, '[') +
                             std::string(kDepth, ']') + R"(],"data_offsets":[0,8]}})";
  const auto path = (out / "deep.safetensors").string();
  write_bytes(path, raw_file(header, 8));
  const std::string msg = test::expect_error_containing<StateDictError>(
      [&] { read_safetensors_file(path); },
      {path, "key 'w'", "a shape dimension is not a non-negative integer (a JSON array holding nested values)"});
  EXPECT_LT(msg.size(), 1000u) << msg.substr(0, 1000);
}

TEST_F(SafetensorsFile, WriterRefusesWhatItCannotWriteAndLeavesNoFile) {
  const auto path = (out / "never.safetensors").string();
  const auto refuses = [&](const StateDict& sd, const std::string& key, const std::string& detail) {
    test::expect_error_containing<StateDictError>([&] { write_safetensors_file(path, sd); },
                                                  {path, "key '" + key + "'", detail});
  };
  refuses({{"a", torch::ones({2})}, {"a", torch::ones({3})}}, "a", "duplicate key");
  refuses({{"a", torch::ones({2})}, {"c", torch::ones({2}, torch::kComplexFloat)}}, "c",
          "ComplexFloat");
  refuses({{"u", at::Tensor()}}, "u", "holds no tensor");
  refuses({{"__metadata__", torch::ones({1})}}, "__metadata__", "reserved");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(out.path()));  // no temporary left behind either
}

TEST_F(SafetensorsFile, RecognisedByContentNotByName) {
  const auto st = out / "weights.bin";
  write_safetensors_file(st.string(), every_dtype());
  EXPECT_TRUE(is_safetensors_file(st.string()));
  EXPECT_TRUE(is_safetensors_file(fixture("dtypes.safetensors")));
  write_bytes(out / "zip.safetensors", "PK\x03\x04 and more bytes of a zip");
  EXPECT_FALSE(is_safetensors_file((out / "zip.safetensors").string()));
  // N beyond the file: a safetensors file cut short, refused as one (it was taken for another
  // format and refused as "not a zip archive").
  const auto whole = test::read_text_file(fixture("dtypes.safetensors"));
  write_bytes(out / "short.safetensors", whole.substr(0, 40));
  EXPECT_TRUE(is_safetensors_file((out / "short.safetensors").string()));
  expect_refused_file((out / "short.safetensors").string(), "header length", "cut short");
  write_bytes(out / "tiny", "abc");
  EXPECT_FALSE(is_safetensors_file((out / "tiny").string()));
  write_bytes(out / "array.safetensors", le64(2) + "[]");
  EXPECT_FALSE(is_safetensors_file((out / "array.safetensors").string()));
  EXPECT_FALSE(is_safetensors_file((out / "absent.safetensors").string()));
}

}  // namespace
}  // namespace hnclip
