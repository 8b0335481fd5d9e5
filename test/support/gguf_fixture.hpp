// Test helper: writes a tiny llama-architecture GGUF model with random weights, so tests of the in-process
// llama.cpp backend have a real model file without downloading any weights.
//
// The vocabulary (every tokenizer.* key) is copied from a vocab-only GGUF such as the ggml-vocab-*.gguf files
// llama.cpp ships, so tokenization, special tokens and the chat template behave like the real model family;
// only the weights are noise, so generated text is gibberish but deterministic for a seed.
//
//   keel::testing::GgufFixtureOptions o;
//   o.chat_template = "{% for m in messages %}...";
//   std::string err = keel::testing::write_random_gguf(vocab_dir + "/ggml-vocab-llama-bpe.gguf", out, o);
//   ASSERT_EQ(err, "");
//
// Available only when the build links llama.cpp (KEEL_HAS_LLAMA). Thread-safe: it shares no state.
#pragma once

#include <cstdint>
#include <string>

namespace keel::testing {

// Shape and metadata of the generated model. Defaults give a 16.7 MB file with the llama-bpe vocabulary: its
// ~8 MB of tokenizer data plus the token embedding (n_vocab x n_embd, Q8_0 when n_embd is a multiple of 32,
// else F16); the blocks are F16 and tiny.
struct GgufFixtureOptions {
  int n_embd = 64;            // embedding width; must be a multiple of n_head
  int n_layer = 2;            // transformer blocks
  int n_head = 4;             // attention (query) heads; head size = n_embd / n_head
  int n_head_kv = 2;          // key/value heads (grouped-query attention); must divide n_head
  int n_ff = 128;             // feed-forward hidden width
  int n_ctx_train = 4096;     // llama.context_length: the longest context a loader will accept by default
  uint64_t seed = 42;         // the same seed writes byte-identical weights
  std::string chat_template;  // written as tokenizer.chat_template when not empty (else the vocab file's, if any)
  std::string name = "keel-fixture";  // general.name
};

// Writes the model to `out_path` (overwritten). Returns an empty string on success, else a message naming
// what failed (unreadable vocab file, a vocab without tokenizer.ggml.tokens, invalid options, write error);
// a failed write removes `out_path`.
std::string write_random_gguf(const std::string& vocab_gguf, const std::string& out_path, const GgufFixtureOptions& o);

}  // namespace keel::testing
