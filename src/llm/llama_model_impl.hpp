// The llama.cpp objects behind keel::LocalModel, for the files of the local backend only.
#pragma once

#include "llm/llama_library.hpp"
#include "llm/control_token_index.hpp"

#include <string>

#include "keel/core/chat_template.hpp"
#include "keel/local_model.hpp"
#include "keel/model_chat_template.hpp"

namespace keel {

struct LocalModel::Impl {
  llama_model* model = nullptr;
  const llama_vocab* vocab = nullptr;
  LocalModelInfo info;
  ChatFamily family = ChatFamily::kChatML;
  bool add_bos = false;  // the tokenizer wants a BOS token at the start of a prompt
  std::optional<ModelChatTemplate> chat_template;  // the file's own, when prompts are rendered by it
  std::vector<std::string> stops;                  // where generation ends: the template's end of turn
                                                   // and EOS, or the built-in family's
  std::string bos_text, eos_text;                  // the special tokens' text, for the template
  llama_detail::ControlTokenIndex control_tokens;  // every control token's text (<|im_end|>, ...)
  // How calls are constrained and read: the syntax the grammar writes; whether it fits the
  // prompt's calls (false: a template whose calls keel cannot describe, so no grammar); whether
  // replies are read with that syntax first (else the universal parser alone); whether keel adds
  // its tool section to the system text (a template that ignores `tools`).
  CallSyntax syntax;
  bool grammar_fits = true;
  bool read_with_syntax = false;
  bool inject_tools = false;
  ~Impl();
};

namespace llama_detail {
// Loads llama.cpp and ggml's backends and quiets llama.cpp's log (errors are kept for messages)
// once per process; the error when llama.cpp cannot be loaded.
Status ensure_backend();
// The last error llama.cpp logged on this thread (cleared by the call), for error messages.
std::string take_last_error();
// The text of one token (special tokens rendered).
std::string token_piece(const llama_vocab* vocab, llama_token token);
}  // namespace llama_detail

}  // namespace keel
