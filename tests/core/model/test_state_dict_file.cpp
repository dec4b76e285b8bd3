// Tests core/model/state_dict_file against real PyTorch: fixtures written by torch.save and
// torch.jit.save (tests/core/reference/state_dict_files.py, run at test time) are read back with
// every dtype, shape, value and key order checked; broken files are refused with the file named;
// files the C++ writer makes are read by Python's torch.load and checked entry by entry.

#include "model/state_dict_file.h"

#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;

const std::string kStateDictScript =
    std::string(HNCLIP_TEST_SOURCE_DIR) + "/core/reference/state_dict_files.py";

// Python's dtype names (str(torch.float32) without "torch.").
std::string python_dtype_name(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat:
      return "float32";
    case c10::kHalf:
      return "float16";
    case c10::kBFloat16:
      return "bfloat16";
    case c10::kDouble:
      return "float64";
    case c10::kLong:
      return "int64";
    case c10::kInt:
      return "int32";
    case c10::kByte:
      return "uint8";
    case c10::kBool:
      return "bool";
    default:
      return c10::toString(t);
  }
}

nlohmann::json describe_as_state_dict_script(const StateDict& sd) {
  auto out = nlohmann::json::array();
  for (const auto& [key, t] : sd) {
    auto flat = t.reshape({-1}).to(torch::kDouble).contiguous();
    std::vector<double> values(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel());
    out.push_back({{"key", key},
                   {"dtype", python_dtype_name(t.scalar_type())},
                   {"shape", t.sizes().vec()},
                   {"values", values}});
  }
  return out;
}

// The fixtures are made once per test program: importing torch in Python takes seconds.
class StateDictFile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::ScratchDir>();
    std::string out, err;
    const int code = test::run_command(
        std::string(HNCLIP_REFERENCE_PYTHON) + " " + kStateDictScript + " make " + dir_->path().string(),
        &out, &err);
    ASSERT_EQ(code, 0) << err;
    expected_ = nlohmann::json::parse(test::read_text_file(dir_->path() / "expected.json"));
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static std::string fixture(const std::string& name) { return (dir_->path() / name).string(); }

  // Every entry equal to what Python saw: key order, dtype, shape and every value.
  static void expect_matches_python(const std::string& name) {
    SCOPED_TRACE(name);
    const auto sd = read_state_dict_file(fixture(name));
    const auto got = describe_as_state_dict_script(sd);
    const auto& want = expected_.at(name);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i]["key"], want[i]["key"]);
      EXPECT_EQ(got[i]["dtype"], want[i]["dtype"]) << want[i]["key"];
      EXPECT_EQ(got[i]["shape"], want[i]["shape"]) << want[i]["key"];
      EXPECT_EQ(got[i]["values"], want[i]["values"]) << want[i]["key"];
    }
    for (const auto& [key, t] : sd) {
      EXPECT_TRUE(t.is_contiguous()) << key;
      EXPECT_FALSE(t.requires_grad()) << key;
      EXPECT_TRUE(t.device().is_cpu()) << key;
    }
  }

  static void expect_refused(const std::string& name, const std::string& needle) {
    SCOPED_TRACE(name);
    try {
      read_state_dict_file(fixture(name));
      ADD_FAILURE() << "no error";
    } catch (const StateDictError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(fixture(name)), std::string::npos) << msg;
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
  }

  static std::unique_ptr<test::ScratchDir> dir_;
  static nlohmann::json expected_;
};

std::unique_ptr<test::ScratchDir> StateDictFile::dir_;
nlohmann::json StateDictFile::expected_;

TEST_F(StateDictFile, ReadsEveryDtypeAsStored) {
  expect_matches_python("dtypes.pt");
  const auto sd = read_state_dict_file(fixture("dtypes.pt"));
  EXPECT_EQ(sd[1].second.scalar_type(), torch::kHalf);  // kept fp16, not widened
  EXPECT_EQ(sd[8].second.dim(), 0);                     // 0-d stays 0-d
  EXPECT_EQ(sd[4].second[1][1].item<int64_t>(), int64_t{1} << 40);
}

TEST_F(StateDictFile, ReadsViewsWithOffsetsAndStridesAsContiguousCopies) {
  expect_matches_python("views.pt");
  const auto sd = read_state_dict_file(fixture("views.pt"));
  // "a" = t[:, 1:3] of arange(20).view(4, 5): offset 1, strides (5, 1).
  EXPECT_TRUE(torch::equal(sd[0].second,
                           torch::tensor({{1.f, 2.f}, {6.f, 7.f}, {11.f, 12.f}, {16.f, 17.f}})));
  // Views of one storage become independent tensors.
  sd[0].second.fill_(-1);
  EXPECT_EQ(sd[3].second[0][1].item<float>(), 1.f);
}

TEST_F(StateDictFile, ReadsModuleStateDictOrderedDict) { expect_matches_python("module.pt"); }

TEST_F(StateDictFile, ReadsPlainDict) { expect_matches_python("plain.pt"); }

TEST_F(StateDictFile, ReadsDictNestedUnderStateDict) { expect_matches_python("nested.pt"); }

TEST_F(StateDictFile, ReadsSavedParameters) { expect_matches_python("parameter.pt"); }

