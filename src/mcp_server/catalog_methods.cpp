// answer_catalog_method: MCP's shapes for ServerCatalog's plain values. Lists are sent whole (no
// cursor): a catalog keeps its own lists short.
#include "mcp_server/catalog_methods.hpp"

#include "mcp_server/jsonrpc_reply.hpp"

namespace keel::mcp {

namespace {

using nlohmann::json;

constexpr size_t kMaxCompletionValues = 100;  // the protocol's cap per response

json resource_json(const ResourceEntry& r) {
  json out = {{"uri", r.uri}, {"name", r.name}};
  if (!r.title.empty()) out["title"] = r.title;
  if (!r.description.empty()) out["description"] = r.description;
  if (!r.mime_type.empty()) out["mimeType"] = r.mime_type;
  if (r.size >= 0) out["size"] = r.size;
  return out;
}

json template_json(const ResourceTemplateEntry& t) {
  json out = {{"uriTemplate", t.uri_template}, {"name", t.name}};
  if (!t.title.empty()) out["title"] = t.title;
  if (!t.description.empty()) out["description"] = t.description;
  if (!t.mime_type.empty()) out["mimeType"] = t.mime_type;
  return out;
}

json prompt_json(const PromptEntry& p) {
  json out = {{"name", p.name}};
  if (!p.title.empty()) out["title"] = p.title;
  if (!p.description.empty()) out["description"] = p.description;
  if (!p.arguments.empty()) {
    json args = json::array();
    for (const PromptArgumentEntry& a : p.arguments) {
      json arg = {{"name", a.name}, {"required", a.required}};
      if (!a.description.empty()) arg["description"] = a.description;
      args.push_back(std::move(arg));
    }
    out["arguments"] = std::move(args);
  }
  return out;
}

// params[key] as a string, or nullopt when absent or not a string.
std::optional<std::string> string_param(const json& params, const char* key) {
  if (!params.is_object()) return std::nullopt;
  auto it = params.find(key);
  if (it == params.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// Redacts every "text" string in `value` (resource contents, prompt messages and their blocks).
void redact_texts(json& value, const SecretRedactor* redactor) {
  if (redactor == nullptr || redactor->empty()) return;
  if (value.is_array()) {
    for (json& item : value) redact_texts(item, redactor);
  } else if (value.is_object()) {
    for (auto& [key, item] : value.items()) {
      if (key == "text" && item.is_string()) {
        redactor->redact_in_place(item.get_ref<std::string&>());
      } else if (item.is_structured()) {
        redact_texts(item, redactor);
      }
    }
  }
}

json read_resource(const json& id, const json& params, Catalogs catalogs, const SecretRedactor* redactor) {
  std::optional<std::string> uri = string_param(params, "uri");
  if (!uri) return reply_error(id, kRpcInvalidParams, "resources/read needs params.uri (a string)");
  for (const auto& catalog : catalogs) {
    Result<json> contents = catalog->read_resource(*uri);
    if (contents.ok()) {
      redact_texts(*contents, redactor);
      return reply_result(id, {{"contents", std::move(*contents)}});
    }
    if (contents.status().code() != ErrorCode::kNotFound) {
      return reply_error(id, kRpcInvalidParams, contents.status().message(), {{"uri", *uri}});
    }
  }
  return reply_error(id, kRpcResourceNotFound, "Resource not found: " + *uri, {{"uri", *uri}});
}

json get_prompt(const json& id, const json& params, Catalogs catalogs, const SecretRedactor* redactor) {
  std::optional<std::string> name = string_param(params, "name");
  if (!name) return reply_error(id, kRpcInvalidParams, "prompts/get needs params.name (a string)");
  std::map<std::string, std::string> arguments;
  if (params.contains("arguments") && !params["arguments"].is_null()) {
    if (!params["arguments"].is_object()) {
      return reply_error(id, kRpcInvalidParams, "prompts/get params.arguments must be an object of strings");
    }
    for (const auto& [key, value] : params["arguments"].items()) {
      if (!value.is_string()) {
        return reply_error(id, kRpcInvalidParams, "prompt argument \"" + key + "\" must be a string");
      }
      arguments[key] = value.get<std::string>();
    }
  }
  for (const auto& catalog : catalogs) {
    Result<json> messages = catalog->get_prompt_for(*name, arguments, params.is_object() ? params.value("inputResponses", json()) : json());
    if (messages.ok() && messages->is_object()) return reply_result(id, std::move(*messages));  // input required
    if (messages.ok()) {
      redact_texts(*messages, redactor);
      json result = {{"messages", std::move(*messages)}};
      for (const PromptEntry& p : catalog->prompts()) {
        if (p.name == *name && !p.description.empty()) result["description"] = p.description;
      }
      return reply_result(id, std::move(result));
    }
    if (messages.status().code() != ErrorCode::kNotFound) {
      return reply_error(id, kRpcInvalidParams, messages.status().message());
    }
  }
  return reply_error(id, kRpcInvalidParams, "unknown prompt: " + *name);
}

json complete(const json& id, const json& params, Catalogs catalogs) {
  const json ref = params.is_object() ? params.value("ref", json()) : json();
  const json argument = params.is_object() ? params.value("argument", json()) : json();
  std::optional<std::string> type = string_param(ref, "type");
  CompletionQuery query;
  if (type == "ref/prompt") {
    query.is_prompt = true;
    query.ref = string_param(ref, "name").value_or("");
  } else if (type == "ref/resource") {
    query.is_prompt = false;
    query.ref = string_param(ref, "uri").value_or("");
  } else {
    return reply_error(id, kRpcInvalidParams, "completion/complete needs params.ref of type ref/prompt or ref/resource");
  }
  std::optional<std::string> arg_name = string_param(argument, "name");
  if (query.ref.empty() || !arg_name) {
    return reply_error(id, kRpcInvalidParams,
                     "completion/complete needs params.ref's name or uri and params.argument.name");
  }
  query.argument = *arg_name;
  query.value = string_param(argument, "value").value_or("");
  if (params.contains("context") && params["context"].is_object()) {
    const json& chosen = params["context"].value("arguments", json::object());
    if (chosen.is_object()) {
      for (const auto& [key, value] : chosen.items()) {
        if (value.is_string()) query.context[key] = value.get<std::string>();
      }
    }
  }
  for (const auto& catalog : catalogs) {
    Result<std::vector<std::string>> values = catalog->complete(query);
    if (values.status().code() == ErrorCode::kNotFound) continue;
    if (!values.ok()) return reply_error(id, kRpcInvalidParams, values.status().message());
    size_t total = values->size();
    if (values->size() > kMaxCompletionValues) values->resize(kMaxCompletionValues);
    return reply_result(id, {{"completion", {{"values", *values}, {"total", total}, {"hasMore", total > values->size()}}}});
  }
  return reply_error(id, kRpcInvalidParams, "nothing to complete for " + query.ref);
}

}  // namespace

std::optional<json> answer_catalog_method(const std::string& method, const json& id, const json& params,
                                          Catalogs catalogs, const SecretRedactor* redactor) {
  if (method == "resources/list") {
    json list = json::array();
    for (const auto& catalog : catalogs) {
      for (const ResourceEntry& r : catalog->resources()) list.push_back(resource_json(r));
    }
    return reply_result(id, {{"resources", std::move(list)}});
  }
  if (method == "resources/templates/list") {
    json list = json::array();
    for (const auto& catalog : catalogs) {
      for (const ResourceTemplateEntry& t : catalog->resource_templates()) list.push_back(template_json(t));
    }
    return reply_result(id, {{"resourceTemplates", std::move(list)}});
  }
  if (method == "resources/read") return read_resource(id, params, catalogs, redactor);
  if (method == "prompts/list") {
    json list = json::array();
    for (const auto& catalog : catalogs) {
      for (const PromptEntry& p : catalog->prompts()) list.push_back(prompt_json(p));
    }
    return reply_result(id, {{"prompts", std::move(list)}});
  }
  if (method == "prompts/get") return get_prompt(id, params, catalogs, redactor);
  if (method == "completion/complete") return complete(id, params, catalogs);
  return std::nullopt;
}

Result<std::string> catalog_resource_version(Catalogs catalogs, const std::string& uri) {
  for (const auto& catalog : catalogs) {
    Result<std::string> version = catalog->resource_version(uri);
    if (version.ok() || version.status().code() != ErrorCode::kNotFound) return version;
  }
  return Status::NotFound("unknown resource " + uri);
}

}  // namespace keel::mcp
