// derive_call_format: how a chat template writes tool calls, read from probe renders.
#include <nlohmann/json.hpp>

#include "core/parsing/formats/format_util.hpp"
#include "core/text/text_util.hpp"
#include "keel/model_chat_template.hpp"

namespace keel {
namespace {

constexpr std::string_view kFirst = "keelprobefn";
constexpr std::string_view kSecond = "keelprobeother";
constexpr std::string_view kArg = "keelarg";
constexpr std::string_view kAnswer = "keelprobeanswer";

using detail::is_blank;

// `s` without leading (trim_front) or trailing (trim_back) whitespace, or both (trim).
std::string trim_front(std::string_view s) { return std::string(s.substr(detail::skip_blanks(s, 0))); }
std::string trim_back(std::string_view s) {
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return std::string(s);
}
std::string trim(std::string_view s) { return std::string(detail::trim(s)); }

size_t common_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}
size_t common_suffix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

bool opens_marker(char c) { return c == '<' || c == '['; }
bool closes_marker(char c) { return c == '>' || c == ']'; }

// A cut at `at` in `s` moved back to the start of the marker it falls inside ("<|eo|" + "t_id|>"
// cuts inside <|eot_id|>): back to a '<' or '[' met before any space or closing bracket.
size_t snap_back(std::string_view s, size_t at) {
  for (size_t k = 1; k <= 32 && k <= at; ++k) {
    char c = s[at - k];
    if (opens_marker(c)) return at - k;
    if (is_blank(c) || closes_marker(c)) break;
  }
  return at;
}
// The same, forward: to just past the '>' or ']' that ends the marker.
size_t snap_forward(std::string_view s, size_t at) {
  if (at > 0 && (closes_marker(s[at - 1]) || is_blank(s[at - 1]))) return at;
  for (size_t k = 0; k < 32 && at + k < s.size(); ++k) {
    char c = s[at + k];
    if (closes_marker(c)) return at + k + 1;
    if (is_blank(c) || opens_marker(c)) break;
  }
  return at;
}

bool at_boundary(std::string_view s, size_t at) {
  if (at == 0 || at >= s.size()) return true;
  char before = s[at - 1], here = s[at];
  return is_blank(before) || closes_marker(before) || is_blank(here) || opens_marker(here);
}
// A common part shrunk to whole markers: a suffix starting at `at` moves forward to a marker's
// start, a prefix ending at `at` moves back to just past a marker's end.
size_t shrink_suffix_start(std::string_view s, size_t at) {
  while (!at_boundary(s, at)) ++at;
  return at;
}
size_t shrink_prefix_end(std::string_view s, size_t at) {
  while (!at_boundary(s, at)) --at;
  return at;
}

struct Span {
  size_t begin = std::string::npos;
  size_t end = std::string::npos;
};

// The arguments object of the call whose name is at `name` ({"keelarg": ...} after it).
Span arguments_of(std::string_view r, size_t name) {
  size_t key = r.find(kArg, name);
  if (key == std::string::npos) return {};
  size_t open = r.rfind('{', key);
  if (open == std::string::npos || open < name) return {};
  size_t end = detail::json_extent(r, open);
  if (end == std::string::npos) return {};
  nlohmann::json args = nlohmann::json::parse(r.substr(open, end - open), nullptr, false);
  if (args.is_discarded() || !args.is_object()) return {};  // braces, but not JSON (Gemma 4's quoting)
  return {open, end};
}

// The JSON object holding both the name at `name` and its arguments.
Span object_around(std::string_view r, size_t name, const Span& args) {
  for (size_t at = r.rfind('{', name); at != std::string::npos; at = at == 0 ? std::string::npos : r.rfind('{', at - 1)) {
    size_t end = detail::json_extent(r, at);
    if (end != std::string::npos && end >= args.end && at < name) return {at, end};
  }
  return {};
}

using OJ = nlohmann::ordered_json;

std::optional<std::string> render_probe(const ModelChatTemplate& t, const OJ& messages, const OJ& tools,
                                        const std::string& bos, const std::string& eos, std::string* error) {
  OJ vars = {{"messages", messages}, {"tools", tools}, {"bos_token", bos}, {"eos_token", eos}, {"add_generation_prompt", false}};
  Result<std::string> r = t.render_json(vars.dump());
  if (!r.ok()) {
    *error = r.status().message();
    return std::nullopt;
  }
  return std::move(r).value();
}

OJ probe_call(std::string_view name, std::string_view id, std::string_view value) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", {{kArg, value}}}}}};
}

}  // namespace

