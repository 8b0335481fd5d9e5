// Checks that support/gguf_fixture writes a model llama.cpp loads and runs: the vocabulary is the source
// file's, the shape is the options', decoding works and is deterministic, and errors come back as messages.
//
// Needs llama.cpp and two paths at compile time: KEEL_LLAMA_MODELS_DIR (the ggml-vocab-*.gguf files) and
// KEEL_LLAMA_BACKEND_DIR (the folder holding the ggml CPU backend libraries).
#include <gtest/gtest.h>

#if KEEL_HAS_LLAMA

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "gguf.h"
#include "llama.h"
#include "support/gguf_fixture.hpp"
#include "support/temp_dir.hpp"

namespace {

using keel::testing::GgufFixtureOptions;
using keel::testing::write_random_gguf;

std::string vocab_path(const std::string& name) {
  std::string p = KEEL_LLAMA_MODELS_DIR;
  p.append("/ggml-vocab-").append(name).append(".gguf");
  return p;
}

void log_warnings_only(ggml_log_level level, const char* text, void*) {
  if (level >= GGML_LOG_LEVEL_WARN) std::fputs(text, stderr);
}

void init_llama_once() {
  static const bool done = [] {
    llama_log_set(log_warnings_only, nullptr);
    ggml_backend_load_all_from_path(KEEL_LLAMA_BACKEND_DIR);
    llama_backend_init();
    return true;
  }();
  (void)done;
}

struct ModelFree {
  void operator()(llama_model* m) const { llama_model_free(m); }
};
struct ContextFree {
  void operator()(llama_context* c) const { llama_free(c); }
};
struct GgufFree {
  void operator()(gguf_context* c) const { gguf_free(c); }
};
using ModelPtr = std::unique_ptr<llama_model, ModelFree>;
using ContextPtr = std::unique_ptr<llama_context, ContextFree>;
using GgufPtr = std::unique_ptr<gguf_context, GgufFree>;

ModelPtr load(const std::string& path, bool vocab_only) {
  llama_model_params p = llama_model_default_params();
  p.vocab_only = vocab_only;
  p.progress_callback = [](float, void*) { return true; };  // no progress dots in the test log
  return ModelPtr(llama_model_load_from_file(path.c_str(), p));
}

GgufPtr read_meta(const std::string& path) {
  gguf_init_params p;
  p.no_alloc = true;
  p.ctx = nullptr;
  return GgufPtr(gguf_init_from_file(path.c_str(), p));
}

std::vector<llama_token> tokenize(const llama_vocab* vocab, const std::string& text) {
  std::vector<llama_token> out(64);
  const int n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), out.data(),
                               static_cast<int32_t>(out.size()), /*add_special=*/true, /*parse_special=*/false);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

// Decodes `prompt` in a fresh context and returns `n` greedily chosen tokens.
std::vector<llama_token> greedy(llama_model* model, std::vector<llama_token> prompt, int n) {
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = 512;
  cp.n_batch = 512;
  cp.n_threads = 1;  // spinning worker threads crawl on a loaded 2-core machine
  cp.n_threads_batch = 1;
  ContextPtr ctx(llama_init_from_model(model, cp));
  if (!ctx) return {};
  const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  std::vector<llama_token> out;
  if (llama_decode(ctx.get(), llama_batch_get_one(prompt.data(), static_cast<int32_t>(prompt.size()))) != 0) {
    return out;
  }
  for (int i = 0; i < n; ++i) {
    const float* logits = llama_get_logits_ith(ctx.get(), -1);
    llama_token best = 0;
    for (llama_token t = 1; t < n_vocab; ++t) {
      if (logits[t] > logits[best]) best = t;
    }
    out.push_back(best);
    if (llama_decode(ctx.get(), llama_batch_get_one(&out.back(), 1)) != 0) break;
  }
  return out;
}

std::string meta(const llama_model* model, const char* key) {
  char buf[256];
  const int n = llama_model_meta_val_str(model, key, buf, sizeof(buf));
  return n < 0 ? std::string("(missing)") : std::string(buf);
}

class GgufFixtureVocab : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { init_llama_once(); }
  keel::testing::TempDir dir_;
};

