// keel/gguf_info.hpp — what a GGUF model file says about itself, read from its header alone.
//
// GGUF (ggml's model format, docs/gguf.md in ggml) starts with a header: magic "GGUF", version,
// tensor and key-value counts, the key-value metadata, then one info record per tensor. This reader
// walks that header once, streaming, and never touches the tensor data, so listing a folder of
// multi-gigabyte models is quick and needs no inference library.
//
//   keel::Result<keel::GgufInfo> info = keel::read_gguf_info("/models/llama-3.2-1b.Q4_K_M.gguf");
//   if (info.ok()) std::cout << info->architecture << " " << info->quantization;  // "llama Q4_K_M"
//
// Every length and count read from the file is bounded before it is used, so a corrupt or hostile
// file cannot make the reader allocate much memory or read past the file's end.
//
// Thread-safety: free functions; GgufInfo is a value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel {

struct GgufInfo {
  uint32_t version = 0;          // GGUF version: 2 or 3
  uint64_t tensor_count = 0;     // tensors declared in the header
  uint64_t kv_count = 0;         // metadata key-value pairs declared in the header
  std::string architecture;      // general.architecture ("llama", "qwen2", ...); "" when absent
  std::string name;              // general.name; "" when absent
  uint64_t context_length = 0;   // <architecture>.context_length in tokens; 0 when absent
  uint64_t parameter_count = 0;  // sum of the element counts of every tensor
  // general.file_type as llama.cpp names it ("Q4_K_M", "F16", ...); without a known file type, the
  // type holding the most tensor elements ("Q8_0", "F32", ...); "" when there are no tensors.
  std::string quantization;
  bool has_chat_template = false;  // tokenizer.chat_template is present
  std::string chat_template;       // its text (the Jinja template)
  uint64_t vocab_size = 0;         // length of tokenizer.ggml.tokens; 0 when absent
  uint64_t file_size = 0;          // bytes
};

// Reads the header of the GGUF file at `path`.
// Errors (each naming the file): NotFound when it cannot be opened; InvalidArgument when it is not
// GGUF (bad magic), has an unsupported version (anything but 2 and 3, or big-endian), is truncated
// ("truncated at byte N") or declares an absurd count or length (a corrupt file).
Result<GgufInfo> read_gguf_info(const std::filesystem::path& path);

// llama.cpp's name of a general.file_type value ("Q4_K_M" for 15); "" when unknown.
std::string_view gguf_file_type_name(uint32_t file_type);
// ggml's name of a tensor type ("Q4_K" for 12); "" when unknown.
std::string_view gguf_tensor_type_name(uint32_t type);

}  // namespace keel
