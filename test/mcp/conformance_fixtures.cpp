// Fixture values follow the suite's scenario descriptions (src/scenarios/server/*.ts of
// github.com/modelcontextprotocol/conformance at v0.1.16, and for the 2026-07-28 revision's
// multi round-trip requests and diagnostic tools at 0.2.0-alpha.12, with its reference server
// examples/servers/typescript/everything-server.ts): exact texts and input keys where a scenario
// compares them, a 1x1 PNG and a short WAV made for this file where it only checks the type.
#include "mcp/conformance_fixtures.hpp"

#include "mcp_server/request_state_seal.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <random>
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

// The suite's multi round-trip helpers: an elicitation of one field, the text an answer gives
// for a field ("unknown" when missing), an InputRequiredResult.
json elicitation(const std::string& message, const std::string& field, const std::string& type) {
  return {{"method", "elicitation/create"},
          {"params", {{"message", message},
                      {"requestedSchema", {{"type", "object"}, {"properties", {{field, {{"type", type}}}}}, {"required", {field}}}}}}};
}
json sampling(const std::string& prompt, int max_tokens) {
  return {{"method", "sampling/createMessage"},
          {"params", {{"messages", json::array({{{"role", "user"}, {"content", text(prompt)}}})}, {"maxTokens", max_tokens}}}};
}
std::string input_text(const json& answer, const std::string& field) {
  const json content = answer.is_object() ? answer.value("content", json()) : json();
  return content.is_object() && content.contains(field) && content[field].is_string() ? content[field].get<std::string>()
                                                                                      : "unknown";
}
json input_required(json requests, std::optional<std::string> state = std::nullopt) {
  json result = {{"resultType", "input_required"}, {"inputRequests", std::move(requests)}};
  if (state) result["requestState"] = *state;
  return result;
}
std::string nonce() {
  static std::atomic<uint64_t> next{std::random_device{}()};
  return std::to_string(next.fetch_add(1));
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
            {"test_prompt_with_image", "", "A prompt with an image", {}},
            {"test_input_required_result_prompt", "", "MRTR: prompt that requires elicitation input", {}}};
  }
  Result<json> get_prompt_for(const std::string& name, const std::map<std::string, std::string>& args,
                              const json& input_responses) const override {
    if (name != "test_input_required_result_prompt") return get_prompt(name, args);
    if (input_responses.is_object() && input_responses.contains("user_context")) {
      return json::array({{{"role", "user"},
                           {"content", text("Prompt with context: " + input_text(input_responses["user_context"], "context"))}}});
    }
    return input_required({{"user_context", elicitation("What context should the prompt use?", "context", "string")}});
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

mcp::ServerTool stateless_tool(const std::string& name, const std::string& description,
                               std::function<json(const json&, mcp::CallContext&)> call) {
  return {{{"name", name}, {"description", description}, {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}},
          std::move(call)};
}

// The 2026-07-28 scenarios' tools: multi round-trip requests (each reads its retry's
// inputResponses and requestState), a capability the request must declare, and the logging and
// streaming probes.
void append_stateless_tools(std::vector<mcp::ServerTool>& tools) {
  tools.push_back(stateless_tool("test_missing_capability", "Test tool requiring sampling", [](const json&, mcp::CallContext& c) {
    if (!c.client_capabilities().contains("sampling")) {
      c.reject(-32021, "MissingRequiredClientCapabilityError: this tool needs the sampling capability",
               {{"requiredCapabilities", {{"sampling", json::object()}}}});
    }
    return content(json::array({text("Success")}));
  }));
  tools.push_back(stateless_tool("test_input_required_result_elicitation", "MRTR: returns InputRequiredResult with elicitation request",
                                 [](const json&, mcp::CallContext& c) {
    json in = c.input_responses();
    if (in.is_object() && in.contains("user_name")) return content(json::array({text("Hello, " + input_text(in["user_name"], "name") + "!")}));
    return input_required({{"user_name", elicitation("What is your name?", "name", "string")}});
  }));
  tools.push_back(stateless_tool("test_input_required_result_sampling", "MRTR: returns InputRequiredResult with sampling request",
                                 [](const json&, mcp::CallContext& c) {
    json in = c.input_responses();
    if (in.is_object() && in.contains("sample_request")) {
      json said = in["sample_request"].is_object() ? in["sample_request"].value("content", json()) : json();
      std::string t = said.is_object() && said.contains("text") && said["text"].is_string() ? said["text"].get<std::string>() : "no response";
      return content(json::array({text("Sampling result: " + t)}));
    }
    return input_required({{"sample_request", sampling("What is the capital of France?", 100)}});
  }));
  tools.push_back(stateless_tool("test_input_required_result_list_roots", "MRTR: returns InputRequiredResult with roots/list request",
                                 [](const json&, mcp::CallContext& c) {
    json in = c.input_responses();
    if (in.is_object() && in.contains("roots_request")) {
      json roots = in["roots_request"].is_object() ? in["roots_request"].value("roots", json::array()) : json::array();
      return content(json::array({text("Found " + std::to_string(roots.is_array() ? roots.size() : 0) + " root(s)")}));
    }
    return input_required({{"roots_request", {{"method", "roots/list"}, {"params", json::object()}}}});
  }));
  tools.push_back(stateless_tool("test_input_required_result_request_state", "MRTR: returns InputRequiredResult with requestState",
                                 [](const json&, mcp::CallContext& c) {
    json in = c.input_responses();
    json state = json::parse(c.request_state(), nullptr, false);
    if (state.is_object() && state.value("kind", "") == "request-state" && in.is_object() && in.contains("confirm")) {
      json answer = in["confirm"].is_object() ? in["confirm"].value("content", json()) : json();
      if (answer.is_object() && answer.value("ok", false) == true) return content(json::array({text("state-ok: requestState validated")}));
    }
    return input_required({{"confirm", elicitation("Please confirm", "ok", "boolean")}},
                          json{{"kind", "request-state"}, {"nonce", nonce()}}.dump());
  }));
  tools.push_back(stateless_tool("test_input_required_result_multiple_inputs", "MRTR: returns InputRequiredResult with multiple input requests",
                                 [](const json&, mcp::CallContext& c) {
    json in = c.input_responses();
    json state = json::parse(c.request_state(), nullptr, false);
    if (state.is_object() && state.value("kind", "") == "multiple-inputs" && in.is_object() && in.contains("user_name") &&
        in.contains("greeting") && in.contains("client_roots")) {
      json said = in["greeting"].is_object() ? in["greeting"].value("content", json()) : json();
      std::string greeting = said.is_object() && said.contains("text") && said["text"].is_string() ? said["text"].get<std::string>() : "Hello there!";
      json roots = in["client_roots"].is_object() ? in["client_roots"].value("roots", json::array()) : json::array();
      return content(json::array({text("Name: " + input_text(in["user_name"], "name") + "; Greeting: " + greeting +
                                       "; Roots: " + std::to_string(roots.is_array() ? roots.size() : 0))}));
    }
    return input_required({{"user_name", elicitation("What is your name?", "name", "string")},
                           {"greeting", sampling("Generate a greeting", 50)},
                           {"client_roots", {{"method", "roots/list"}, {"params", json::object()}}}},
                          json{{"kind", "multiple-inputs"}, {"nonce", nonce()}}.dump());
  }));
  tools.push_back(stateless_tool("test_input_required_result_multi_round", "MRTR: multi-round InputRequiredResult workflow",
                                 [](const json&, mcp::CallContext& c) {
    json in = c.input_responses();
    json state = json::parse(c.request_state(), nullptr, false);
    const int round = state.is_object() ? state.value("round", 0) : 0;
    if (round == 1 && in.is_object() && in.contains("step1")) {
      return input_required({{"step2", elicitation("Step 2: What is your favorite color?", "color", "string")}},
                            json{{"round", 2}, {"name", input_text(in["step1"], "name")}, {"nonce", nonce()}}.dump());
    }
    if (round == 2 && in.is_object() && in.contains("step2")) {
      return content(json::array({text("Multi-round complete for " + state.value("name", std::string("friend")) + " who likes " +
                                       input_text(in["step2"], "color"))}));
    }
    return input_required({{"step1", elicitation("Step 1: What is your name?", "name", "string")}},
                          json{{"round", 1}, {"nonce", nonce()}}.dump());
  }));
  tools.push_back(stateless_tool("test_input_required_result_tampered_state", "MRTR: HMAC-signed requestState integrity test",
                                 [](const json&, mcp::CallContext& c) {
    static const mcp::RequestStateSeal seal;
    constexpr int64_t kFarFuture = 4102444800000;  // 2100-01-01
    const std::string state = c.request_state();
    if (!state.empty()) {
      if (!seal.verify(state, "tamper-test", 0)) {
        c.reject(-32602, "requestState integrity check failed", nullptr);
        return json::object();
      }
      json in = c.input_responses();
      if (in.is_object() && in.contains("confirm")) return content(json::array({text("integrity-ok: state verified")}));
    }
    return input_required({{"confirm", elicitation("Please confirm", "ok", "boolean")}}, seal.seal("tamper-test", kFarFuture));
  }));
  tools.push_back(stateless_tool("test_input_required_result_capabilities", "MRTR: respects client capabilities in inputRequests",
                                 [](const json&, mcp::CallContext& c) {
    json caps = c.client_capabilities();
    json requests = json::object();
    if (caps.contains("elicitation")) requests["elicit_input"] = elicitation("Elicitation input", "value", "string");
    if (caps.contains("sampling")) requests["sample_input"] = sampling("Sample request", 50);
    json in = c.input_responses();
    if (in.is_object() && !in.empty()) {
      std::string keys;
      for (const auto& [key, value] : in.items()) keys += (keys.empty() ? "" : ",") + key;
      return content(json::array({text("capabilities-ok: received " + keys)}));
    }
    if (requests.empty()) return content(json::array({text("No supported capabilities declared")}));
    return input_required(std::move(requests), json{{"kind", "capabilities-test"}, {"nonce", nonce()}}.dump());
  }));
  tools.push_back(stateless_tool("test_streaming_elicitation", "Streams progress, then answers", [](const json&, mcp::CallContext& c) {
    c.progress(50, 100, "");
    return content(json::array({text("Streaming complete")}));
  }));
  tools.push_back(stateless_tool("test_logging_tool", "Logs only when the request set a log level", [](const json&, mcp::CallContext& c) {
    c.log("info", "test_logging_tool ran");
    return content(json::array({text("Logging tool complete")}));
  }));
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
  // The suite's JSON_SCHEMA_2020_12_FIXTURE (src/scenarios/server/json-schema-2020-12.ts): the
  // 2025-11-25 keywords and SEP-2106's $anchor, allOf/anyOf and if/then/else, all listed as given.
  json schema_2020 = {
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"type", "object"},
      {"$defs", {{"address", {{"$anchor", "addressDef"}, {"type", "object"},
                              {"properties", {{"street", {{"type", "string"}}}, {"city", {{"type", "string"}}}}}}}}},
      {"properties", {{"name", {{"type", "string"}}},
                      {"address", {{"$ref", "#/$defs/address"}}},
                      {"contactMethod", {{"type", "string"}, {"enum", {"phone", "email"}}}},
                      {"phone", {{"type", "string"}}},
                      {"email", {{"type", "string"}}}}},
      {"allOf", json::array({{{"anyOf", json::array({{{"required", {"phone"}}}, {{"required", {"email"}}}})}}})},
      {"if", {{"properties", {{"contactMethod", {{"const", "phone"}}}}}, {"required", {"contactMethod"}}}},
      {"then", {{"required", {"phone"}}}},
      {"else", {{"required", {"email"}}}},
      {"additionalProperties", false}};
  tools.push_back({{{"name", "json_schema_2020_12_tool"}, {"description", "Tool with JSON Schema 2020-12 features"},
                    {"inputSchema", std::move(schema_2020)}},
                   [](const json& args, mcp::CallContext&) { return content(json::array({text("received " + args.dump())})); }});
  append_stateless_tools(tools);
  return tools;
}

}  // namespace keel::test
