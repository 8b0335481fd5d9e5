// keel/local_model.hpp — in-process inference with llama.cpp: GGUF weights loaded once and shared,
// a context (KV cache) per client, chat templates, grammar-constrained tool calls and prefix reuse.
//
//   auto model = keel::LocalModel::load("/models/qwen2.5-0.5b-instruct-q4_k_m.gguf");
//   keel::LocalClient llm(*model, {});            // an LlmClient like any other backend
//   keel::Agent agent(llm, tools);
//
// Weights: LocalModel::load returns the same shared model for the same file while any holder keeps
// it (agents and sub-agents share one copy); each LocalClient owns its context, so clients of one
// model run concurrently.
//
// Prompts are rendered by the GGUF's own chat template (tokenizer.chat_template), executed as
// transformers executes it (keel/model_chat_template.hpp); the call format is derived from the
// template. A file without a template (or a build without the engine, or an explicit chat_family)
// uses one of keel's four built-in formats (keel/core/chat_template.hpp), and info().prompt_note
// says so. With `grammar` on, sampling is constrained by a GBNF grammar built from the tools' JSON
// schemas in that call format, so a call is always well-formed and matches its schema (lazy: text
// before the call marker is free); a template whose calls keel cannot describe (arguments as XML
// parameters, say) runs without the grammar and its replies are read by the universal parser.
// Replies come back normalized (tool_calls filled, as from an API).
//
// Prefix reuse: the context keeps the tokens it has evaluated; the next request evaluates only the
// tokens after the longest common prefix. Usage::cached_prompt_tokens says how many were reused.
//
// Built without llama.cpp (cmake -DKEEL_LLAMA=OFF) every entry point returns kUnavailable.
// Thread-safety: LocalModel is immutable and shared; a LocalClient is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "keel/core/token_counter.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"

namespace keel {

// Whether this build has the in-process backend.
bool local_inference_available();

struct LocalModelInfo {
  std::string path;
  std::string description;     // llama.cpp's, e.g. "llama 8B Q4_K - Medium"
  std::string chat_family;     // the family prompts are rendered in ("chatml", "llama3", ...)
  bool template_from_file = false;  // the family was recognised in the file's chat template
  // How prompts are written: "template" (the file's own Jinja chat template, executed) or
  // "built-in" (chat_family's format). prompt_note says why a built-in format is used.
  std::string prompt_format;
  std::string prompt_note;
  std::string call_format;          // how calls are written and read ("derived from the template: ...")
  int64_t parameters = 0;
  int64_t size_bytes = 0;
  int context_train = 0;       // context length the model was trained with
  int vocab_size = 0;
};

struct LocalLoadOptions {
  int gpu_layers = -1;          // layers offloaded to a GPU backend; -1: llama.cpp's default (all that fit)
  bool vocab_only = false;      // tokenizer only (exact token counts for a remote model)
  std::string chat_family;      // "chatml", "llama3", "mistral", "gemma": a built-in format used instead
                                // of the file's template; empty: the file's template, else the family
                                // its text is recognised as, else ChatML
};

// Shared weights (or a tokenizer only).
class LocalModel {
 public:
  // Loads `path` (a GGUF file), or returns the already loaded model for the same path and options.
  // kNotFound when the file is missing; kInvalidArgument when it is not a usable GGUF.
  static Result<std::shared_ptr<LocalModel>> load(const std::string& path, const LocalLoadOptions& options = {});
  ~LocalModel();
  LocalModel(const LocalModel&) = delete;
  LocalModel& operator=(const LocalModel&) = delete;

  const LocalModelInfo& info() const;
  // Token ids of `text` as this model's tokenizer splits it (special tokens parsed when asked).
  Result<std::vector<int32_t>> tokenize(std::string_view text, bool add_bos = false, bool parse_special = false) const;
  // The text of token ids (special tokens rendered).
  std::string detokenize(const std::vector<int32_t>& tokens) const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit LocalModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Exact counts from a model's tokenizer (a full model or a vocab-only GGUF) for the context manager.
class LocalTokenCounter final : public TokenCounter {
 public:
  // per_message_overhead: tokens the chat template adds around each message.
  explicit LocalTokenCounter(std::shared_ptr<const LocalModel> model, size_t per_message_overhead = 4);
  size_t count(std::string_view text) const override;
  size_t per_message_overhead() const override { return overhead_; }

 private:
  std::shared_ptr<const LocalModel> model_;
  size_t overhead_;
};

struct LocalClientOptions {
  int context_size = 0;       // tokens; 0: the model's trained context, at most 8192
  int batch_size = 512;       // prompt tokens per decode call
  int threads = 0;            // 0: the machine's cores
  int max_tokens = 1024;      // per reply, unless the request says otherwise
  // Sampling defaults a request's SamplingParams override.
  double temperature = 0.7;
  int top_k = 40;
  double top_p = 0.95;
  double min_p = 0.05;
  double repeat_penalty = 1.0;  // 1: off
  int repeat_last_n = 64;
  uint32_t seed = 0xFFFFFFFF;   // 0xFFFFFFFF: a random seed
  bool grammar = true;          // constrain tool calls (and JSON output) with a grammar
  // "auto": the model may answer or call (lazy grammar from the call marker); "required": every
  // reply with tools enabled is one or more calls (the round limit's final call still answers).
  std::string tool_choice = "auto";
  int max_calls_per_reply = 8;  // calls the grammar lets one reply hold (1..16)
  // > 0: the grammar closes strings the schema leaves unbounded after this many characters (bounds
  // a small model looping inside a string; longer values are cut). 0: no limit.
  int max_string_chars = 0;
  bool prefix_reuse = true;     // keep the KV cache across requests and evaluate only new tokens
  // When set: restored (if it exists and matches the model) before the first request, and written
  // after every reply, so a resumed session starts with its prompt already evaluated.
  std::string state_file;
};

// One context over a shared model: an LlmClient.
class LocalClient final : public LlmClient {
 public:
  LocalClient(std::shared_ptr<LocalModel> model, LocalClientOptions options);
  ~LocalClient() override;
  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override;
  std::string describe() const override;

  // The prompt tokens `request` would be evaluated as (what the model receives).
  Result<std::vector<int32_t>> prompt_tokens(const ModelRequest& request) const;

  // Tokens the last request evaluated (after the reused prefix), and how many it reused.
  int64_t last_prompt_evaluated() const;
  int64_t last_prompt_reused() const;
  // Writes / reads the context's KV cache and its token list (a file of llama.cpp's session format).
  Status save_state(const std::string& path);
  Status load_state(const std::string& path);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel
