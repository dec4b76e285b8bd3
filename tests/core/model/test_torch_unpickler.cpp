// Tests core/model/torch_unpickler on hand-written pickle programs: the inputs the fuzz target
// (tests/fuzz/fuzz_torch_unpickler.cpp) found mishandled, each refused with an UnpicklingError
// naming the opcode's byte offset, and a program like torch.save's still read.

#include "model/torch_unpickler.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>

#include "support/error_check.h"

namespace hnclip {
namespace {

using namespace std::string_literals;  // the programs hold NUL bytes

// Serves every storage record as `bytes` zero bytes.
StorageRecordLoader records_of(size_t bytes) {
  auto data = std::shared_ptr<const char[]>(new char[bytes + 1]());
  return [data, bytes](const std::string&) {
    return std::make_pair(std::shared_ptr<const void>(data, data.get()), bytes);
  };
}

PickleValuePtr unpickle(const std::string& program, size_t record_bytes = 0) {
  TorchUnpickler unpickler(program.data(), program.size(), records_of(record_bytes));
  return unpickler.load();
}

// OrderedDict() ; 'w' -> _rebuild_tensor_v2(('storage', FloatStorage, '0', 'cpu', 2), 0, size,
// stride, False, OrderedDict()), size and stride given as pickled tuples.
std::string one_tensor_program(const std::string& size, const std::string& stride) {
  return "\x80\x02"s + "ccollections\nOrderedDict\n)R"s + "X\x01\x00\x00\x00w"s +
         "ctorch._utils\n_rebuild_tensor_v2\n("s +
         "(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x00"s + "0X\x03\x00\x00\x00"s +
         "cpuK\x02tQ"s + "K\x00"s + size + stride + "\x89"s + "ccollections\nOrderedDict\n)RtRs."s;
}

// LONG1 of 8 bytes: a pickled int64.
std::string pickled_int(int64_t v) {
  std::string out = "\x8a\x08"s;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return out;
}

TEST(TorchUnpickler, ReadsAnOrderedDictOfOneTensor) {
  const auto top = unpickle(one_tensor_program("K\x02\x85"s, "K\x01\x85"s), 8);
  ASSERT_EQ(top->kind, PickleValue::Kind::Dict);
  const auto w = top->get("w");
  ASSERT_TRUE(w);
  ASSERT_EQ(w->kind, PickleValue::Kind::Tensor);
  EXPECT_EQ(w->tensor.sizes(), (std::vector<int64_t>{2}));
}

// Found by fuzz_torch_unpickler (LeakSanitizer): a dict or list inserted into itself made a cycle
// of shared_ptrs that was never freed. A cyclic result is refused at STOP, and every container
// made is emptied when the load fails (so the cycle is broken).
TEST(TorchUnpickler, RefusesADictHoldingItself) {
  // {} DUP DUP SETITEM: d[d] = d
  test::expect_error_containing<UnpicklingError>([] { unpickle("\x80\x02}22s."s); },
                                                 {"pickle at byte 6", "holds itself"});
}

TEST(TorchUnpickler, RefusesAListHoldingItselfThroughATuple) {
  // [] MEMOIZE ; (memo[0],) ; APPEND: l.append((l,))
  test::expect_error_containing<UnpicklingError>([] { unpickle("]q\x00h\x00\x85"s + "a."s); },
                                                 {"pickle at byte 7", "holds itself"});
}

// A list appended to itself and popped is garbage the result does not reach: emptied, so freed
// (the asan preset's LeakSanitizer fails this test otherwise).
TEST(TorchUnpickler, FreesACyclicValueTheResultDoesNotReach) {
  const auto top = unpickle("]q\x00h\x00"s + "a0}."s);
  EXPECT_EQ(top->kind, PickleValue::Kind::Dict);
}

// A million nested lists: refused past 1000 levels, and freed without recursing a million deep
// (shared_ptr destructors of a chain recurse once per level).
TEST(TorchUnpickler, RefusesDeepNestingAndFreesItWithoutRecursion) {
  constexpr size_t kDepth = 1'000'000;
  const std::string program = std::string(kDepth, ']') + std::string(kDepth - 1, 'a') + ".";
  test::expect_error_containing<UnpicklingError>([&] { unpickle(program); }, {"nested deeper than 1000"});
}

// Seen with fuzz_torch_unpickler (UBSan, signed overflow) on inputs made by hand from reading the
// bounds check: sizes whose product wrapped to 0 passed it, and a stride whose reach wrapped
// negative let the view read past its storage.
TEST(TorchUnpickler, RefusesSizesWhoseElementCountOverflows) {
  const std::string size = "("s + pickled_int(int64_t{1} << 62) + "K\x04t"s;
  test::expect_error_containing<UnpicklingError>(
      [&] { unpickle(one_tensor_program(size, "(K\x00K\x00t"s), 8); }, {"overflow 64 bits"});
}

TEST(TorchUnpickler, RefusesAStrideWhoseReachOverflows) {
  test::expect_error_containing<UnpicklingError>(
      [] { unpickle(one_tensor_program("K\x03\x85"s, "("s + pickled_int(int64_t{1} << 62) + "t"s), 8); },
      {"overflow 64 bits"});
}

// A zero-stride view claiming 2^40 elements of a 2-element storage: its contiguous copy would
// need 4 TiB, so it is refused before anything is allocated.
TEST(TorchUnpickler, RefusesABroadcastViewLargerThanItsStorage) {
  test::expect_error_containing<UnpicklingError>(
      [] { unpickle(one_tensor_program("("s + pickled_int(int64_t{1} << 40) + "t"s, "K\x00\x85"s), 8); },
      {"broadcast view", "storage of 2"});
}

TEST(TorchUnpickler, ReadsASharedValueTwiceWithoutACycle) {
  // d = {}; d['a'] = t; d['b'] = t with the same tuple t (a DAG, not a cycle).
  const auto top = unpickle("}(X\x01\x00\x00\x00"s + "a)q\x00X\x01\x00\x00\x00"s + "bh\x00u."s);
  ASSERT_EQ(top->kind, PickleValue::Kind::Dict);
  EXPECT_EQ(top->get("a"), top->get("b"));
}

}  // namespace
}  // namespace hnclip
