// Test helper: builds GGUF files byte by byte (little-endian, the layout of ggml's docs/gguf.md),
// so tests control every field, including broken ones.
//
//   keel::testing::GgufWriter w;
//   w.kv_string("general.architecture", "llama").kv_u32("llama.context_length", 4096);
//   w.tensor("output.weight", {4096, 32000}, 12);  // Q4_K
//   temp.write("m.gguf", w.bytes());
//
// Thread-safety: a value; one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace keel::testing {

class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) : version_(version) {}

  GgufWriter& kv_string(std::string_view key, std::string_view value) {
    key_(key, 8);
    str(kvs_, value);
    return *this;
  }
  GgufWriter& kv_u32(std::string_view key, uint32_t v) {
    key_(key, 4);
    le(kvs_, v, 4);
    return *this;
  }
  GgufWriter& kv_i32(std::string_view key, int32_t v) {
    key_(key, 5);
    le(kvs_, static_cast<uint32_t>(v), 4);
    return *this;
  }
  GgufWriter& kv_u64(std::string_view key, uint64_t v) {
    key_(key, 10);
    le(kvs_, v, 8);
    return *this;
  }
  GgufWriter& kv_f32(std::string_view key, uint32_t bits) {
    key_(key, 6);
    le(kvs_, bits, 4);
    return *this;
  }
  GgufWriter& kv_bool(std::string_view key, bool v) {
    key_(key, 7);
    kvs_.push_back(v ? '\1' : '\0');
    return *this;
  }
  GgufWriter& kv_string_array(std::string_view key, const std::vector<std::string>& values) {
    key_(key, 9);
    le(kvs_, 8, 4);
    le(kvs_, values.size(), 8);
    for (const auto& v : values) str(kvs_, v);
    return *this;
  }
  GgufWriter& kv_u32_array(std::string_view key, const std::vector<uint32_t>& values) {
    key_(key, 9);
    le(kvs_, 4, 4);
    le(kvs_, values.size(), 8);
    for (uint32_t v : values) le(kvs_, v, 4);
    return *this;
  }
  // An array of arrays of u8 (nesting is allowed by the format).
  GgufWriter& kv_nested_array(std::string_view key, const std::vector<std::string>& inner) {
    key_(key, 9);
    le(kvs_, 9, 4);
    le(kvs_, inner.size(), 8);
    for (const auto& bytes : inner) {
      le(kvs_, 0, 4);
      le(kvs_, bytes.size(), 8);
      kvs_ += bytes;
    }
    return *this;
  }
  // Raw bytes appended to the key-value section (for broken entries); counts as one entry.
  GgufWriter& kv_raw(std::string_view bytes) {
    kvs_ += bytes;
    ++kv_count_;
    return *this;
  }

  GgufWriter& tensor(std::string_view name, const std::vector<uint64_t>& dims, uint32_t type) {
    str(tensors_, name);
    le(tensors_, dims.size(), 4);
    for (uint64_t d : dims) le(tensors_, d, 8);
    le(tensors_, type, 4);
    le(tensors_, tensor_offset_, 8);
    tensor_offset_ += 32;
    ++tensor_count_;
    return *this;
  }

  // Replace the counts written in the header (to declare absurd ones).
  std::optional<uint64_t> tensor_count_override, kv_count_override;

  // The whole file: header, key-values, tensor infos, then `data_bytes` of zero "tensor data".
  std::string bytes(size_t data_bytes = 64) const {
    std::string out = "GGUF";
    le(out, version_, 4);
    le(out, tensor_count_override.value_or(tensor_count_), 8);
    le(out, kv_count_override.value_or(kv_count_), 8);
    out += kvs_;
    out += tensors_;
    out.append(data_bytes, '\0');
    return out;
  }
  // Size of the header part (everything before the tensor data).
  size_t header_size() const { return 24 + kvs_.size() + tensors_.size(); }

  static void le(std::string& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  static void str(std::string& out, std::string_view s) {
    le(out, s.size(), 8);
    out += s;
  }

 private:
  void key_(std::string_view key, uint32_t type) {
    str(kvs_, key);
    le(kvs_, type, 4);
    ++kv_count_;
  }

  uint32_t version_;
  std::string kvs_, tensors_;
  uint64_t kv_count_ = 0, tensor_count_ = 0, tensor_offset_ = 0;
};

}  // namespace keel::testing
