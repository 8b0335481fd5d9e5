// McpToolResult::text(): MCP content blocks as the text a model reads.
#include "keel/mcp.hpp"

namespace keel {

using nlohmann::json;

namespace {

std::string str(const json& block, const char* key) {
  auto it = block.find(key);
  return it != block.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "[image image/png, 68 bytes]": base64 carries 3 bytes in 4 characters.
std::string binary_summary(const std::string& kind, const std::string& mime, const std::string& base64) {
  size_t bytes = base64.size() / 4 * 3;
  if (!base64.empty() && base64.back() == '=') --bytes;
  if (base64.size() > 1 && base64[base64.size() - 2] == '=') --bytes;
  std::string out = "[" + kind;
  if (!mime.empty()) out += " " + mime;
  out += ", " + std::to_string(bytes) + " bytes]";
  return out;
}

std::string block_text(const json& block) {
  if (!block.is_object()) return block.dump();
  const std::string type = str(block, "type");
  if (type == "text") return str(block, "text");
  if (type == "image" || type == "audio") return binary_summary(type, str(block, "mimeType"), str(block, "data"));
  if (type == "resource_link") {
    std::string out = "[resource link " + str(block, "uri");
    if (std::string name = str(block, "name"); !name.empty()) out += " (" + name + ")";
    return out + "]";
  }
  if (type == "resource") {
    auto r = block.find("resource");
    if (r == block.end() || !r->is_object()) return "[resource]";
    if (r->contains("text")) return "[resource " + str(*r, "uri") + "]\n" + str(*r, "text");
    return binary_summary("resource " + str(*r, "uri"), str(*r, "mimeType"), str(*r, "blob"));
  }
  return "[" + (type.empty() ? std::string("unknown") : type) + " content]";
}

}  // namespace

std::string McpToolResult::text() const {
  std::string out;
  bool has_text = false;
  if (content.is_array()) {
    for (const json& block : content) {
      if (!out.empty()) out.push_back('\n');
      out += block_text(block);
      if (block.is_object() && block.value("type", "") == "text") has_text = true;
    }
  }
  if (!has_text && !structured.is_null()) {
    if (!out.empty()) out.push_back('\n');
    out += structured.dump();
  }
  return out;
}

}  // namespace keel