TEST_F(StateDictFile, ReadsTorchScriptParametersAndBuffersSkippingOtherAttributes) {
  expect_matches_python("script.pt");
  const auto sd = read_state_dict_file(fixture("script.pt"));
  for (const auto& [key, t] : sd) EXPECT_EQ(key.find("input_resolution"), std::string::npos);
}

TEST_F(StateDictFile, RefusesBrokenFilesNamingThem) {
  expect_refused("notzip.pt", "not a zip archive");
  expect_refused("truncated.pt", "the file is cut short");  // was "unreadable zip archive"
  expect_refused("legacy.pt", "legacy (non-zip) torch.save format");
  expect_refused("device.pt", "unsupported global torch.device");
  expect_refused("list.pt", "holds a list, not a dict of tensors");
  expect_refused("missing.pt", "no such file");
  expect_refused("missing_record.pt", "missing record data/1");
  expect_refused("protocol0.pt", "unsupported pickle opcode 0x64");
  // Refused by its claim, before any allocation (it used to fail as a bare bad_alloc).
  expect_refused("expanded.pt",
                 "tensor of 40000000000 elements is a broadcast view of a storage of 1");
}

// An empty file and a run database given where a model goes were both refused as "not a zip
// archive (neither torch.save nor torch.jit.save output)", which says neither.
TEST_F(StateDictFile, AnEmptyFileAndAnSqliteDatabaseAreNamedAsSuch) {
  test::ScratchDir dir;
  const auto empty = (dir / "empty.pt").string();
  std::ofstream(empty, std::ios::binary).close();
  const auto database = (dir / "runs.db").string();
  {
    std::ofstream out(database, std::ios::binary);
    const char header[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                             'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
    out.write(header, sizeof header);
    out << std::string(4080, '\0');  // the rest of a 4096-byte first page
  }
  const auto refusal = [](const std::string& path) -> std::string {
    try {
      read_state_dict_file(path);
    } catch (const StateDictError& e) {
      return e.what();
    }
    return "no error";
  };
  const auto on_empty = refusal(empty);
  EXPECT_NE(on_empty.find("state dict file " + empty + ": the file is empty (0 bytes)"),
            std::string::npos)
      << on_empty;
  const auto on_database = refusal(database);
  EXPECT_NE(on_database.find("state dict file " + database + ": an SQLite database"),
            std::string::npos)
      << on_database;
  EXPECT_NE(on_database.find("--db"), std::string::npos) << on_database;
}

TEST_F(StateDictFile, WriterOutputLoadsInPythonTorchLoad) {
  test::ScratchDir dir;
  torch::manual_seed(3);
  auto base = torch::arange(12, torch::kFloat).view({3, 4});
  StateDict sd{
      {"visual.conv1.weight", torch::randn({4, 3, 2, 2})},
      {"half", torch::randn({2, 3}).to(torch::kHalf)},
      {"bf16", torch::randn({5}).to(torch::kBFloat16)},
      {"f64", torch::randn({2}, torch::kDouble)},
      {"ids", torch::tensor({int64_t{-4}, int64_t{1} << 40, int64_t{9}})},
      {"i32", torch::tensor({-7, 8}, torch::kInt)},
      {"bytes", torch::tensor({0, 200, 255}, torch::kByte)},
      {"mask", torch::tensor({true, false, true})},
      {"logit_scale", torch::tensor(4.6052f)},
      {"transposed", base.t()},  // non-contiguous input
      {"offset_row", base[1]},   // view with a storage offset
      {"empty", torch::zeros({0, 3})},
  };
  const auto path = (dir / "sub" / "out.pt").string();
  write_state_dict_file(path, sd);
  EXPECT_FALSE(fs::exists(path + ".tmp-" + std::to_string(::getpid())));
  test::write_text_file(dir / "expected.json", describe_as_state_dict_script(sd).dump());

  std::string out, err;
  const int code = test::run_command(std::string(HNCLIP_REFERENCE_PYTHON) + " " + kStateDictScript +
                                         " check " + path + " " + (dir / "expected.json").string(),
                                     &out, &err);
  EXPECT_EQ(code, 0) << out << err;
  EXPECT_NE(out.find("ok 12 tensors"), std::string::npos) << out;

  // And the C++ reader reads its own file back unchanged.
  const auto back = read_state_dict_file(path);
  EXPECT_EQ(describe_as_state_dict_script(back), describe_as_state_dict_script(sd));
}

TEST_F(StateDictFile, WriterRefusesDuplicateKeysAndLeavesNoFile) {
  test::ScratchDir dir;
  const auto path = (dir / "dup.pt").string();
  try {
    write_state_dict_file(path, {{"a", torch::ones(1)}, {"a", torch::zeros(1)}});
    ADD_FAILURE() << "no error";
  } catch (const StateDictError& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate key a"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(StateDictFile, WriterReplacesAnExistingFile) {
  test::ScratchDir dir;
  const auto path = (dir / "w.pt").string();
  write_state_dict_file(path, {{"a", torch::ones(2)}});
  write_state_dict_file(path, {{"b", torch::full({3}, 2.0)}});
  const auto sd = read_state_dict_file(path);
  ASSERT_EQ(sd.size(), 1u);
  EXPECT_EQ(sd[0].first, "b");
  EXPECT_TRUE(torch::equal(sd[0].second, torch::full({3}, 2.0)));
}

}  // namespace
}  // namespace hnclip
