// keel/model_chat_template.hpp — a model's own chat template (the Jinja text a GGUF carries as
// tokenizer.chat_template), executed the way Hugging Face transformers' apply_chat_template
// executes it, so a local model gets the prompt it was trained on.
//
//   auto t = keel::ModelChatTemplate::parse(source, "qwen3.gguf");
//   if (!t.ok()) return t.status();               // "chat template qwen3.gguf: line 12: ..."
//   keel::ChatTemplateInputs in;
//   in.messages = messages; in.tools = tools; in.bos_token = "<s>";
//   auto prompt = t->render(in);
//
// The engine is llama.cpp's (common/jinja, built from the release keel fetches): the environment
// transformers gives templates (trim_blocks, lstrip_blocks, loop controls, raise_exception,
// strftime_now, tojson without HTML escaping, the string and list methods templates use).
// Inputs follow transformers' conventions: tool-call arguments are objects (text that is not a
// JSON object is passed as a string), tools are {"type":"function","function":{...}}, assistant
// reasoning is `reasoning_content`.
//
// Built without the engine (no llama.cpp sources) parse() returns kUnavailable and
// chat_template_engine_available() is false.
// Thread-safety: a parsed template is immutable; render() may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/chat_template.hpp"
#include "keel/message.hpp"
#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// Whether this build can execute Jinja chat templates.
bool chat_template_engine_available();

// What a template is rendered with (the variables transformers passes).
struct ChatTemplateInputs {
  std::span<const Message> messages;
  std::span<const ToolSpec> tools;    // empty: `tools` is undefined, as when a request has none
  bool add_generation_prompt = true;  // end with the opening of the assistant's turn
  std::string bos_token;
  std::string eos_token;
  std::optional<bool> enable_thinking;  // the reasoning switch of Qwen 3, DeepSeek, SmolLM3, ...
  std::string extra_json;               // a JSON object whose members become variables too
  int64_t now_seconds = 0;              // what strftime_now formats (Unix time); 0: the clock
};

class ModelChatTemplate {
 public:
  // Parses `source`; `name` says whose template it is in every error. Errors: kInvalidArgument
  // naming the template and the line (a syntax error), kUnavailable (no engine in this build).
  static Result<ModelChatTemplate> parse(std::string source, std::string name);

  // The prompt. Errors (kInvalidArgument, naming the template and the line): raise_exception
  // fired, an unknown filter or function, a value of the wrong type.
  Result<std::string> render(const ChatTemplateInputs& inputs) const;
  // The same, with every variable in one JSON object ({"messages": [...], "tools": [...],
  // "add_generation_prompt": true, ...}), as `keel template render` passes them.
  Result<std::string> render_json(std::string_view variables_json, int64_t now_seconds = 0) const;

  // The prompt in pieces, each saying whether its text came from the messages (content, names,
  // arguments) or from the template itself, so a backend can keep special tokens written inside a
  // message ("<|im_end|>" in a web page a tool fetched) from being read as the model's own.
  struct Part {
    std::string text;
    bool from_messages = false;
  };
  Result<std::vector<Part>> render_parts(const ChatTemplateInputs& inputs) const;

  const std::string& name() const;
  const std::string& source() const;

  struct Impl;

 private:
  explicit ModelChatTemplate(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  // The variables of `inputs` as JSON: all but the messages, or the messages alone.
  Result<std::string> variables_json(const ChatTemplateInputs& inputs, bool messages_only) const;
  std::shared_ptr<const Impl> impl_;
};

// How a template writes tool calls and ends a turn, read from probe conversations it renders (a
// call, two calls, a plain answer): the markers around the calls are whatever the template
// writes, so a model keel has never seen still gets grammar-constrained calls it can read back.
struct TemplateCallFormat {
  bool writes_calls = false;  // the template renders an assistant's tool calls
  bool describes_tools = false;  // the prompt changes when tools are given (they are described)
  bool grammar = false;       // `syntax` describes them: the tool-call grammar and read_tool_calls apply
  CallSyntax syntax;
  std::string end_of_turn;    // what follows an assistant's answer (trimmed): a stop string
  std::string sample;         // one probe call as the template writes it
  std::string note;           // why there is no grammar, when there is none
};

// The call format of `t`, rendered with the given special tokens. Never fails: a template that
// cannot render the probes gets writes_calls false and the reason in `note`.
TemplateCallFormat derive_call_format(const ModelChatTemplate& t, const std::string& bos_token = "",
                                      const std::string& eos_token = "");

// `messages` as the JSON array a chat template is given (OpenAI's shape with transformers'
// conventions: see above).
std::string chat_template_messages_json(std::span<const Message> messages);
// `tools` as the JSON array a chat template is given.
std::string chat_template_tools_json(std::span<const ToolSpec> tools);

}  // namespace keel
