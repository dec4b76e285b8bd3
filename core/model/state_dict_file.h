#pragma once
// State-dict files as PyTorch writes them, read and written without Python: the interchange format
// for weights coming from (OpenAI CLIP's released models, anything `torch.save`d) and going to
// (`hnclip export`) the Python world. Free functions; safe to call from any thread (each call has
// its own file handles and tensors).

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

// Name → tensor, in file order (torch::Tensor is at::Tensor).
using StateDict = std::vector<std::pair<std::string, at::Tensor>>;

// The file is missing, not a PyTorch archive, or holds something other than tensors; the message
// names the file and what is wrong.
class StateDictError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads torch.save zip archives holding a dict or collections.OrderedDict of tensors (also when
// nested one level under "state_dict" or "model"), and TorchScript archives (torch.jit.save,
// OpenAI CLIP's released .pt): their parameters and buffers by dotted name, in module order.
// Tensors come back as stored (dtype, shape), contiguous, on the CPU, without autograd.
// Throws StateDictError naming the file and the problem (not a zip, legacy non-zip format,
// unsupported pickle opcode or global, missing record).
// `layout`, when given, says where the tensors were found, so that callers can tell an open_clip
// training checkpoint ({"epoch", "name", "state_dict", "optimizer"}) from a bare state dict.
struct StateDictFileLayout {
  bool torchscript = false;
  std::string nested_under;                 // "" (the top level), "state_dict" or "model"
  std::vector<std::string> top_level_keys;  // the string keys of the pickled top-level dict
};
StateDict read_state_dict_file(const std::string& path, StateDictFileLayout* layout = nullptr);

// Writes a torch.save-compatible zip archive (a protocol-2 pickle of a collections.OrderedDict
// whose tensors are rebuilt by torch._utils._rebuild_tensor_v2, one `data/N` storage record per
// tensor, and the `version` record) that Python's `torch.load` reads. Tensors are written as they
// are (dtype, shape), from the CPU. Atomic: a temporary file renamed over `path`. Throws
// StateDictError for duplicate names, unsupported dtypes and I/O failures.
void write_state_dict_file(const std::string& path, const StateDict& tensors);

}  // namespace hnclip
