// The GGUF header reader on files written byte by byte: every field, and every way a file can be
// broken (truncated, bad magic, wrong version, absurd counts and lengths).
#include "keel/gguf_info.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/gguf_writer.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::GgufWriter;

class GgufInfoTest : public ::testing::Test {
 protected:
  // A small but complete model header: metadata of every type, and three tensors.
  static GgufWriter model() {
    GgufWriter w;
    w.kv_string("general.name", "Tiny Llama");
    w.kv_u32("general.alignment", 32);
    w.kv_bool("general.some_flag", true);
    w.kv_f32("llama.rope.freq_base", 0x461c4000);  // 10000.0f
    w.kv_u32("qwen2.context_length", 999);         // another architecture's key: ignored
    w.kv_u64("llama.context_length", 131072);
    w.kv_string("general.architecture", "llama");  // after its context length: order does not matter
    w.kv_u32("general.file_type", 15);             // Q4_K_M
    w.kv_string_array("tokenizer.ggml.tokens", {"<s>", "</s>", "a", "b", "hello"});
    w.kv_u32_array("tokenizer.ggml.token_type", {1, 1, 1, 1, 1});
    w.kv_nested_array("custom.nested", {"ab", "cde"});
    w.kv_string("tokenizer.chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}");
    w.kv_i32("custom.negative", -5);
    w.tensor("token_embd.weight", {64, 5}, 12);  // Q4_K
    w.tensor("blk.0.attn_norm.weight", {64}, 0);  // F32
    w.tensor("output.weight", {64, 5}, 14);       // Q6_K
    return w;
  }

  std::filesystem::path write(const std::string& bytes, const std::string& name = "m.gguf") {
    return dir_.write(name, bytes);
  }

  std::string error_of(const std::string& bytes) {
    Result<GgufInfo> r = read_gguf_info(write(bytes));
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  }

  testing::TempDir dir_;
};

TEST_F(GgufInfoTest, ReadsEveryField) {
  const GgufWriter w = model();
  const std::string bytes = w.bytes(1000);
  Result<GgufInfo> r = read_gguf_info(write(bytes));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->version, 3u);
  EXPECT_EQ(r->tensor_count, 3u);
  EXPECT_EQ(r->kv_count, 13u);
  EXPECT_EQ(r->architecture, "llama");
  EXPECT_EQ(r->name, "Tiny Llama");
  EXPECT_EQ(r->context_length, 131072u);
  EXPECT_EQ(r->parameter_count, 64u * 5 + 64 + 64 * 5);
  EXPECT_EQ(r->quantization, "Q4_K_M");
  EXPECT_TRUE(r->has_chat_template);
  EXPECT_EQ(r->vocab_size, 5u);
  EXPECT_EQ(r->file_size, bytes.size());
}

TEST_F(GgufInfoTest, VersionTwoAndMissingFields) {
  GgufWriter w(2);
  w.kv_string("general.architecture", "qwen2");
  Result<GgufInfo> r = read_gguf_info(write(w.bytes(0)));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->version, 2u);
  EXPECT_EQ(r->architecture, "qwen2");
  EXPECT_EQ(r->name, "");
  EXPECT_EQ(r->context_length, 0u);
  EXPECT_EQ(r->parameter_count, 0u);
  EXPECT_EQ(r->quantization, "");
  EXPECT_FALSE(r->has_chat_template);
  EXPECT_EQ(r->vocab_size, 0u);
}

TEST_F(GgufInfoTest, WithoutFileTypeTheTypeHoldingMostElementsNamesTheQuantization) {
  GgufWriter w;
  w.tensor("a", {10}, 0);      // F32: 10 elements
  w.tensor("b", {4, 4}, 8);    // Q8_0: 16
  w.tensor("c", {3}, 0);       // F32: 13 in all
  Result<GgufInfo> r = read_gguf_info(write(w.bytes()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->quantization, "Q8_0");
  EXPECT_EQ(r->parameter_count, 29u);

  GgufWriter unknown;
  unknown.kv_u32("general.file_type", 500);  // not a known file type: falls back to the tensors
  unknown.tensor("x", {8}, 30);               // BF16
  r = read_gguf_info(write(unknown.bytes(), "u.gguf"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->quantization, "BF16");
}

TEST_F(GgufInfoTest, NamesFileTypes) {
  EXPECT_EQ(gguf_file_type_name(0), "F32");
  EXPECT_EQ(gguf_file_type_name(1), "F16");
  EXPECT_EQ(gguf_file_type_name(7), "Q8_0");
  EXPECT_EQ(gguf_file_type_name(15), "Q4_K_M");
  EXPECT_EQ(gguf_file_type_name(18), "Q6_K");
  EXPECT_EQ(gguf_file_type_name(32), "BF16");
  EXPECT_EQ(gguf_file_type_name(1024 + 15), "Q4_K_M");  // llama.cpp's "guessed" flag
  EXPECT_EQ(gguf_file_type_name(4), "");
  EXPECT_EQ(gguf_file_type_name(9999), "");
  EXPECT_EQ(gguf_tensor_type_name(12), "Q4_K");
  EXPECT_EQ(gguf_tensor_type_name(30), "BF16");
  EXPECT_EQ(gguf_tensor_type_name(43), "");
}

TEST_F(GgufInfoTest, NotGguf) {
  EXPECT_NE(error_of("GGML plus some bytes").find("is not a GGUF file"), std::string::npos);
  EXPECT_NE(error_of("GG").find("is not a GGUF file"), std::string::npos);
  EXPECT_NE(error_of("").find("is not a GGUF file"), std::string::npos);
  Result<GgufInfo> missing = read_gguf_info(dir_.path() / "absent.gguf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("absent.gguf"), std::string::npos);
}

TEST_F(GgufInfoTest, UnsupportedVersions) {
  const std::string v1 = error_of(GgufWriter(1).bytes());
  EXPECT_NE(v1.find("has GGUF version 1;"), std::string::npos) << v1;
  EXPECT_NE(v1.find("versions 2 and 3"), std::string::npos) << v1;
  const std::string big_endian = error_of(GgufWriter(0x03000000).bytes());
  EXPECT_NE(big_endian.find("big-endian"), std::string::npos) << big_endian;
}

TEST_F(GgufInfoTest, TruncatedAnywhereNamesTheByte) {
  const std::string full = model().bytes(0);
  const size_t header = model().header_size();
  ASSERT_EQ(full.size(), header);
  // Every cut inside the header after the magic is a "truncated" error naming the file's end.
  for (size_t cut : {size_t{6}, size_t{12}, size_t{20}, size_t{30}, size_t{60}, header / 2, header - 9, header - 1}) {
    const std::string e = error_of(full.substr(0, cut));
    EXPECT_NE(e.find("is truncated at byte " + std::to_string(cut) + " ("), std::string::npos) << cut << ": " << e;
    EXPECT_NE(e.find("m.gguf"), std::string::npos) << e;
  }
  const std::string in_kv = error_of(full.substr(0, 40));
  EXPECT_NE(in_kv.find("(reading a metadata key at byte 24)"), std::string::npos) << in_kv;
  const std::string in_tensor = error_of(full.substr(0, header - 9));
  EXPECT_NE(in_tensor.find("tensor 'output.weight'"), std::string::npos) << in_tensor;
}

TEST_F(GgufInfoTest, AbsurdCountsAndLengths) {
  GgufWriter tensors;
  tensors.tensor_count_override = uint64_t{1} << 40;
  EXPECT_NE(error_of(tensors.bytes()).find("declares 1099511627776 tensors (an absurd count)"), std::string::npos);

  GgufWriter kvs;
  kvs.kv_count_override = uint64_t{1} << 62;
  EXPECT_NE(error_of(kvs.bytes()).find("metadata entries (an absurd count)"), std::string::npos);

  // A key claiming 2^40 bytes.
  std::string key_len;
  GgufWriter::le(key_len, uint64_t{1} << 40, 8);
  GgufWriter long_key;
  long_key.kv_raw(key_len);
  const std::string e = error_of(long_key.bytes(4096));
  EXPECT_NE(e.find("claims 1099511627776 bytes, over the 1 MiB limit"), std::string::npos) << e;

  // An array claiming 2^40 elements.
  std::string array;
  GgufWriter::str(array, "tokenizer.ggml.tokens");
  GgufWriter::le(array, 9, 4);
  GgufWriter::le(array, 8, 4);
  GgufWriter::le(array, uint64_t{1} << 40, 8);
  GgufWriter huge_array;
  huge_array.kv_raw(array);
  EXPECT_NE(error_of(huge_array.bytes(4096)).find("claims 1099511627776 elements (an absurd count)"),
            std::string::npos);

  // An array of 1000 strings in a file far too short to hold them: truncated, found before looping.
  std::string short_array;
  GgufWriter::str(short_array, "tokenizer.ggml.tokens");
  GgufWriter::le(short_array, 9, 4);
  GgufWriter::le(short_array, 8, 4);
  GgufWriter::le(short_array, 1000, 8);
  GgufWriter few;
  few.kv_raw(short_array);
  EXPECT_NE(error_of(few.bytes(16)).find("is truncated at byte"), std::string::npos);

  GgufWriter dims;
  dims.tensor("t", {1, 2, 3, 4, 5}, 0);
  EXPECT_NE(error_of(dims.bytes()).find("tensor 't' has 5 dimensions (1 to 4 allowed)"), std::string::npos);

  GgufWriter overflow;
  overflow.tensor("big", {uint64_t{1} << 40, uint64_t{1} << 40}, 0);
  EXPECT_NE(error_of(overflow.bytes()).find("tensor 'big' has an absurd element count"), std::string::npos);

  std::string bad_type;
  GgufWriter::str(bad_type, "x");
  GgufWriter::le(bad_type, 77, 4);
  GgufWriter unknown;
  unknown.kv_raw(bad_type);
  EXPECT_NE(error_of(unknown.bytes()).find("the value of 'x' has unknown type 77"), std::string::npos);
}

#if KEEL_HAS_LLAMA  // as the other local-model tests: the vocab files come with the llama.cpp backend
// A real file: llama.cpp's vocab-only GGUF of the Llama 3 tokenizer, from the llama.cpp packages the
// build fetches (cmake/llama.cmake). The expected values are that file's header: 20 key-value pairs,
// no tensors, general.file_type 1, tokenizer.ggml.model "gpt2" with 128256 tokens, no chat template.
TEST_F(GgufInfoTest, RealVocabFile) {
#ifndef KEEL_LLAMA_MODELS_DIR
  FAIL() << "KEEL_LLAMA_MODELS_DIR is not defined although llama.cpp is built: the build must point it at the "
            "llama.cpp models/ folder (CMakeLists.txt, keel_test_support)";
#else
  const std::filesystem::path vocab = std::filesystem::path(KEEL_LLAMA_MODELS_DIR) / "ggml-vocab-llama-bpe.gguf";
  ASSERT_TRUE(std::filesystem::is_regular_file(vocab))
      << vocab << " is missing: scripts/fetch-llama.sh unpacks it from the node-llama-cpp npm package when "
      << "CMake configures; delete " << vocab.parent_path().parent_path() << " and configure again";
  Result<GgufInfo> r = read_gguf_info(vocab);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->version, 3u);
  EXPECT_EQ(r->tensor_count, 0u);
  EXPECT_EQ(r->kv_count, 20u);
  EXPECT_EQ(r->architecture, "llama");
  EXPECT_EQ(r->name, "llama-bpe");
  EXPECT_EQ(r->context_length, 8192u);
  EXPECT_EQ(r->parameter_count, 0u);
  EXPECT_EQ(r->quantization, "F16");
  EXPECT_FALSE(r->has_chat_template);
  EXPECT_EQ(r->vocab_size, 128256u);
  EXPECT_EQ(r->file_size, std::filesystem::file_size(vocab));
#endif
}
#endif

}  // namespace
}  // namespace keel
