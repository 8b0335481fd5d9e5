// Reading the machine's events (json_codec.hpp's forms) from JSON text without a document: a host
// sends one per step, with every tool result in full, and a document of it cost a browser step more
// than the machine's own work. The text is validated strictly first; values are read in place.
#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/parsing/json/json_scan.hpp"
#include "core/parsing/json/json_view.hpp"
#include "keel/core/json_codec.hpp"

namespace keel {
namespace {

using detail::JsonType;
using detail::JsonView;

// An object's member; none when `object` is not an object (as a document reads a missing field).
std::optional<JsonView> event_member(const JsonView& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  return object.find(key);
}

Result<std::string> get_string(const JsonView& j, std::string_view key, bool required = true) {
  std::optional<JsonView> v = event_member(j, key);
  if (!v) {
    if (required) return Status::InvalidArgument("missing field '" + std::string(key) + "'");
    return std::string();
  }
  if (!v->is_string()) return Status::InvalidArgument("field '" + std::string(key) + "' must be a string");
  return v->str();
}

// A whole number of tokens; 0 when absent, a fraction cut off.
Result<int64_t> get_count(const JsonView& j, std::string_view key) {
  std::optional<JsonView> v = event_member(j, key);
  if (!v) return int64_t{0};
  if (v->type() != JsonType::kNumber)
    return Status::InvalidArgument("field '" + std::string(key) + "' must be a number");
  const std::string_view raw = v->raw();
  int64_t n = 0;
  if (detail::json_number_is_integer(raw) &&
      std::from_chars(raw.data(), raw.data() + raw.size(), n).ec == std::errc()) {
    return n;
  }
  return static_cast<int64_t>(std::strtod(std::string(raw).c_str(), nullptr));
}

Result<Usage> usage_from(const JsonView& u, std::string_view what) {
  if (!u.is_object()) return Status::InvalidArgument("'" + std::string(what) + "' must be an object");
  Usage usage;
  KEEL_ASSIGN_OR_RETURN(usage.prompt_tokens, get_count(u, "prompt_tokens"));
  KEEL_ASSIGN_OR_RETURN(usage.completion_tokens, get_count(u, "completion_tokens"));
  return usage;
}

Result<ToolStatus> status_from(const std::string& s) {
  for (auto st : {ToolStatus::kOk, ToolStatus::kError, ToolStatus::kTimeout, ToolStatus::kDenied, ToolStatus::kBlocked,
                  ToolStatus::kCancelled}) {
    if (tool_status_name(st) == s) return st;
  }
  return Status::InvalidArgument("unknown tool status '" + s + "'");
}

// Each element of the array `j[key]` (none when absent) read by read(element).
template <typename Read>
Status each_of(const JsonView& j, std::string_view key, Read read) {
  std::optional<JsonView> list = event_member(j, key);
  if (!list) return Status::Ok();
  if (!list->is_array()) return Status::InvalidArgument("'" + std::string(key) + "' must be an array");
  JsonView::Items items = list->items();
  JsonView unused;
  JsonView element;
  while (items.next(unused, element)) {
    Status s = read(element);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Result<ModelReply> reply_from(const JsonView& j) {
  if (!j.is_object()) return Status::InvalidArgument("'reply' must be an object");
  ModelReply r;
  KEEL_ASSIGN_OR_RETURN(r.text, get_string(j, "text", false));
  KEEL_ASSIGN_OR_RETURN(r.reasoning, get_string(j, "reasoning", false));
  Status calls = each_of(j, "tool_calls", [&](const JsonView& c) -> Status {
    ToolCall call;
    KEEL_ASSIGN_OR_RETURN(call.id, get_string(c, "id", false));
    KEEL_ASSIGN_OR_RETURN(call.name, get_string(c, "name"));
    if (std::optional<JsonView> args = event_member(c, "arguments")) {
      // Text as it is; a value is written as a document writes it (keys sorted), the same on every host.
      call.arguments = args->is_string() ? args->str() : nlohmann::json::parse(args->raw()).dump();
    }
    r.tool_calls.push_back(std::move(call));
    return Status::Ok();
  });
  if (!calls.ok()) return calls;
  if (std::optional<JsonView> u = j.find("usage")) {
    KEEL_ASSIGN_OR_RETURN(r.usage, usage_from(*u, "usage"));
  }
  return r;
}

Result<Event> tools_finished_from(const JsonView& j) {
  if (!event_member(j, "results")) return Status::InvalidArgument("'results' must be an array");
  ToolsFinished done;
  Status read = each_of(j, "results", [&](const JsonView& r) -> Status {
    ToolResult res;
    KEEL_ASSIGN_OR_RETURN(res.call_id, get_string(r, "call_id", false));
    KEEL_ASSIGN_OR_RETURN(std::string status, get_string(r, "status"));
    KEEL_ASSIGN_OR_RETURN(res.status, status_from(status));
    KEEL_ASSIGN_OR_RETURN(res.content, get_string(r, "content", false));
    if (std::optional<JsonView> u =
            event_member(r, "model_usage")) {  // a sub-agent's model calls, in this run's budget
      KEEL_ASSIGN_OR_RETURN(res.model_usage, usage_from(*u, "model_usage"));
    }
    done.results.push_back(std::move(res));
    return Status::Ok();
  });
  if (!read.ok()) return read;
  return Event{std::move(done)};
}

Result<Event> approvals_given_from(const JsonView& j) {
  ApprovalsGiven given;
  Status read = each_of(j, "decisions", [&](const JsonView& d) -> Status {
    ApprovalDecision dec;
    KEEL_ASSIGN_OR_RETURN(dec.call_id, get_string(d, "call_id"));
    KEEL_ASSIGN_OR_RETURN(std::string verdict, get_string(d, "verdict"));
    bool known = false;
    for (auto v : {ApprovalVerdict::kAllow, ApprovalVerdict::kAllowAlways, ApprovalVerdict::kDeny}) {
      if (approval_verdict_name(v) == verdict) {
        dec.verdict = v;
        known = true;
      }
    }
    if (!known) return Status::InvalidArgument("verdict must be allow, allow_always or deny, got '" + verdict + "'");
    KEEL_ASSIGN_OR_RETURN(dec.reason, get_string(d, "reason", false));
    given.decisions.push_back(std::move(dec));
    return Status::Ok();
  });
  if (!read.ok()) return read;
  return Event{std::move(given)};
}

Result<Event> event_from_view(const JsonView& j) {
  KEEL_ASSIGN_OR_RETURN(std::string type, get_string(j, "type"));
  if (type == "model_replied") {
    std::optional<JsonView> reply = j.find("reply");
    if (!reply) return Status::InvalidArgument("missing field 'reply'");
    KEEL_ASSIGN_OR_RETURN(ModelReply r, reply_from(*reply));
    return Event{ModelReplied{std::move(r)}};
  }
  if (type == "model_failed") {
    KEEL_ASSIGN_OR_RETURN(std::string msg, get_string(j, "message"));
    return Event{ModelFailed{Status::Unavailable(msg)}};
  }
  if (type == "tools_finished") return tools_finished_from(j);
  if (type == "approvals_given") return approvals_given_from(j);
  if (type == "continue_requested") {
    KEEL_ASSIGN_OR_RETURN(std::string msg, get_string(j, "message"));
    return Event{ContinueRequested{std::move(msg)}};
  }
  if (type == "aborted") {
    KEEL_ASSIGN_OR_RETURN(std::string reason, get_string(j, "reason", false));
    return Event{Aborted{std::move(reason)}};
  }
  return Status::InvalidArgument("unknown event type '" + type + "'");
}

}  // namespace

Result<Event> event_from_text(std::string_view text) {
  detail::JsonIndex index;
  const detail::StrictJson v = detail::scan_strict_json(text, &index);
  if (!v.ok) return Status::InvalidArgument("an event must be JSON");
  const JsonView event(text.substr(v.begin, v.end - v.begin), &index);
  if (!event.is_object()) return Status::InvalidArgument("an event must be a JSON object");
  return event_from_view(event);
}

Result<Event> event_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::InvalidArgument("an event must be a JSON object");
  return event_from_text(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));  // bad UTF-8: U+FFFD
}

}  // namespace keel
