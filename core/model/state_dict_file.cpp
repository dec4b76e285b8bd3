// INTERIM SHIM until wt-archive's state_dict_file lands (take theirs on merge).
#include "model/state_dict_file.h"

#include <torch/script.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace hnclip {

StateDict read_state_dict_file(const std::string& path) {
  if (!std::filesystem::exists(path)) throw StateDictError(path + ": no such file");
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  StateDict out;
  try {
    auto v = torch::pickle_load(bytes);
    if (v.isGenericDict()) {
      for (const auto& e : v.toGenericDict()) {
        if (e.value().isTensor()) out.emplace_back(e.key().toStringRef(), e.value().toTensor());
      }
      return out;
    }
  } catch (const c10::Error&) {
  }
  try {
    auto m = torch::jit::load(path);
    for (const auto& p : m.named_parameters()) out.emplace_back(p.name, p.value);
    for (const auto& b : m.named_buffers()) out.emplace_back(b.name, b.value);
    for (const auto& a : m.named_attributes(false)) {
      if (a.value.isInt()) out.emplace_back(a.name, torch::tensor(a.value.toInt()));
    }
    return out;
  } catch (const c10::Error& e) {
    throw StateDictError(path + ": not a readable state dict");
  }
}

void write_state_dict_file(const std::string& path, const StateDict& sd) {
  c10::Dict<std::string, torch::Tensor> d;
  for (const auto& [k, v] : sd) d.insert(k, v);
  const auto bytes = torch::pickle_save(c10::IValue(d));
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace hnclip
