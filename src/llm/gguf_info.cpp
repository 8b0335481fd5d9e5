// The GGUF header reader (see keel/gguf_info.hpp). Layout, all little-endian:
//   "GGUF" u32 version, u64 tensor_count, u64 kv_count,
//   kv_count × (string key, u32 value_type, value),
//   tensor_count × (string name, u32 n_dims, n_dims × u64 dim, u32 ggml_type, u64 offset),
// where a string is u64 length + bytes and an array is u32 element type + u64 count + elements.
#include "keel/gguf_info.hpp"

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace keel {
namespace {

// Bounds that no real model comes near; beyond them the file is corrupt, and honouring them could
// make the reader allocate or loop without end.
constexpr uint64_t kMaxStringBytes = uint64_t{1} << 20;   // 1 MiB (chat templates are ~10 KiB)
constexpr uint64_t kMaxArrayLength = uint64_t{1} << 31;
constexpr uint64_t kMaxTensors = uint64_t{1} << 24;
constexpr uint64_t kMaxKeyValues = uint64_t{1} << 20;
constexpr uint32_t kMaxDims = 4;          // GGML_MAX_DIMS
constexpr int kMaxArrayNesting = 4;

enum ValueType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

// Size of a fixed-size value type; 0 for strings, arrays and unknown types.
uint64_t fixed_size(uint32_t type) {
  switch (type) {
    case kU8: case kI8: case kBool: return 1;
    case kU16: case kI16: return 2;
    case kU32: case kI32: case kF32: return 4;
    case kU64: case kI64: case kF64: return 8;
    default: return 0;
  }
}

// A forward-only reader over the file that turns every short read into a "truncated" error naming
// the offset, and every implausible length into a "corrupt" one.
class HeaderReader {
 public:
  HeaderReader(std::ifstream& in, std::string file, uint64_t size) : in_(in), file_(std::move(file)), size_(size) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return size_ - pos_; }

  Status truncated(std::string_view what, uint64_t at) const {
    std::string m = "'" + file_ + "' is truncated at byte ";
    m.append(std::to_string(size_)).append(" (reading ").append(what).append(" at byte ");
    m.append(std::to_string(at)).append("): the file is incomplete or damaged; download it again");
    return Status::InvalidArgument(std::move(m));
  }

  Status corrupt(std::string_view what) const {
    std::string m = "'" + file_ + "' is not a valid GGUF file: ";
    m.append(what).append("; the file is damaged, download it again");
    return Status::InvalidArgument(std::move(m));
  }

  Status read(void* out, uint64_t n, std::string_view what) {
    if (n > remaining()) return truncated(what, pos_);
    in_.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
    if (!in_) return truncated(what, pos_);
    pos_ += n;
    return Status::Ok();
  }

  Status skip(uint64_t n, std::string_view what) {
    if (n > remaining()) return truncated(what, pos_);
    // ignore() reads through the stream's buffer; a seek would discard it, and a vocabulary is
    // ~100k short strings to skip.
    if (n < (uint64_t{1} << 20)) in_.ignore(static_cast<std::streamsize>(n));
    else in_.seekg(static_cast<std::streamoff>(n), std::ios::cur);
    if (!in_) return truncated(what, pos_);
    pos_ += n;
    return Status::Ok();
  }

  Result<uint32_t> u32(std::string_view what) {
    std::array<unsigned char, 4> b{};
    KEEL_TRY(read(b.data(), b.size(), what));
    return uint32_t{b[0]} | (uint32_t{b[1]} << 8) | (uint32_t{b[2]} << 16) | (uint32_t{b[3]} << 24);
  }

  Result<uint64_t> u64(std::string_view what) {
    std::array<unsigned char, 8> b{};
    KEEL_TRY(read(b.data(), b.size(), what));
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | b[static_cast<size_t>(i)];
    return v;
  }

  // The length of a string, checked against the limit and the bytes left.
  Result<uint64_t> string_length(std::string_view what) {
    const uint64_t at = pos_;
    KEEL_ASSIGN_OR_RETURN(uint64_t n, u64(what));
    if (n > kMaxStringBytes) {
      std::string m = "the ";
      m.append(what).append(" at byte ").append(std::to_string(at)).append(" claims ");
      m.append(std::to_string(n)).append(" bytes, over the 1 MiB limit (an absurd length)");
      return corrupt(m);
    }
    if (n > remaining()) return truncated(what, at);
    return n;
  }

  Result<std::string> string(std::string_view what) {
    KEEL_ASSIGN_OR_RETURN(uint64_t n, string_length(what));
    std::string s(n, '\0');
    KEEL_TRY(read(s.data(), n, what));
    return s;
  }

  Status skip_string(std::string_view what) {
    KEEL_ASSIGN_OR_RETURN(uint64_t n, string_length(what));
    return skip(n, what);
  }

 private:
  std::ifstream& in_;
  std::string file_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

// What the key-value section contributes, gathered before the architecture is known.
struct Metadata {
  std::string architecture, name;
  std::map<std::string, uint64_t> context_lengths;  // "<arch>.context_length" → value
  std::optional<uint32_t> file_type;
  bool chat_template = false;
  std::string chat_template_text;
  uint64_t vocab_size = 0;
};

// A fixed-size value as an unsigned integer; nullopt (after reading past it) for floats and
// negative numbers, which mean nothing for the counts this is used for.
Result<std::optional<uint64_t>> read_integer(HeaderReader& r, uint32_t type, const std::string& what) {
  const uint64_t size = fixed_size(type);
  std::array<unsigned char, 8> b{};
  KEEL_TRY(r.read(b.data(), size, what));
  if (type == kF32 || type == kF64 || size == 0) return std::optional<uint64_t>();
  uint64_t v = 0;
  for (uint64_t i = size; i-- > 0;) v = (v << 8) | b[i];
  const bool is_signed = type == kI8 || type == kI16 || type == kI32 || type == kI64;
  if (is_signed && (b[size - 1] & 0x80)) return std::optional<uint64_t>();
  return std::optional<uint64_t>(v);
}

Status skip_value(HeaderReader& r, uint32_t type, const std::string& key, int depth);

// An array's contents, skipped; returns its length.
Result<uint64_t> skip_array(HeaderReader& r, const std::string& key, int depth) {
  if (depth > kMaxArrayNesting) return r.corrupt("the value of '" + key + "' nests arrays too deeply");
  KEEL_ASSIGN_OR_RETURN(uint32_t elem_type, r.u32("the element type of '" + key + "'"));
  const uint64_t at = r.pos();
  KEEL_ASSIGN_OR_RETURN(uint64_t n, r.u64("the length of '" + key + "'"));
  if (n > kMaxArrayLength) {
    return r.corrupt("the array '" + key + "' at byte " + std::to_string(at) + " claims " + std::to_string(n) +
                     " elements (an absurd count)");
  }
  const uint64_t size = fixed_size(elem_type);
  if (size > 0) {
    if (n > r.remaining() / size) return r.truncated("the elements of '" + key + "'", r.pos());
    KEEL_TRY(r.skip(n * size, "the elements of '" + key + "'"));
    return n;
  }
  if (elem_type != kString && elem_type != kArray) {
    return r.corrupt("the array '" + key + "' has elements of unknown type " + std::to_string(elem_type));
  }
  // Every string or array element takes at least 8 bytes: a cheap check before a long loop.
  if (n > r.remaining() / 8) return r.truncated("the elements of '" + key + "'", r.pos());
  for (uint64_t i = 0; i < n; ++i) KEEL_TRY(skip_value(r, elem_type, key, depth + 1));
  return n;
}

Status skip_value(HeaderReader& r, uint32_t type, const std::string& key, int depth) {
  if (type == kString) return r.skip_string("a string in '" + key + "'");
  if (type == kArray) return skip_array(r, key, depth).status();
  const uint64_t size = fixed_size(type);
  if (size == 0) return r.corrupt("the value of '" + key + "' has unknown type " + std::to_string(type));
  return r.skip(size, "the value of '" + key + "'");
}

Status read_key_value(HeaderReader& r, Metadata& meta) {
  KEEL_ASSIGN_OR_RETURN(std::string key, r.string("a metadata key"));
  KEEL_ASSIGN_OR_RETURN(uint32_t type, r.u32("the type of '" + key + "'"));
  const std::string what = "the value of '" + key + "'";
  if (type == kString && (key == "general.architecture" || key == "general.name")) {
    KEEL_ASSIGN_OR_RETURN(std::string value, r.string(what));
    (key == "general.name" ? meta.name : meta.architecture) = std::move(value);
    return Status::Ok();
  }
  if (key == "tokenizer.chat_template") meta.chat_template = true;
  if (key == "tokenizer.chat_template" && type == kString) {
    KEEL_ASSIGN_OR_RETURN(meta.chat_template_text, r.string(what));
    return Status::Ok();
  }
  if (type == kArray) {
    KEEL_ASSIGN_OR_RETURN(uint64_t n, skip_array(r, key, 1));
    if (key == "tokenizer.ggml.tokens") meta.vocab_size = n;
    return Status::Ok();
  }
  constexpr std::string_view kContext = ".context_length";
  const bool context = key.size() > kContext.size() && key.ends_with(kContext);
  if (fixed_size(type) > 0 && (context || key == "general.file_type")) {
    KEEL_ASSIGN_OR_RETURN(std::optional<uint64_t> v, read_integer(r, type, what));
    if (!v) return Status::Ok();
    if (context) meta.context_lengths[key.substr(0, key.size() - kContext.size())] = *v;
    else if (*v <= UINT32_MAX) meta.file_type = static_cast<uint32_t>(*v);
    return Status::Ok();
  }
  return skip_value(r, type, key, 0);
}

// One tensor info record: adds its element count to `params` and to its type's tally.
Status read_tensor_info(HeaderReader& r, uint64_t index, uint64_t& params, std::map<uint32_t, uint64_t>& by_type) {
  const std::string what = "tensor " + std::to_string(index);
  KEEL_ASSIGN_OR_RETURN(std::string name, r.string("the name of " + what));
  const std::string label = "tensor '" + name + "'";
  KEEL_ASSIGN_OR_RETURN(uint32_t n_dims, r.u32("the dimension count of " + label));
  if (n_dims == 0 || n_dims > kMaxDims) {
    return r.corrupt(label + " has " + std::to_string(n_dims) + " dimensions (1 to 4 allowed)");
  }
  uint64_t elements = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    KEEL_ASSIGN_OR_RETURN(uint64_t dim, r.u64("the dimensions of " + label));
    if (dim != 0 && elements > UINT64_MAX / dim) return r.corrupt(label + " has an absurd element count");
    elements *= dim;
  }
  KEEL_ASSIGN_OR_RETURN(uint32_t type, r.u32("the type of " + label));
  KEEL_TRY(r.skip(8, "the data offset of " + label));
  if (params > UINT64_MAX - elements) return r.corrupt("the tensors' element counts overflow (an absurd count)");
  params += elements;
  by_type[type] += elements;
  return Status::Ok();
}

}  // namespace

