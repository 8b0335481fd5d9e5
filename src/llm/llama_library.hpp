// The llama.cpp entry points of the local backend, resolved from libllama the first time a local
// model is used rather than linked into keel: a run against a server never loads llama.cpp and
// ggml (their relocations and static initialisers were most of keel's start-up).
//
// Which library: $KEEL_LLAMA_LIB when set, else the one keel was built against, else "libllama.so"
// on the loader's search path. Thread-safety: load_llama_library() may be called from any thread.
#pragma once

#include <ggml-backend.h>
#include <llama.h>

#include "keel/result.hpp"

// Every function the local backend calls, by its llama.cpp name.
#define KEEL_LLAMA_ENTRY_POINTS(X)                                                                                  \
  X(ggml_backend_load_all_from_path) X(llama_backend_init) X(llama_batch_get_one) X(llama_context_default_params) \
  X(llama_decode) X(llama_free) X(llama_get_logits_ith) X(llama_get_memory) X(llama_init_from_model)              \
  X(llama_log_set) X(llama_memory_clear) X(llama_memory_seq_rm) X(llama_model_chat_template)                      \
  X(llama_model_default_params) X(llama_model_desc) X(llama_model_free) X(llama_model_get_vocab)                 \
  X(llama_model_load_from_file) X(llama_model_n_ctx_train) X(llama_model_n_params) X(llama_n_ctx)                \
  X(llama_sampler_accept) X(llama_sampler_apply) X(llama_sampler_chain_add) X(llama_sampler_chain_default_params) \
  X(llama_sampler_chain_init) X(llama_sampler_free) X(llama_sampler_init_dist) X(llama_sampler_init_grammar)     \
  X(llama_sampler_init_grammar_lazy_patterns) X(llama_sampler_init_greedy) X(llama_sampler_init_min_p)           \
  X(llama_sampler_init_penalties) X(llama_sampler_init_temp) X(llama_sampler_init_top_k)                         \
  X(llama_sampler_init_top_p) X(llama_state_seq_load_file) X(llama_state_seq_save_file) X(llama_token_to_piece)  \
  X(llama_tokenize) X(llama_vocab_bos) X(llama_vocab_eos) X(llama_vocab_get_add_bos) X(llama_vocab_is_control) X(llama_vocab_is_eog)         \
  X(llama_vocab_n_tokens)

namespace keel::llama_detail {

struct LlamaLibrary {
#define KEEL_LLAMA_MEMBER(name) decltype(&::name) name = nullptr;
  KEEL_LLAMA_ENTRY_POINTS(KEEL_LLAMA_MEMBER)
#undef KEEL_LLAMA_MEMBER
  std::string path;  // the file it was loaded from
};

// Loads the library once per process (a failure is remembered and returned again): kUnavailable
// naming the file and the missing symbol, with how to point keel at a llama.cpp build.
Result<const LlamaLibrary*> load_llama_library();
// The loaded library; only after load_llama_library() succeeded (every local model holds it).
const LlamaLibrary& llama();

}  // namespace keel::llama_detail
