// Fixture values follow the suite's scenario descriptions (src/scenarios/server/*.ts of
// github.com/modelcontextprotocol/conformance at v0.1.16): exact texts where a scenario compares
// them, a 1x1 PNG and a short WAV made for this file where it only checks the type.
#include "mcp/conformance_fixtures.hpp"

#include <chrono>
#include <thread>

namespace keel::test {

namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// A 1x1 red PNG and 8 samples of 8-bit silence as WAV, base64.
constexpr const char* kPng =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
constexpr const char* kWav = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
constexpr const char* kTemplate = "test://template/{id}/data";

json text(const std::string& t) { return {{"type", "text"}, {"text", t}}; }
json content(json blocks, bool is_error = false) {
  json out = {{"content", std::move(blocks)}};
  if (is_error) out["isError"] = true;
  return out;
}

std::vector<std::string> starting_with(const std::vector<std::string>& all, const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& v : all) {
    if (v.rfind(prefix, 0) == 0) out.push_back(v);
  }
  return out;
}

class FixtureCatalog final : public mcp::ServerCatalog {
 public:
  std::vector<mcp::ResourceEntry> resources() const override {
    return {{"test://static-text", "static-text", "", "A static text resource", "text/plain", -1},
            {"test://static-binary", "static-binary", "", "A static binary resource (PNG)", "image/png", -1},
            {"test://watched-resource", "watched-resource", "", "A resource to subscribe to", "text/plain", -1}};
  }
  std::vector<mcp::ResourceTemplateEntry> resource_templates() const override {
    return {{kTemplate, "template-data", "", "Data for an id", "application/json"}};
  }
  Result<json> read_resource(const std::string& uri) const override {
    if (uri == "test://static-text") {
      return json::array({{{"uri", uri}, {"mimeType", "text/plain"}, {"text", "This is the content of the static text resource."}}});
    }
    if (uri == "test://static-binary") return json::array({{{"uri", uri}, {"mimeType", "image/png"}, {"blob", kPng}}});
    if (uri == "test://watched-resource") {
      return json::array({{{"uri", uri}, {"mimeType", "text/plain"}, {"text", "Watched resource content"}}});
    }
    if (auto vars = mcp::match_uri_template(kTemplate, uri)) {
      const std::string& id = vars->at("id");
      json data = {{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
      return json::array({{{"uri", uri}, {"mimeType", "application/json"}, {"text", data.dump()}}});
    }
    return Status::NotFound("unknown resource " + uri);
  }
  Result<std::string> resource_version(const std::string& uri) const override {
    Result<json> contents = read_resource(uri);
    if (!contents.ok()) return contents.status();
    return std::to_string(contents->dump().size());
  }

  std::vector<mcp::PromptEntry> prompts() const override {
    return {{"test_simple_prompt", "", "A simple prompt without arguments", {}},
            {"test_prompt_with_arguments",
             "",
             "A prompt with arguments",
             {{"arg1", "First test argument", true}, {"arg2", "Second test argument", true}}},
            {"test_prompt_with_embedded_resource",
             "",
             "A prompt with an embedded resource",
             {{"resourceUri", "URI of the resource to embed", true}}},
            {"test_prompt_with_image", "", "A prompt with an image", {}}};
  }
  Result<json> get_prompt(const std::string& name, const std::map<std::string, std::string>& args) const override {
    auto arg = [&](const char* key) -> Result<std::string> {
      auto it = args.find(key);
      if (it == args.end()) return Status::InvalidArgument(name + " needs the argument " + key);
      return it->second;
    };
    auto user = [](json block) { return json{{"role", "user"}, {"content", std::move(block)}}; };
    if (name == "test_simple_prompt") return json::array({user(text("This is a simple prompt for testing."))});
    if (name == "test_prompt_with_arguments") {
      KEEL_ASSIGN_OR_RETURN(std::string a1, arg("arg1"));
      KEEL_ASSIGN_OR_RETURN(std::string a2, arg("arg2"));
      return json::array({user(text("Prompt with arguments: arg1='" + a1 + "', arg2='" + a2 + "'"))});
    }
    if (name == "test_prompt_with_embedded_resource") {
      KEEL_ASSIGN_OR_RETURN(std::string uri, arg("resourceUri"));
      json resource = {{"type", "resource"},
                       {"resource", {{"uri", uri}, {"mimeType", "text/plain"}, {"text", "Embedded resource content for testing."}}}};
      return json::array({user(std::move(resource)), user(text("Please process the embedded resource above."))});
    }
    if (name == "test_prompt_with_image") {
      return json::array({user({{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}),
                          user(text("Please analyze the image above."))});
    }
    return Status::NotFound("unknown prompt " + name);
  }

  Result<std::vector<std::string>> complete(const mcp::CompletionQuery& q) const override {
    if (q.is_prompt && q.ref == "test_prompt_with_arguments") {
      return starting_with({"paris", "park", "party", "world", "hello"}, q.value);
    }
    if (!q.is_prompt && q.ref == kTemplate) return starting_with({"1", "2", "3", "123"}, q.value);
    return Status::NotFound("unknown reference " + q.ref);
  }
};

mcp::ServerTool fixed_tool(const std::string& name, const std::string& description, json result) {
  return {{{"name", name}, {"description", description}, {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}},
          [result](const json&, mcp::CallContext&) { return result; }};
}

json string_args(std::initializer_list<std::pair<const char*, const char*>> props) {
  json schema = {{"type", "object"}, {"properties", json::object()}, {"required", json::array()}};
  for (const auto& [name, description] : props) {
    schema["properties"][name] = {{"type", "string"}, {"description", description}};
    schema["required"].push_back(name);
  }
  return schema;
}

// An elicitation/create and the text the suite expects back.
json elicit(mcp::CallContext& context, const std::string& message, json schema, const std::string& label) {
  Result<json> answer = context.ask_client("elicitation/create", {{"message", message}, {"requestedSchema", std::move(schema)}}, 30s);
  if (!answer.ok()) return content(json::array({text("Elicitation failed: " + answer.status().message())}), true);
  return content(json::array({text(label + "action=" + answer->value("action", "") +
                                   ", content=" + answer->value("content", json::object()).dump())}));
}

}  // namespace

std::shared_ptr<const mcp::ServerCatalog> conformance_fixture_catalog() { return std::make_shared<FixtureCatalog>(); }

std::vector<mcp::ServerTool> conformance_fixture_tools() {
  std::vector<mcp::ServerTool> tools;
  tools.push_back(fixed_tool("test_simple_text", "Returns simple text",
                             content(json::array({text("This is a simple text response for testing.")}))));
  tools.push_back(fixed_tool("test_image_content", "Returns an image",
                             content(json::array({{{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}}}))));
  tools.push_back(fixed_tool("test_audio_content", "Returns audio",
                             content(json::array({{{"type", "audio"}, {"data", kWav}, {"mimeType", "audio/wav"}}}))));
  tools.push_back(fixed_tool(
      "test_embedded_resource", "Returns an embedded resource",
      content(json::array({{{"type", "resource"},
                            {"resource", {{"uri", "test://embedded-resource"}, {"mimeType", "text/plain"},
                                          {"text", "This is an embedded resource content."}}}}}))));
  tools.push_back(fixed_tool(
      "test_multiple_content_types", "Returns text, an image and a resource",
      content(json::array({text("Multiple content types test:"),
                           {{"type", "image"}, {"data", kPng}, {"mimeType", "image/png"}},
                           {{"type", "resource"},
                            {"resource", {{"uri", "test://mixed-content-resource"}, {"mimeType", "application/json"},
                                          {"text", R"({"test":"data","value":123})"}}}}}))));
  tools.push_back(fixed_tool("test_error_handling", "Always fails",
                             content(json::array({text("This tool intentionally returns an error for testing")}), true)));
  tools.push_back({{{"name", "test_tool_with_logging"}, {"description", "Logs three messages while it runs"},
                    {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}},
                   [](const json&, mcp::CallContext& context) {
                     context.log("info", "Tool execution started");
                     std::this_thread::sleep_for(50ms);
                     context.log("info", "Tool processing data");
                     std::this_thread::sleep_for(50ms);
                     context.log("info", "Tool execution completed");
                     return content(json::array({text("Tool with logging executed successfully")}));
                   }});
  tools.push_back({{{"name", "test_tool_with_progress"}, {"description", "Reports progress while it runs"},
                    {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}},
                   [](const json&, mcp::CallContext& context) {
                     context.progress(0, 100, "");
                     std::this_thread::sleep_for(50ms);
                     context.progress(50, 100, "");
                     std::this_thread::sleep_for(50ms);
                     context.progress(100, 100, "");
                     return content(json::array({text("Tool with progress executed successfully")}));
                   }});
  tools.push_back({{{"name", "test_sampling"}, {"description", "Asks the client's model"},
                    {"inputSchema", string_args({{"prompt", "The prompt to send to the LLM"}})}},
                   [](const json& args, mcp::CallContext& context) {
                     json params = {{"messages", json::array({{{"role", "user"}, {"content", text(args.value("prompt", ""))}}})},
                                    {"maxTokens", 100}};
                     Result<json> answer = context.ask_client("sampling/createMessage", params, 30s);
                     if (!answer.ok()) return content(json::array({text("Sampling failed: " + answer.status().message())}), true);
                     json block = answer->value("content", json::object());
                     std::string said = block.is_object() ? block.value("text", "") : "";
                     return content(json::array({text("LLM response: " + said)}));
                   }});
  tools.push_back({{{"name", "test_elicitation"}, {"description", "Asks the client's user"},
                    {"inputSchema", string_args({{"message", "The message to show the user"}})}},
                   [](const json& args, mcp::CallContext& context) {
                     json schema = {{"type", "object"},
                                    {"properties", {{"username", {{"type", "string"}, {"description", "User's response"}}},
                                                    {"email", {{"type", "string"}, {"description", "User's email address"}}}}},
                                    {"required", {"username", "email"}}};
                     return elicit(context, args.value("message", ""), std::move(schema), "User response: ");
                   }});
  tools.push_back({{{"name", "test_elicitation_sep1034_defaults"}, {"description", "Elicitation with defaults"},
                    {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}},
                   [](const json&, mcp::CallContext& context) {
                     json schema = {{"type", "object"},
                                    {"properties",
                                     {{"name", {{"type", "string"}, {"default", "John Doe"}}},
                                      {"age", {{"type", "integer"}, {"default", 30}}},
                                      {"score", {{"type", "number"}, {"default", 95.5}}},
                                      {"status", {{"type", "string"}, {"enum", {"active", "inactive", "pending"}}, {"default", "active"}}},
                                      {"verified", {{"type", "boolean"}, {"default", true}}}}}};
                     return elicit(context, "Please review your details", std::move(schema), "Elicitation completed: ");
                   }});
  tools.push_back({{{"name", "test_elicitation_sep1330_enums"}, {"description", "Elicitation with every enum form"},
                    {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}},
                   [](const json&, mcp::CallContext& context) {
                     json titled = json::array({{{"const", "value1"}, {"title", "First Option"}},
                                                {{"const", "value2"}, {"title", "Second Option"}},
                                                {{"const", "value3"}, {"title", "Third Option"}}});
                     json titled_multi = json::array({{{"const", "value1"}, {"title", "First Choice"}},
                                                      {{"const", "value2"}, {"title", "Second Choice"}},
                                                      {{"const", "value3"}, {"title", "Third Choice"}}});
                     json schema = {
                         {"type", "object"},
                         {"properties",
                          {{"untitledSingle", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}},
                           {"titledSingle", {{"type", "string"}, {"oneOf", titled}}},
                           {"legacyEnum", {{"type", "string"}, {"enum", {"opt1", "opt2", "opt3"}},
                                           {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
                           {"untitledMulti", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}}}},
                           {"titledMulti", {{"type", "array"}, {"items", {{"anyOf", titled_multi}}}}}}}};
                     return elicit(context, "Please choose", std::move(schema), "Elicitation completed: ");
                   }});
  json schema_2020 = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                      {"type", "object"},
                      {"$defs", {{"address", {{"type", "object"}, {"properties", {{"street", {{"type", "string"}}}, {"city", {{"type", "string"}}}}}}}}},
                      {"properties", {{"name", {{"type", "string"}}}, {"address", {{"$ref", "#/$defs/address"}}}}},
                      {"additionalProperties", false}};
  tools.push_back({{{"name", "json_schema_2020_12_tool"}, {"description", "Tool with JSON Schema 2020-12 features"},
                    {"inputSchema", std::move(schema_2020)}},
                   [](const json& args, mcp::CallContext&) { return content(json::array({text("received " + args.dump())})); }});
  return tools;
}

}  // namespace keel::test
