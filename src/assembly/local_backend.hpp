// The in-process llama.cpp backend as the CLI and the server configure it: gguf:/local/ model
// names, keel.yaml's `local:` section, and exact token counting.
#pragma once

#include <cstddef>
#include <memory>

#include "keel/config.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/hooks.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"

namespace keel::assembly {

// The GGUF file a kLocal model names: the path of gguf:PATH, or local/NAME in the models folder.
Result<std::string> local_model_path(const ModelSettings& model);

// A LocalClient over the (shared) weights of `model`. A missing or broken file is an error here,
// so a lane cascade reports it as that lane's load failure.
Result<std::unique_ptr<LlmClient>> make_local_backend(const ModelSettings& model, const KeelConfig& config);

// Exact token counts for the context policy: local.tokenizer (a GGUF path, or a family of
// llama.cpp's vocab-only files such as "llama-bpe" or "qwen2"), else a local model's own
// tokenizer; nullptr (the estimate) otherwise or when it cannot be loaded (`warning` says why).
std::shared_ptr<const TokenCounter> make_token_counter(const KeelConfig& config, std::string* warning);

// Why a local model's prompts use one of keel's built-in formats instead of the file's own chat
// template (no template in the file, no engine, local.chat_template set); empty otherwise.
std::string local_prompt_note(const KeelConfig& config);

// When local.kv_cache is on and `llm` is a local model: hooks that restore a session's saved KV
// cache ($KEEL_HOME/kv/SESSION.kv) when a run of it starts and save it when the run ends.
// nullptr otherwise.
std::shared_ptr<Hooks> make_local_state_hooks(LlmClient& llm, const KeelConfig& config);

// The context window a local model runs with (local.context_size, else its trained context up to
// 8192); 0 for other models or when the file cannot be read.
size_t local_context_window(const KeelConfig& config);

}  // namespace keel::assembly
