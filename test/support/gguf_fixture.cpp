#include "support/gguf_fixture.hpp"

#if KEEL_HAS_LLAMA

#include <cmath>
#include <filesystem>
#include <memory>
#include <string_view>
#include <system_error>
#include <vector>

#include "ggml.h"
#include "gguf.h"

namespace keel::testing {
namespace {

struct GgufCtxFree {
  void operator()(gguf_context* c) const { gguf_free(c); }
};
struct GgmlCtxFree {
  void operator()(ggml_context* c) const { ggml_free(c); }
};
using GgufPtr = std::unique_ptr<gguf_context, GgufCtxFree>;
using GgmlPtr = std::unique_ptr<ggml_context, GgmlCtxFree>;

// splitmix64: a tiny generator whose output is fixed by its definition, so a seed gives the same weights
// with every standard library (std::uniform_real_distribution is implementation-defined).
class FixtureRng {
 public:
  explicit FixtureRng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1).
  float symmetric() { return static_cast<float>(static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0); }

 private:
  uint64_t state_;
};

std::string option_error(const GgufFixtureOptions& o) {
  if (o.n_embd <= 0 || o.n_layer <= 0 || o.n_head <= 0 || o.n_head_kv <= 0 || o.n_ff <= 0 || o.n_ctx_train <= 0) {
    return "gguf fixture: every size option must be positive";
  }
  if (o.n_embd % o.n_head != 0) {
    std::string m = "gguf fixture: n_embd (";
    m.append(std::to_string(o.n_embd)).append(") must be a multiple of n_head (");
    m.append(std::to_string(o.n_head)).append(")");
    return m;
  }
  if (o.n_head % o.n_head_kv != 0) {
    std::string m = "gguf fixture: n_head (";
    m.append(std::to_string(o.n_head)).append(") must be a multiple of n_head_kv (");
    m.append(std::to_string(o.n_head_kv)).append(")");
    return m;
  }
  return "";
}

// Keeps only the tokenizer.* keys of the vocab file: its other keys describe the model it came from
// (another architecture, other sizes) and would contradict ours.
void keep_tokenizer_keys(gguf_context* dst) {
  std::vector<std::string> drop;
  for (int64_t i = 0; i < gguf_get_n_kv(dst); ++i) {
    std::string_view key = gguf_get_key(dst, i);
    if (!key.starts_with("tokenizer.")) drop.emplace_back(key);
  }
  for (const std::string& key : drop) gguf_remove_key(dst, key.c_str());
}

// Builds the tensors in `ctx` and registers them with `out`; names and ne order follow llama.cpp's llama
// loader (load_arch_tensors). Values are uniform in +-scale; norm weights are F32 ones.
class TensorWriter {
 public:
  TensorWriter(ggml_context* ctx, gguf_context* out, uint64_t seed) : ctx_(ctx), out_(out), rng_(seed) {}

  // A weight matrix of ne1 rows of ne0 values, stored as `type` (F16, or Q8_0 when ne0 is a multiple of 32).
  void matrix(const std::string& name, ggml_type type, int64_t ne0, int64_t ne1, float scale) {
    ggml_tensor* t = ggml_new_tensor_2d(ctx_, type, ne0, ne1);
    row_.resize(static_cast<size_t>(ne0));
    const size_t row_bytes = ggml_row_size(type, ne0);
    auto* data = static_cast<char*>(t->data);
    for (int64_t r = 0; r < ne1; ++r) {
      for (float& v : row_) v = rng_.symmetric() * scale;
      char* dst = data + static_cast<size_t>(r) * row_bytes;
      if (type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(row_.data(), reinterpret_cast<ggml_fp16_t*>(dst), ne0);
      } else {
        ggml_quantize_chunk(type, row_.data(), dst, 0, 1, ne0, nullptr);
      }
    }
    add(t, name);
  }

  void ones(const std::string& name, int64_t ne0) {
    ggml_tensor* t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, ne0);
    auto* data = static_cast<float*>(t->data);
    for (int64_t i = 0; i < ne0; ++i) data[i] = 1.0f;
    add(t, name);
  }

 private:
  void add(ggml_tensor* t, const std::string& name) {
    ggml_set_name(t, name.c_str());
    gguf_add_tensor(out_, t);
  }

  ggml_context* ctx_;
  gguf_context* out_;
  FixtureRng rng_;
  std::vector<float> row_;
};

// Uniform +-sqrt(3 / fan_in) keeps each projection's output at about unit variance, so the blocks outweigh
// the residual embedding and the next token depends on the context. With tiny weights the residual wins and
// greedy decoding repeats the last input token forever.
float unit_scale(int64_t fan_in) {
  return std::sqrt(3.0f / static_cast<float>(fan_in));
}

std::string layer_name(int il, const char* part) {
  std::string n = "blk.";
  n.append(std::to_string(il)).append(".").append(part).append(".weight");
  return n;
}

}  // namespace