TemplateCallFormat derive_call_format(const ModelChatTemplate& t, const std::string& bos, const std::string& eos) {
  TemplateCallFormat f;
  OJ param = {{"type", "object"}, {"properties", {{kArg, {{"type", "string"}}}}}, {"required", {kArg}}};
  OJ tools = OJ::array();
  for (std::string_view n : {kFirst, kSecond}) {
    tools.push_back({{"type", "function"}, {"function", {{"name", n}, {"description", "probe"}, {"parameters", param}}}});
  }
  OJ user = {{"role", "user"}, {"content", "keelprobeask"}};
  OJ answer = OJ::array({user, {{"role", "assistant"}, {"content", kAnswer}}});
  OJ one = OJ::array({user, {{"role", "assistant"}, {"content", ""}, {"tool_calls", OJ::array({probe_call(kFirst, "keelcall1", "keelvalue")})}}});
  OJ two = OJ::array({user, {{"role", "assistant"}, {"content", ""},
                             {"tool_calls", OJ::array({probe_call(kFirst, "keelcall1", "keelvalue"),
                                                       probe_call(kSecond, "keelcall2", "keelsecond")})}}});
  std::string error;
  std::optional<std::string> a = render_probe(t, answer, tools, bos, eos, &error);
  if (!a) {
    f.note = "the template cannot render a plain answer: " + error;
    return f;
  }
  if (size_t at = a->find(kAnswer); at != std::string::npos) {
    // The first marker after the answer ("<|im_end|>" of "<|im_end|>\n"; "<|end|>" of "<|end|>\n</s>").
    std::string rest = trim(a->substr(at + kAnswer.size()));
    size_t end = rest.empty() || !opens_marker(rest[0]) ? rest.find_first_of(" \n") : rest.find_first_of(">]");
    f.end_of_turn = end == std::string::npos ? rest : rest.substr(0, end + (opens_marker(rest[0]) ? 1 : 0));
  }
  std::optional<std::string> no_tools = render_probe(t, answer, OJ::array(), bos, eos, &error);
  f.describes_tools = !no_tools || *no_tools != *a;
  if (!f.describes_tools) {  // some describe tools only inside a system message
    OJ with_system = answer;
    with_system.insert(with_system.begin(), OJ{{"role", "system"}, {"content", "keelprobesystem"}});
    std::string ignored;
    std::optional<std::string> sys_tools = render_probe(t, with_system, tools, bos, eos, &ignored);
    std::optional<std::string> sys_plain = render_probe(t, with_system, OJ::array(), bos, eos, &ignored);
    f.describes_tools = sys_tools && sys_plain && *sys_tools != *sys_plain;
  }
  std::optional<std::string> b1 = render_probe(t, one, tools, bos, eos, &error);
  std::string error2;
  std::optional<std::string> b2 = b1 ? render_probe(t, two, tools, bos, eos, &error2) : std::nullopt;
  // What the calls add to the turn: the render with calls less what it shares with the answer's,
  // widened to whole markers.
  auto region = [&](const std::string& b) {
    size_t p = common_prefix(*a, b);
    size_t s = std::min(common_suffix(*a, b), std::min(a->size(), b.size()) - p);
    size_t begin = snap_back(b, p);
    size_t end = std::max(begin, snap_forward(b, b.size() - s));
    std::string r = b.substr(begin, end - begin);
    if (!f.end_of_turn.empty()) {  // a turn that ends differently after calls: the end is not the calls'
      if (size_t at = r.find(f.end_of_turn); at != std::string::npos && at > r.find(kFirst)) r.resize(at);
    }
    return r;
  };
  const std::string r1 = b1 ? region(*b1) : std::string();
  if (r1.find(kFirst) == std::string::npos) {
    f.note = b1 ? "the template does not write an assistant's tool calls" : "the template cannot render tool calls: " + error;
    return f;
  }
  f.writes_calls = true;
  f.sample = trim(r1);
  // Two calls show what separates them; a template that allows one call per turn is read from one.
  const std::string both = b2 ? region(*b2) : std::string();
  const bool single = both.find(kSecond) == std::string::npos;  // one call per turn (or only the first written)
  const std::string r2 = single ? r1 : both;
  const size_t n1 = r2.find(kFirst);
  const size_t n2 = single ? std::string::npos : r2.find(kSecond);
  const Span a1 = arguments_of(r2, n1);
  const Span a2 = single ? a1 : arguments_of(r2, n2);
  if (a1.end == std::string::npos || a2.end == std::string::npos || (!single && (n2 == std::string::npos || n2 < a1.end))) {
    f.note = "the arguments are not written as one JSON object per call";
    return f;
  }
  CallSyntax& s = f.syntax;
  std::string before, between, after;
  if (n1 > 0 && r2[n1 - 1] == '"') {
    const Span o1 = object_around(r2, n1, a1);
    const Span o2 = single ? o1 : object_around(r2, n2, a2);
    if (o1.end == std::string::npos || o2.end == std::string::npos) {
      f.note = "the call's name and arguments are not one JSON object";
      return f;
    }
    OJ obj = OJ::parse(r2.substr(o1.begin, o1.end - o1.begin), nullptr, false);
    if (obj.is_discarded() || !obj.contains("name")) {
      f.note = "the call is JSON without a \"name\" member";
      return f;
    }
    for (auto& [k, v] : obj.items()) {
      if (v.is_object() && v.contains(kArg)) s.arguments_key = k;
    }
    size_t name_key = r2.rfind("\"name\"", n1);
    size_t args_key = r2.rfind("\"" + s.arguments_key + "\"", a1.begin);
    if (s.arguments_key.empty() || name_key == std::string::npos || args_key == std::string::npos || args_key < name_key) {
      f.note = "the call's JSON puts its arguments before its name";
      return f;
    }
    before = r2.substr(0, o1.begin);
    between = single ? std::string() : r2.substr(o1.end, o2.begin - o1.end);
    after = r2.substr(o2.end);
    if (trim_back(before).ends_with('[') && (single || trim(between) == ",") && trim_front(after).starts_with(']')) {
      s.list = true;
      s.open = trim(trim_back(before).substr(0, trim_back(before).size() - 1));
      s.close = trim(trim_front(after).substr(1));
      f.grammar = !s.open.empty();
      if (!f.grammar) f.note = "the list of calls has no opening text to start a grammar on";
      return f;
    }
  } else {
    s.name_first = true;
    s.name_close = r2.substr(n1 + kFirst.size(), a1.begin - n1 - kFirst.size());
    if (!single && r2.substr(n2 + kSecond.size(), a2.begin - n2 - kSecond.size()) != s.name_close) {
      f.note = "the text between a call's name and its arguments changes from call to call";
      return f;
    }
    before = r2.substr(0, n1);
    between = single ? std::string() : r2.substr(a1.end, n2 - a1.end);
    after = r2.substr(a2.end);
  }
  if (single) {  // no second call: all the text before is the opening, all after the closing
    s.open = s.name_first ? trim_front(before) : trim(before);
    s.close = s.name_first ? trim_back(after) : trim(after);
    f.grammar = !s.open.empty();
    if (!f.grammar) f.note = "the calls have no opening text to start a grammar on";
    return f;
  }
  // before = calls_open + open; between = close + separator + open; after = close + calls_close.
  size_t open_len = between.size() - shrink_suffix_start(between, between.size() - common_suffix(before, between));
  std::string open = between.substr(between.size() - open_len);
  std::string rest = between.substr(0, between.size() - open_len);
  size_t close_len = common_prefix(rest, after);
  if (close_len < rest.size()) close_len = shrink_prefix_end(rest, close_len);
  std::string close = rest.substr(0, close_len);
  if (!detail::trim(std::string_view(rest).substr(close_len)).empty()) {
    f.note = "the calls are separated by text other than whitespace";
    return f;
  }
  s.calls_open = trim(before.substr(0, before.size() - open_len));
  s.calls_close = trim(after.substr(close_len));
  if (s.name_first) {
    s.open = s.calls_open.empty() ? trim_front(open) : open;
    s.close = close;
  } else {
    s.open = trim(open);
    s.close = trim(close);
  }
  f.grammar = !s.trigger().empty();
  if (!f.grammar) f.note = "the calls have no opening text to start a grammar on";
  return f;
}

}  // namespace keel