std::string_view gguf_file_type_name(uint32_t file_type) {
  // llama.cpp's llama_ftype values; 1024 marks a type llama.cpp guessed rather than read.
  static constexpr std::array<std::string_view, 42> kNames = {
      "F32",    "F16",     "Q4_0",   "Q4_1",    "",       "",       "",      "Q8_0",      "Q5_0",  "Q5_1",
      "Q2_K",   "Q3_K_S",  "Q3_K_M", "Q3_K_L",  "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M",   "Q6_K",  "IQ2_XXS",
      "IQ2_XS", "Q2_K_S",  "IQ3_XS", "IQ3_XXS", "IQ1_S",  "IQ4_NL", "IQ3_S", "IQ3_M",     "IQ2_S", "IQ2_M",
      "IQ4_XS", "IQ1_M",   "BF16",   "",        "",       "",       "TQ1_0", "TQ2_0",     "MXFP4_MOE", "NVFP4",
      "Q1_0",   "Q2_0"};
  const uint32_t t = file_type & ~uint32_t{1024};
  return t < kNames.size() ? kNames[t] : std::string_view();
}

std::string_view gguf_tensor_type_name(uint32_t type) {
  static constexpr std::array<std::string_view, 43> kNames = {
      "F32",     "F16",    "Q4_0",    "Q4_1",  "",       "",       "Q5_0",   "Q5_1",  "Q8_0",  "Q8_1",  "Q2_K",
      "Q3_K",    "Q4_K",   "Q5_K",    "Q6_K",  "Q8_K",   "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S",
      "IQ2_S",   "IQ4_XS", "I8",      "I16",   "I32",    "I64",    "F64",    "IQ1_M", "BF16",  "",      "",
      "",        "TQ1_0",  "TQ2_0",   "",      "",       "",       "MXFP4",  "NVFP4", "Q1_0",  "Q2_0"};
  return type < kNames.size() ? kNames[type] : std::string_view();
}

