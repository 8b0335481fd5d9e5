// An MCP elicitation asked of the person through the run's UserAsker; see mcp_elicitation.hpp.
#include "assembly/mcp_elicitation.hpp"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "assembly/stop_deadline.hpp"

namespace keel::assembly {

namespace {

using nlohmann::json;

// A choice offered for a field: what the person sees and the value it stands for.
struct Choice {
  std::string label;
  json value;
};

std::vector<Choice> choices_of(const json& field) {
  std::vector<Choice> out;
  const std::string type = field.value("type", "");
  if (type == "boolean") return {{"yes", true}, {"no", false}};
  if (auto e = field.find("enum"); e != field.end() && e->is_array()) {
    const json names = field.value("enumNames", json::array());
    for (size_t i = 0; i < e->size(); ++i) {
      const json& v = (*e)[i];
      std::string label = i < names.size() && names[i].is_string() ? names[i].get<std::string>()
                                                                    : (v.is_string() ? v.get<std::string>() : v.dump());
      out.push_back({std::move(label), v});
    }
  } else if (auto one = field.find("oneOf"); one != field.end() && one->is_array()) {
    for (const json& option : *one) {
      if (!option.is_object() || !option.contains("const")) continue;
      const json& v = option["const"];
      std::string label = option.value("title", v.is_string() ? v.get<std::string>() : v.dump());
      out.push_back({std::move(label), v});
    }
  }
  return out;
}

// The typed value of `text` for `field`; nullopt when it does not parse.
std::optional<json> typed_value(const json& field, const std::string& text) {
  const std::string type = field.value("type", "string");
  if (type == "integer") {
    long long v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return json(v);
  }
  if (type == "number") {
    json v = json::parse(text, nullptr, false);
    if (!v.is_number()) return std::nullopt;
    return v;
  }
  return json(text);
}

json ask_form(UserAsker& asker, std::string_view server, const json& params, std::stop_token stop) {
  const std::string message = params.value("message", "");
  const json schema = params.value("requestedSchema", json::object());
  const json properties = schema.value("properties", json::object());
  const json required = schema.value("required", json::array());
  json content = json::object();
  for (const auto& [name, field] : properties.items()) {
    const bool is_required = std::find(required.begin(), required.end(), name) != required.end();
    UserQuestion q;
    q.question = "MCP server '" + std::string(server) + "' asks: " + message + "\n" + field.value("title", name);
    if (std::string d = field.value("description", ""); !d.empty()) q.question += " (" + d + ")";
    if (field.contains("default")) q.question += " [default: " + field["default"].dump() + "]";
    std::vector<Choice> choices = choices_of(field);
    for (const Choice& c : choices) q.options.push_back(c.label);
    q.allow_free_text = choices.empty() || field.contains("default");
    Result<UserAnswer> answer = asker.ask(q, stop);
    if (!answer.ok()) {
      if (answer.status().code() == ErrorCode::kCancelled || stop.stop_requested()) return {{"action", "cancel"}};
      if (field.contains("default")) {
        content[name] = field["default"];
        continue;
      }
      if (is_required) return {{"action", "decline"}};
      continue;
    }
    std::optional<size_t> chosen = answer->option_index;
    for (size_t i = 0; !chosen && i < choices.size(); ++i) {
      if (choices[i].label == answer->text) chosen = i;  // typed rather than picked
    }
    if (chosen && *chosen < choices.size()) {
      content[name] = choices[*chosen].value;
    } else if (answer->text.empty() && field.contains("default")) {
      content[name] = field["default"];
    } else if (!choices.empty()) {
      return {{"action", "decline"}};  // none of the choices
    } else if (std::optional<json> value = typed_value(field, answer->text)) {
      content[name] = *value;
    } else {
      return {{"action", "decline"}};
    }
  }
  return {{"action", "accept"}, {"content", std::move(content)}};
}

json ask_url(UserAsker& asker, std::string_view server, const json& params, std::stop_token stop) {
  UserQuestion q;
  q.question = "MCP server '" + std::string(server) + "' asks you to open " + params.value("url", std::string("(no URL)")) +
               ": " + params.value("message", "") + "\nDid you complete it there?";
  q.options = {"yes, done", "no"};
  q.allow_free_text = false;
  Result<UserAnswer> answer = asker.ask(q, stop);
  if (!answer.ok()) return {{"action", answer.status().code() == ErrorCode::kCancelled ? "cancel" : "decline"}};
  return {{"action", answer->option_index == 0u ? "accept" : "decline"}};
}

}  // namespace

ElicitationHook elicitation_through_asker(std::shared_ptr<UserAsker> asker, std::chrono::milliseconds timeout) {
  if (!asker) return nullptr;
  auto one_at_a_time = std::make_shared<std::mutex>();
  return [asker, timeout, one_at_a_time](std::string_view server, const json& params) -> json {
    std::lock_guard lock(*one_at_a_time);
    std::stop_source stop;
    StopDeadline deadline(stop, timeout);
    const json safe = params.is_object() ? params : json::object();
    if (safe.value("mode", "form") == "url") return ask_url(*asker, server, safe, stop.get_token());
    return ask_form(*asker, server, safe, stop.get_token());
  };
}

}  // namespace keel::assembly