TEST_P(GgufFixtureVocab, WritesAModelThatLoadsTokenizesAndDecodes) {
  const std::string vocab = vocab_path(GetParam());
  const std::string out = (dir_.path() / "m.gguf").string();
  ASSERT_EQ(write_random_gguf(vocab, out, GgufFixtureOptions{}), "");
  EXPECT_LT(std::filesystem::file_size(out), 20u * 1024 * 1024);

  ModelPtr model = load(out, false);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(llama_model_n_embd(model.get()), 64);
  EXPECT_EQ(llama_model_n_layer(model.get()), 2);
  EXPECT_EQ(llama_model_n_head(model.get()), 4);
  EXPECT_EQ(llama_model_n_head_kv(model.get()), 2);
  EXPECT_EQ(llama_model_n_ctx_train(model.get()), 4096);
  EXPECT_EQ(meta(model.get(), "general.architecture"), "llama");
  EXPECT_EQ(meta(model.get(), "general.name"), "keel-fixture");

  // Same vocabulary as the source: token count, special tokens and tokenization agree.
  ModelPtr source = load(vocab, true);
  ASSERT_NE(source, nullptr);
  const llama_vocab* v = llama_model_get_vocab(model.get());
  const llama_vocab* sv = llama_model_get_vocab(source.get());
  EXPECT_EQ(llama_vocab_n_tokens(v), llama_vocab_n_tokens(sv));
  EXPECT_EQ(llama_vocab_bos(v), llama_vocab_bos(sv));
  EXPECT_EQ(llama_vocab_eos(v), llama_vocab_eos(sv));
  const std::vector<llama_token> prompt = tokenize(v, "Hello world");
  ASSERT_FALSE(prompt.empty());
  EXPECT_EQ(prompt, tokenize(sv, "Hello world"));

  // Decoding works and greedy decoding of the same prompt is repeatable across contexts.
  const std::vector<llama_token> first = greedy(model.get(), prompt, 20);
  ASSERT_EQ(first.size(), 20u);
  EXPECT_EQ(greedy(model.get(), prompt, 20), first);
  for (llama_token t : first) {
    EXPECT_GE(t, 0);
    EXPECT_LT(t, llama_vocab_n_tokens(v));
  }
}

TEST_P(GgufFixtureVocab, CopiesEveryTokenizerKeyAndNothingElseFromTheSource) {
  const std::string vocab = vocab_path(GetParam());
  const std::string out = (dir_.path() / "m.gguf").string();
  ASSERT_EQ(write_random_gguf(vocab, out, GgufFixtureOptions{}), "");
  GgufPtr src = read_meta(vocab);
  GgufPtr dst = read_meta(out);
  ASSERT_NE(src, nullptr);
  ASSERT_NE(dst, nullptr);
  int copied = 0;
  for (int64_t i = 0; i < gguf_get_n_kv(src.get()); ++i) {
    const std::string key = gguf_get_key(src.get(), i);
    if (key.rfind("tokenizer.", 0) != 0) continue;
    const int64_t j = gguf_find_key(dst.get(), key.c_str());
    ASSERT_GE(j, 0) << key;
    ++copied;
    EXPECT_EQ(gguf_get_kv_type(dst.get(), j), gguf_get_kv_type(src.get(), i)) << key;
    if (gguf_get_kv_type(src.get(), i) == GGUF_TYPE_ARRAY) {
      EXPECT_EQ(gguf_get_arr_n(dst.get(), j), gguf_get_arr_n(src.get(), i)) << key;
    }
  }
  EXPECT_GE(copied, 4);  // at least model, tokens, token types and a special token id

  // Every other key is one the fixture sets itself (the source's sizes would contradict ours).
  const std::vector<std::string> own = {"general.architecture",
                                        "general.name",
                                        "general.file_type",
                                        "llama.context_length",
                                        "llama.embedding_length",
                                        "llama.block_count",
                                        "llama.feed_forward_length",
                                        "llama.attention.head_count",
                                        "llama.attention.head_count_kv",
                                        "llama.rope.dimension_count",
                                        "llama.rope.freq_base",
                                        "llama.attention.layer_norm_rms_epsilon",
                                        "llama.vocab_size"};
  int others = 0;
  for (int64_t j = 0; j < gguf_get_n_kv(dst.get()); ++j) {
    const std::string key = gguf_get_key(dst.get(), j);
    if (key.rfind("tokenizer.", 0) == 0) {
      EXPECT_GE(gguf_find_key(src.get(), key.c_str()), 0) << key;
      continue;
    }
    ++others;
    EXPECT_NE(std::find(own.begin(), own.end(), key), own.end()) << key;
  }
  EXPECT_EQ(others, static_cast<int>(own.size()));

  // Tensors: 2 + 9 per block, no output.weight (tied to the embedding), a Q8_0 embedding, F32 norms.
  EXPECT_EQ(gguf_get_n_tensors(dst.get()), 20);
  EXPECT_EQ(gguf_find_tensor(dst.get(), "output.weight"), -1);
  EXPECT_EQ(gguf_get_tensor_type(dst.get(), gguf_find_tensor(dst.get(), "token_embd.weight")), GGML_TYPE_Q8_0);
  EXPECT_EQ(gguf_get_tensor_type(dst.get(), gguf_find_tensor(dst.get(), "blk.1.ffn_down.weight")), GGML_TYPE_F16);
  EXPECT_EQ(gguf_get_tensor_type(dst.get(), gguf_find_tensor(dst.get(), "blk.1.ffn_norm.weight")), GGML_TYPE_F32);
  EXPECT_EQ(gguf_get_val_u32(dst.get(), gguf_find_key(dst.get(), "llama.embedding_length")), 64u);
}