Result<GgufInfo> read_gguf_info(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status::NotFound("cannot read '" + file + "': " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open '" + file + "' for reading: " + std::strerror(errno));

  HeaderReader r(in, file, size);
  GgufInfo info;
  info.file_size = size;
  std::array<char, 4> magic{};
  if (size < 4 || !r.read(magic.data(), 4, "the magic").ok() || std::string_view(magic.data(), 4) != "GGUF") {
    return Status::InvalidArgument("'" + file + "' is not a GGUF file (it does not start with \"GGUF\")");
  }
  KEEL_ASSIGN_OR_RETURN(info.version, r.u32("the version"));
  if (info.version != 2 && info.version != 3) {
    std::string m = "'" + file + "' has GGUF version " + std::to_string(info.version);
    if ((info.version & 0xffff) == 0) m += " (a big-endian file?)";
    m += "; keel reads versions 2 and 3: convert the model again with a current llama.cpp";
    return Status::InvalidArgument(std::move(m));
  }
  KEEL_ASSIGN_OR_RETURN(info.tensor_count, r.u64("the tensor count"));
  KEEL_ASSIGN_OR_RETURN(info.kv_count, r.u64("the metadata count"));
  if (info.tensor_count > kMaxTensors) {
    return r.corrupt("it declares " + std::to_string(info.tensor_count) + " tensors (an absurd count)");
  }
  if (info.kv_count > kMaxKeyValues) {
    return r.corrupt("it declares " + std::to_string(info.kv_count) + " metadata entries (an absurd count)");
  }

  Metadata meta;
  for (uint64_t i = 0; i < info.kv_count; ++i) KEEL_TRY(read_key_value(r, meta));
  std::map<uint32_t, uint64_t> by_type;
  for (uint64_t i = 0; i < info.tensor_count; ++i) {
    KEEL_TRY(read_tensor_info(r, i, info.parameter_count, by_type));
  }

  info.architecture = std::move(meta.architecture);
  info.name = std::move(meta.name);
  if (auto it = meta.context_lengths.find(info.architecture); it != meta.context_lengths.end()) {
    info.context_length = it->second;
  }
  info.has_chat_template = meta.chat_template;
  info.chat_template = std::move(meta.chat_template_text);
  info.vocab_size = meta.vocab_size;
  if (meta.file_type) info.quantization = gguf_file_type_name(*meta.file_type);
  if (info.quantization.empty() && !by_type.empty()) {
    auto most = by_type.begin();  // ties: the lower type id
    for (auto it = by_type.begin(); it != by_type.end(); ++it) {
      if (it->second > most->second) most = it;
    }
    std::string_view type_name = gguf_tensor_type_name(most->first);
    info.quantization = type_name.empty() ? "type " + std::to_string(most->first) : std::string(type_name);
  }
  return info;
}

}  // namespace keel