std::string write_random_gguf(const std::string& vocab_gguf, const std::string& out_path, const GgufFixtureOptions& o) {
  if (std::string err = option_error(o); !err.empty()) return err;

  gguf_init_params read_params;
  read_params.no_alloc = true;
  read_params.ctx = nullptr;
  GgufPtr vocab(gguf_init_from_file(vocab_gguf.c_str(), read_params));
  if (!vocab) {
    std::string m = "gguf fixture: cannot read the vocab file '";
    m.append(vocab_gguf).append("' (missing or not a GGUF file)");
    return m;
  }
  const int64_t tokens_key = gguf_find_key(vocab.get(), "tokenizer.ggml.tokens");
  if (tokens_key < 0 || gguf_get_kv_type(vocab.get(), tokens_key) != GGUF_TYPE_ARRAY) {
    std::string m = "gguf fixture: '";
    m.append(vocab_gguf).append("' has no tokenizer.ggml.tokens array; pass a ggml-vocab-*.gguf file");
    return m;
  }
  const auto n_vocab = static_cast<int64_t>(gguf_get_arr_n(vocab.get(), tokens_key));

  GgufPtr out(gguf_init_empty());
  gguf_set_kv(out.get(), vocab.get());
  keep_tokenizer_keys(out.get());

  const auto u32 = [](int v) { return static_cast<uint32_t>(v); };
  const int head_dim = o.n_embd / o.n_head;
  gguf_context* g = out.get();
  gguf_set_val_str(g, "general.architecture", "llama");
  gguf_set_val_str(g, "general.name", o.name.c_str());
  gguf_set_val_u32(g, "general.file_type", 1);  // LLAMA_FTYPE_MOSTLY_F16; informational (embedding: Q8_0)
  gguf_set_val_u32(g, "llama.context_length", u32(o.n_ctx_train));
  gguf_set_val_u32(g, "llama.embedding_length", u32(o.n_embd));
  gguf_set_val_u32(g, "llama.block_count", u32(o.n_layer));
  gguf_set_val_u32(g, "llama.feed_forward_length", u32(o.n_ff));
  gguf_set_val_u32(g, "llama.attention.head_count", u32(o.n_head));
  gguf_set_val_u32(g, "llama.attention.head_count_kv", u32(o.n_head_kv));
  gguf_set_val_u32(g, "llama.rope.dimension_count", u32(head_dim));
  gguf_set_val_f32(g, "llama.rope.freq_base", 10000.0f);
  gguf_set_val_f32(g, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
  gguf_set_val_u32(g, "llama.vocab_size", static_cast<uint32_t>(n_vocab));
  if (!o.chat_template.empty()) gguf_set_val_str(g, "tokenizer.chat_template", o.chat_template.c_str());

  const int64_t n_embd = o.n_embd;
  const int64_t n_q = static_cast<int64_t>(head_dim) * o.n_head;
  const int64_t n_kv = static_cast<int64_t>(head_dim) * o.n_head_kv;
  const int64_t n_ff = o.n_ff;
  // The token embedding (n_vocab x n_embd) is nearly the whole file: Q8_0 halves it (llama-bpe: 8.7 MB
  // instead of 16.4 MB), which keeps the file under 20 MB next to the vocabulary's own ~8 MB.
  const ggml_type embd_type = n_embd % 32 == 0 ? GGML_TYPE_Q8_0 : GGML_TYPE_F16;
  const int64_t f16_elems = o.n_layer * (n_embd * n_q + 2 * n_embd * n_kv + n_q * n_embd + 3 * n_embd * n_ff);
  const int64_t f32_elems = n_embd * (1 + 2 * static_cast<int64_t>(o.n_layer));
  const int64_t n_tensors = 2 + 9 * static_cast<int64_t>(o.n_layer);
  ggml_init_params mem;
  mem.mem_size = ggml_row_size(embd_type, n_embd) * static_cast<size_t>(n_vocab) +
                 static_cast<size_t>(f16_elems * 2 + f32_elems * 4) +
                 static_cast<size_t>(n_tensors) * (ggml_tensor_overhead() + GGML_MEM_ALIGN);
  mem.mem_buffer = nullptr;
  mem.no_alloc = false;
  GgmlPtr ctx(ggml_init(mem));
  if (!ctx) return "gguf fixture: out of memory for the weights";

  TensorWriter w(ctx.get(), g, o.seed);
  // Tied embedding (no output.weight): +-0.5 gives logits with a spread of a few units, so greedy decoding is
  // decisive and temperature sampling still varies.
  w.matrix("token_embd.weight", embd_type, n_embd, n_vocab, 0.5f);
  w.ones("output_norm.weight", n_embd);
  for (int il = 0; il < o.n_layer; ++il) {
    w.ones(layer_name(il, "attn_norm"), n_embd);
    w.matrix(layer_name(il, "attn_q"), GGML_TYPE_F16, n_embd, n_q, unit_scale(n_embd));
    w.matrix(layer_name(il, "attn_k"), GGML_TYPE_F16, n_embd, n_kv, unit_scale(n_embd));
    w.matrix(layer_name(il, "attn_v"), GGML_TYPE_F16, n_embd, n_kv, unit_scale(n_embd));
    w.matrix(layer_name(il, "attn_output"), GGML_TYPE_F16, n_q, n_embd, unit_scale(n_q));
    w.ones(layer_name(il, "ffn_norm"), n_embd);
    w.matrix(layer_name(il, "ffn_gate"), GGML_TYPE_F16, n_embd, n_ff, unit_scale(n_embd));
    w.matrix(layer_name(il, "ffn_up"), GGML_TYPE_F16, n_embd, n_ff, unit_scale(n_embd));
    w.matrix(layer_name(il, "ffn_down"), GGML_TYPE_F16, n_ff, n_embd, unit_scale(n_ff));
  }

  if (!gguf_write_to_file(g, out_path.c_str(), /*only_meta=*/false)) {
    std::error_code ec;
    std::filesystem::remove(out_path, ec);
    std::string m = "gguf fixture: cannot write '";
    m.append(out_path).append("' (check that its folder exists and is writable)");
    return m;
  }
  return "";
}

}  // namespace keel::testing

#endif  // KEEL_HAS_LLAMA
