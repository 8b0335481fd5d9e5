// render_chat: each family's prompt format, written message by message.
//
// Prefix stability drives the layout: what a message writes never depends on the messages after
// it. So each tool result is its own turn (not grouped with its neighbours as Qwen's template
// does, which would reopen a closed turn), and Mistral / Gemma system text opens the user turn
// that the next user message completes.
#include <nlohmann/json.hpp>

#include "keel/core/chat_template.hpp"

namespace keel {
namespace {

using ojson = nlohmann::ordered_json;

// JSON text that never throws: invalid UTF-8 in tool output or descriptions becomes U+FFFD.
std::string chat_json_text(const ojson& j) {
  return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

// {"type": "function", "function": {"name", "description", "parameters"}}, the shape the
// families' templates list tools in.
std::string chat_tool_json(const ToolSpec& t) {
  ojson params = ojson::parse(t.parameters_schema, nullptr, false);
  if (params.is_discarded() || !params.is_object()) params = ojson{{"type", "object"}};
  ojson fn;
  fn["name"] = t.name;
  fn["description"] = t.description;
  fn["parameters"] = std::move(params);
  ojson tool;
  tool["type"] = "function";
  tool["function"] = std::move(fn);
  return chat_json_text(tool);
}

// The tool section of a system text: the signatures and how to call them in `syntax`.
std::string chat_tools_section(const CallSyntax& syntax, std::span<const ToolSpec> tools) {
  std::string s = "# Tools\n\nYou may call one or more of these functions. Their signatures (JSON Schema) are ";
  s.append("inside <tools></tools>:\n<tools>\n");
  for (const auto& t : tools) {
    s.append(chat_tool_json(t));
    s.push_back('\n');
  }
  s.append("</tools>\n\nTo call functions, write");
  const bool lines = !syntax.close.empty();
  std::string call = "{\"name\": <function-name>, \"";
  call.append(syntax.arguments_key);
  call.append("\": <arguments-object>}");
  if (syntax.list) {
    s.append(" them as one list:\n");
    s.append(syntax.open);
    s.append("[");
    s.append(call);
    s.append(", ...]");
    s.append(syntax.close);
  } else {
    s.append(" one block per call:\n");
    s.append(syntax.open);
    if (lines) s.push_back('\n');
    s.append(call);
    if (lines) s.push_back('\n');
    s.append(syntax.close);
  }
  return s;
}

// A tool result as the model reads it: {"name": TOOL, "content": OUTPUT}.
std::string chat_result_json(std::string_view name, const std::string& content) {
  ojson r;
  r["name"] = name;
  r["content"] = content;
  return chat_json_text(r);
}

class ChatWriter {
 public:
  ChatWriter(ChatFamily f, std::span<const Message> messages, const ChatRenderOptions& o)
      : family_(f), messages_(messages), options_(o), syntax_(call_syntax(f)) {}

  std::string run() {
    if (options_.add_bos) out_.append(bos());
    size_t first = preamble();
    for (size_t i = first; i < messages_.size(); ++i) message(i);
    if (options_.add_generation_prompt) generation_prompt();
    return std::move(out_);
  }

 private:
  std::string_view bos() const {
    switch (family_) {
      case ChatFamily::kLlama3:
        return "<|begin_of_text|>";
      case ChatFamily::kMistral:
        return "<s>";
      case ChatFamily::kGemma:
        return "<bos>";
      case ChatFamily::kChatML:
        break;
    }
    return "";
  }

  bool leading_system() const { return !messages_.empty() && messages_[0].role == Role::kSystem; }

  // The leading system text and the tool section; returns the first message still to write.
  size_t preamble() {
    const bool sys = leading_system();
    const bool tools = !options_.tools.empty();
    if (!sys && !tools) return 0;
    std::string text = sys ? messages_[0].content : std::string();
    if (family_ == ChatFamily::kMistral) {
      if (tools) {
        out_.append("[AVAILABLE_TOOLS][");
        for (size_t i = 0; i < options_.tools.size(); ++i) {
          if (i > 0) out_.append(", ");
          out_.append(chat_tool_json(options_.tools[i]));
        }
        out_.append("][/AVAILABLE_TOOLS]");
      }
      if (sys) fold_system(text);
      return sys ? 1 : 0;
    }
    if (tools) {
      if (!text.empty()) text.append("\n\n");
      text.append(chat_tools_section(syntax_, options_.tools));
    }
    switch (family_) {
      case ChatFamily::kChatML:
        turn("system", text);
        break;
      case ChatFamily::kLlama3:
        if (tools) text.insert(0, "Environment: ipython\n\n");
        turn("system", text);
        break;
      case ChatFamily::kGemma:
        fold_system(text);
        break;
      case ChatFamily::kMistral:
        break;
    }
    return sys ? 1 : 0;
  }

  void message(size_t i) {
    const Message& m = messages_[i];
    switch (m.role) {
      case Role::kSystem:
        if (family_ == ChatFamily::kMistral || family_ == ChatFamily::kGemma) {
          fold_system(m.content);
        } else {
          turn("system", m.content);
        }
        return;
      case Role::kUser:
        user(m.content);
        return;
      case Role::kAssistant:
        assistant(m);
        return;
      case Role::kTool:
        tool(i);
        return;
    }
  }

  // One whole turn of ChatML or Llama 3.
  void turn(std::string_view role, std::string_view content) {
    if (family_ == ChatFamily::kLlama3) {
      header(role);
      out_.append(content);
      out_.append("<|eot_id|>");
      return;
    }
    out_.append("<|im_start|>");
    out_.append(role);
    out_.push_back('\n');
    out_.append(content);
    out_.append("<|im_end|>\n");
  }

  void header(std::string_view role) {
    out_.append("<|start_header_id|>");
    out_.append(role);
    out_.append("<|end_header_id|>\n\n");
  }

  // Mistral / Gemma: system text opens (or extends) the user turn the next user message completes.
  void fold_system(std::string_view text) {
    open_user();
    out_.append(text);
    out_.append("\n\n");
  }

  void open_user() {
    if (user_open_) return;
    out_.append(family_ == ChatFamily::kMistral ? "[INST]" : "<start_of_turn>user\n");
    user_open_ = true;
  }

  // Ends a user turn that folded system text opened but no user message completed.
  void close_user() {
    if (!user_open_) return;
    out_.append(family_ == ChatFamily::kMistral ? "[/INST]" : "<end_of_turn>\n");
    user_open_ = false;
  }

  void user(std::string_view content) {
    if (family_ == ChatFamily::kChatML || family_ == ChatFamily::kLlama3) return turn("user", content);
    open_user();
    out_.append(content);
    close_user();
  }

  void assistant(const Message& m) {
    std::string calls = render_tool_calls(syntax_, m.tool_calls);
    std::string body = m.content;
    // Tagged blocks start on their own line after text; Mistral and Llama 3 write the marker
    // right after it.
    if (!body.empty() && !calls.empty() && !syntax_.close.empty()) body.push_back('\n');
    body.append(calls);
    switch (family_) {
      case ChatFamily::kChatML:
        return turn("assistant", body);
      case ChatFamily::kLlama3:
        return turn("assistant", body);
      case ChatFamily::kMistral:
        close_user();
        out_.append(body);
        out_.append("</s>");
        return;
      case ChatFamily::kGemma:
        close_user();
        out_.append("<start_of_turn>model\n");
        out_.append(body);
        out_.append("<end_of_turn>\n");
        return;
    }
  }

  // The tool's name: the message's own, or the one of the call it answers.
  std::string_view tool_name(size_t i) const {
    const Message& m = messages_[i];
    if (!m.name.empty() || m.tool_call_id.empty()) return m.name;
    for (size_t j = i; j-- > 0;) {
      for (const auto& c : messages_[j].tool_calls) {
        if (c.id == m.tool_call_id) return c.name;
      }
    }
    return m.name;
  }

  void tool(size_t i) {
    std::string result = chat_result_json(tool_name(i), messages_[i].content);
    switch (family_) {
      case ChatFamily::kChatML:
        result.insert(0, "<tool_response>\n");
        result.append("\n</tool_response>");
        return turn("user", result);
      case ChatFamily::kLlama3:
        return turn("ipython", result);
      case ChatFamily::kMistral:
        close_user();
        out_.append("[TOOL_RESULTS]");
        out_.append(result);
        out_.append("[/TOOL_RESULTS]");
        return;
      case ChatFamily::kGemma:
        close_user();
        out_.append("<start_of_turn>user\n<tool_response>\n");
        out_.append(result);
        out_.append("\n</tool_response><end_of_turn>\n");
        return;
    }
  }

  void generation_prompt() {
    switch (family_) {
      case ChatFamily::kChatML:
        out_.append("<|im_start|>assistant\n");
        return;
      case ChatFamily::kLlama3:
        header("assistant");
        return;
      case ChatFamily::kMistral:
        close_user();
        return;
      case ChatFamily::kGemma:
        close_user();
        out_.append("<start_of_turn>model\n");
        return;
    }
  }

  ChatFamily family_;
  std::span<const Message> messages_;
  const ChatRenderOptions& options_;
  CallSyntax syntax_;
  std::string out_;
  bool user_open_ = false;  // Mistral / Gemma: a user turn is open (folded system text)
};

}  // namespace

std::string render_chat(ChatFamily f, std::span<const Message> messages, const ChatRenderOptions& options) {
  // Nothing here throws a JSON exception: schemas are parsed without exceptions and text is
  // dumped with invalid UTF-8 replaced.
  return ChatWriter(f, messages, options).run();
}

std::string tool_instructions(const CallSyntax& syntax, std::span<const ToolSpec> tools) {
  return chat_tools_section(syntax, tools);
}

}  // namespace keel