INSTANTIATE_TEST_SUITE_P(Vocabs, GgufFixtureVocab, ::testing::Values("llama-bpe", "qwen2", "llama-spm"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

class GgufFixture : public ::testing::Test {
 protected:
  void SetUp() override { init_llama_once(); }
  std::string path(const char* name) const { return (dir_.path() / name).string(); }
  keel::testing::TempDir dir_;
};

TEST_F(GgufFixture, SameSeedWritesIdenticalBytesAndAnotherSeedDoesNot) {
  const std::string vocab = vocab_path("llama-spm");
  GgufFixtureOptions o;
  o.seed = 7;
  ASSERT_EQ(write_random_gguf(vocab, path("a.gguf"), o), "");
  ASSERT_EQ(write_random_gguf(vocab, path("b.gguf"), o), "");
  o.seed = 8;
  ASSERT_EQ(write_random_gguf(vocab, path("c.gguf"), o), "");
  const std::string a = keel::testing::read_file(path("a.gguf"));
  EXPECT_GT(a.size(), 1000u);
  EXPECT_EQ(a, keel::testing::read_file(path("b.gguf")));
  const std::string c = keel::testing::read_file(path("c.gguf"));
  EXPECT_EQ(a.size(), c.size());
  EXPECT_NE(a, c);
}

TEST_F(GgufFixture, WritesTheChatTemplateAndOtherShapes) {
  GgufFixtureOptions o;
  o.chat_template = "{{ messages[0]['content'] }}";
  o.name = "tiny";
  o.n_embd = 48;  // not a multiple of 32: the token embedding is F16 instead of Q8_0
  o.n_head = 6;
  o.n_head_kv = 3;
  o.n_layer = 3;
  o.n_ff = 64;
  o.n_ctx_train = 1024;
  ASSERT_EQ(write_random_gguf(vocab_path("llama-spm"), path("t.gguf"), o), "");
  GgufPtr meta_only = read_meta(path("t.gguf"));
  ASSERT_NE(meta_only, nullptr);
  EXPECT_EQ(gguf_get_n_tensors(meta_only.get()), 29);
  EXPECT_EQ(gguf_get_tensor_type(meta_only.get(), gguf_find_tensor(meta_only.get(), "token_embd.weight")),
            GGML_TYPE_F16);
  ModelPtr model = load(path("t.gguf"), false);
  ASSERT_NE(model, nullptr);
  const char* tmpl = llama_model_chat_template(model.get(), nullptr);
  ASSERT_NE(tmpl, nullptr);
  EXPECT_STREQ(tmpl, "{{ messages[0]['content'] }}");
  EXPECT_EQ(meta(model.get(), "general.name"), "tiny");
  EXPECT_EQ(llama_model_n_embd(model.get()), 48);
  EXPECT_EQ(llama_model_n_layer(model.get()), 3);
  EXPECT_EQ(llama_model_n_head_kv(model.get()), 3);
  EXPECT_EQ(llama_model_n_ctx_train(model.get()), 1024);
  const std::vector<llama_token> prompt = tokenize(llama_model_get_vocab(model.get()), "Hello world");
  EXPECT_EQ(greedy(model.get(), prompt, 4).size(), 4u);
}

TEST_F(GgufFixture, ReportsErrorsAsMessagesAndLeavesNoFile) {
  const std::string vocab = vocab_path("llama-spm");
  const std::string missing = path("missing.gguf");
  std::string err = write_random_gguf(missing, path("o.gguf"), GgufFixtureOptions{});
  std::string want = "cannot read the vocab file '";
  want.append(missing).append("'");
  EXPECT_NE(err.find(want), std::string::npos) << err;

  GgufFixtureOptions bad;
  bad.n_embd = 63;
  err = write_random_gguf(vocab, path("o.gguf"), bad);
  EXPECT_EQ(err, "gguf fixture: n_embd (63) must be a multiple of n_head (4)");
  bad = GgufFixtureOptions{};
  bad.n_head_kv = 3;
  err = write_random_gguf(vocab, path("o.gguf"), bad);
  EXPECT_EQ(err, "gguf fixture: n_head (4) must be a multiple of n_head_kv (3)");
  bad = GgufFixtureOptions{};
  bad.n_layer = 0;
  EXPECT_EQ(write_random_gguf(vocab, path("o.gguf"), bad), "gguf fixture: every size option must be positive");
  EXPECT_FALSE(std::filesystem::exists(path("o.gguf")));

  // A GGUF without a vocabulary: write one with gguf alone.
  GgufPtr empty(gguf_init_empty());
  gguf_set_val_str(empty.get(), "general.architecture", "llama");
  ASSERT_TRUE(gguf_write_to_file(empty.get(), path("novocab.gguf").c_str(), false));
  err = write_random_gguf(path("novocab.gguf"), path("o.gguf"), GgufFixtureOptions{});
  EXPECT_NE(err.find("has no tokenizer.ggml.tokens array"), std::string::npos) << err;

  const std::string unwritable = path("no-such-dir/o.gguf");
  err = write_random_gguf(vocab, unwritable, GgufFixtureOptions{});
  want = "cannot write '";
  want.append(unwritable).append("'");
  EXPECT_NE(err.find(want), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(path("o.gguf")));
}

}  // namespace
#endif  // KEEL_HAS_LLAMA
