#pragma once
// INTERIM SHIM until wt-archive's state_dict_file lands (same API; take theirs on merge).
// Reads torch.save'd plain dicts (torch::pickle_load) and TorchScript archives (torch::jit::load).

#include <ATen/core/Tensor.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace hnclip {

using StateDict = std::vector<std::pair<std::string, torch::Tensor>>;

class StateDictError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

StateDict read_state_dict_file(const std::string& path);
void write_state_dict_file(const std::string& path, const StateDict& sd);

}  // namespace hnclip
