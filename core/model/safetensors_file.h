#pragma once
// safetensors files (Hugging Face's format: an 8-byte little-endian header length N, N bytes of
// JSON header, then the tensor bytes), read and written without Python: the format most CLIP
// weights are published in, and one `hnclip export` writes. Reading maps the file instead of
// reading it, so loading a model costs about the model's own memory, not twice that. Free
// functions; safe to call from any thread (each call has its own file and mapping).

#include <cstdint>
#include <map>
#include <string>

#include "model/state_dict_file.h"

namespace hnclip {

// The largest header accepted, as the reference implementation's MAX_HEADER_SIZE.
constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// True when the file starts like a safetensors file: an 8-byte little-endian header length N with
// 2 <= N <= kSafetensorsMaxHeaderBytes, then '{' (N past the end of the file too: a truncated
// file is a safetensors file that read_safetensors_file refuses as cut short). Decided by content,
// not by the extension; false (never a throw) for a missing or unreadable file.
bool is_safetensors_file(const std::string& path);

// The tensors in file order (by their data_offsets), dtype and shape as stored: F64 F32 F16 BF16
// I64 I32 I16 I8 U8 BOOL. Each tensor is a zero-copy view of a private (copy-on-write) mapping of
// the file: writing into a tensor changes that tensor, never the file. Its bytes become resident
// when first touched; when the last reference to a tensor goes, the pages only it covers are
// released (so copying tensors one by one into a model never holds the whole file), and the
// mapping is unmapped once no tensor is left. Tensors whose bytes are not aligned to their element
// size (possible in files written without the reference writer's dtype ordering) are copied
// instead. `metadata`, when given, receives __metadata__ (empty when absent). The header is checked
// in full before any tensor is made, with the reference implementation's rules: entries with dtype,
// shape and data_offsets [begin, end]; end - begin = numel x element size; sorted by offset the
// tensors cover the data region exactly, without overlap or gap; and
// __metadata__ a string-to-string map. Throws StateDictError naming the file and the key (the
// tensor name, or "header length" / "__metadata__") for anything else.
StateDict read_safetensors_file(const std::string& path,
                                std::map<std::string, std::string>* metadata = nullptr);

// Writes `tensors` in the given order as a safetensors file that the reference reader accepts:
// a compact JSON header (__metadata__ first when not empty, then the tensors, fields in the order
// dtype, shape, data_offsets) padded with spaces to a multiple of 8 bytes as the reference writer
// does, then each tensor's bytes, contiguous and little-endian. Atomic: a temporary file renamed
// over `path`. Throws StateDictError naming the file and the key for duplicate names, undefined
// tensors, dtypes safetensors has no name for here, and I/O failures.
void write_safetensors_file(const std::string& path, const StateDict& tensors,
                            const std::map<std::string, std::string>& metadata = {});

}  // namespace hnclip
