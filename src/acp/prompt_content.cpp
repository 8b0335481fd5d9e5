#include "acp/prompt_content.hpp"

namespace keel::acp {

using nlohmann::json;

Result<std::string> prompt_text(const json& prompt) {
  if (!prompt.is_array() || prompt.empty()) return Status::InvalidArgument("'prompt' must be a non-empty array of content blocks");
  std::string text;
  auto add = [&](const std::string& piece) {
    if (!text.empty()) text += "\n\n";
    text += piece;
  };
  for (const json& block : prompt) {
    const std::string type = block.is_object() && block.value("type", json()).is_string() ? block["type"].get<std::string>() : "";
    if (type == "text" && block.value("text", json()).is_string()) {
      if (!text.empty()) text += "\n";
      text += block["text"].get<std::string>();
    } else if (type == "resource_link" && block.value("uri", json()).is_string()) {
      const std::string uri = block["uri"].get<std::string>();
      add("[" + block.value("name", uri) + "](" + uri + ")");
    } else if (type == "resource" && block.value("resource", json()).is_object()) {
      const json& r = block["resource"];
      if (!r.value("text", json()).is_string())
        return Status::InvalidArgument("an embedded resource must be text; keel does not take binary resources");
      add(r.value("uri", std::string("resource")) + ":\n```\n" + r["text"].get<std::string>() + "\n```");
    } else if (type == "image" || type == "audio") {
      return Status::InvalidArgument("keel does not take " + type + " in a prompt (see promptCapabilities)");
    } else {
      return Status::InvalidArgument("unknown or malformed content block" + (type.empty() ? "" : " of type '" + type + "'"));
    }
  }
  if (text.empty()) return Status::InvalidArgument("the prompt has no text");
  return text;
}

void replay_messages(SessionUpdates& updates, const std::vector<StoredMessage>& messages) {
  for (const StoredMessage& stored : messages) {
    const Message& m = stored.message;
    if (m.role == Role::kUser && !m.content.empty()) {
      updates.send("user_message_chunk", {{"content", text_block(m.content)}});
    } else if (m.role == Role::kAssistant) {
      if (!m.reasoning.empty()) updates.send("agent_thought_chunk", {{"content", text_block(m.reasoning)}});
      if (!m.content.empty()) updates.send("agent_message_chunk", {{"content", text_block(m.content)}});
      for (const ToolCall& c : m.tool_calls) updates.send("tool_call", tool_call_json(c));
    } else if (m.role == Role::kTool) {
      auto status = m.metadata.find("status");
      const bool ok = status == m.metadata.end() || status->second == "ok";
      updates.send("tool_call_update",
                   {{"toolCallId", m.tool_call_id},
                    {"status", ok ? "completed" : "failed"},
                    {"content", json::array({{{"type", "content"}, {"content", text_block(m.content)}}})}});
    }
  }
}

}  // namespace keel::acp
