// Plan results, references and placeholders (keel/core/plan.hpp).
#include <map>
#include <nlohmann/json.hpp>

#include "core/text/text_util.hpp"
#include "keel/core/plan.hpp"

namespace keel {
namespace {

using nlohmann::json;

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// One step of a path: a member name, or an index when `key` is empty.
struct PathPart {
  std::string key;
  size_t index = 0;
};

// Reads `.a.b[2]` parts from text[pos...]; stops at the first character that continues no part.
// Returns the position after the last part read.
size_t read_path(std::string_view text, size_t pos, std::vector<PathPart>& parts) {
  while (pos < text.size()) {
    if (text[pos] == '.' && pos + 1 < text.size() && key_char(text[pos + 1])) {
      size_t end = pos + 1;
      while (end < text.size() && key_char(text[end])) ++end;
      parts.push_back({std::string(text.substr(pos + 1, end - pos - 1)), 0});
      pos = end;
    } else if (text[pos] == '[') {
      size_t end = pos + 1;
      size_t index = 0;
      while (end < text.size() && text[end] >= '0' && text[end] <= '9' && end - pos < 10) {
        index = index * 10 + static_cast<size_t>(text[end] - '0');
        ++end;
      }
      if (end == pos + 1 || end >= text.size() || text[end] != ']') break;
      parts.push_back({"", index});
      pos = end + 1;
    } else {
      break;
    }
  }
  return pos;
}

const json* walk(const json& root, const std::vector<PathPart>& parts, size_t from) {
  const json* at = &root;
  for (size_t i = from; i < parts.size(); ++i) {
    const PathPart& p = parts[i];
    if (!p.key.empty()) {
      if (!at->is_object()) return nullptr;
      auto it = at->find(p.key);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else {
      if (!at->is_array() || p.index >= at->size()) return nullptr;
      at = &(*at)[p.index];
    }
  }
  return at;
}

// The value at `parts` in a normalized result, trying under "result" when not found directly.
const json* lookup(const json& result, const std::vector<PathPart>& parts) {
  if (const json* v = walk(result, parts, 0)) return v;
  if (!parts.empty() && parts[0].key == "result") return nullptr;
  auto it = result.find("result");
  return it == result.end() ? nullptr : walk(*it, parts, 0);
}

std::string as_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A reference found in text: where it is and what it names. `alias` is empty for the last result.
struct Reference {
  size_t begin = 0;
  size_t end = 0;
  std::string alias;
  bool last = false;
  std::vector<PathPart> parts;
};

// Reads a reference body ("tool_result..." or "tool.ALIAS...") starting at text[pos]; nullopt when
// there is none there.
std::optional<Reference> read_reference(std::string_view text, size_t pos) {
  Reference r;
  r.begin = pos;
  constexpr std::string_view kLast = "tool_result";
  constexpr std::string_view kNamed = "tool.";
  if (text.substr(pos).starts_with(kLast) && (pos + kLast.size() == text.size() || !key_char(text[pos + kLast.size()]))) {
    r.last = true;
    r.end = read_path(text, pos + kLast.size(), r.parts);
    return r;
  }
  if (!text.substr(pos).starts_with(kNamed)) return std::nullopt;
  size_t a = pos + kNamed.size();
  size_t e = a;
  while (e < text.size() && key_char(text[e])) ++e;
  if (e == a) return std::nullopt;
  r.alias = std::string(text.substr(a, e - a));
  r.end = read_path(text, e, r.parts);
  return r;
}

std::string describe(const Reference& r) {
  std::string s = r.last ? "tool_result" : "tool." + r.alias;
  for (const auto& p : r.parts) s += p.key.empty() ? "[" + std::to_string(p.index) + "]" : "." + p.key;
  return s;
}

}  // namespace

struct PlanResults::Impl {
  std::map<std::string, json, std::less<>> by_alias;
  std::vector<std::string> order;  // aliases in the order they were added
  const json* last = nullptr;

  // The value a reference names, or an error naming it and what exists.
  Result<const json*> resolve(const Reference& r) const {
    const json* root = nullptr;
    if (r.last) {
      if (last == nullptr) return Status::InvalidArgument("$tool_result refers to a previous step, but no step has run yet");
      root = last;
    } else {
      auto it = by_alias.find(r.alias);
      if (it == by_alias.end()) {
        std::string known;
        for (const auto& a : order) known += (known.empty() ? "" : ", ") + a;
        return Status::InvalidArgument("unknown result alias '" + r.alias + "' in " + describe(r) +
                                       "; results so far: " + (known.empty() ? "(none)" : known));
      }
      root = &it->second;
    }
    const json* v = lookup(*root, r.parts);
    if (v == nullptr) {
      std::string fields;
      if (root->is_object()) {
        for (const auto& [k, _] : root->items()) fields += (fields.empty() ? "" : ", ") + k;
      }
      return Status::InvalidArgument("missing reference " + describe(r) + ": no such field; the result has: " + fields);
    }
    return v;
  }

  // Resolves every "$tool..." reference inside the strings of `v`, in place.
  Status resolve_in(json& v) const {
    if (v.is_object() || v.is_array()) {
      for (auto& child : v) KEEL_TRY(resolve_in(child));
      return Status::Ok();
    }
    if (!v.is_string()) return Status::Ok();
    const std::string s = v.get<std::string>();
    std::string out;
    size_t copied = 0;
    for (size_t pos = s.find('$'); pos != std::string::npos; pos = s.find('$', pos + 1)) {
      std::optional<Reference> r = read_reference(s, pos + 1);
      if (!r) continue;
      KEEL_ASSIGN_OR_RETURN(const json* value, resolve(*r));
      if (pos == 0 && r->end == s.size()) {  // the whole string: the value with its type
        v = *value;
        return Status::Ok();
      }
      out.append(s, copied, pos - copied);
      out += as_text(*value);
      copied = r->end;
      pos = r->end - 1;
    }
    if (copied == 0) return Status::Ok();
    out.append(s, copied);
    v = std::move(out);
    return Status::Ok();
  }
};

PlanResults::PlanResults() : impl_(std::make_unique<Impl>()) {}
PlanResults::~PlanResults() = default;
PlanResults::PlanResults(PlanResults&&) noexcept = default;
PlanResults& PlanResults::operator=(PlanResults&&) noexcept = default;

void PlanResults::add(std::string_view alias, std::string_view output) {
  json value = json::parse(output, nullptr, false);
  if (value.is_discarded()) value = std::string(output);
  json normalized;
  if (value.is_object()) {
    normalized = value;
    auto inner = value.find("result");
    if (inner == value.end()) {
      normalized["result"] = value;
    } else if (inner->is_object()) {
      for (const auto& [k, v] : inner->items()) {
        if (!normalized.contains(k)) normalized[k] = v;
      }
    }
  } else {
    normalized = json::object({{"result", std::move(value)}});
  }
  auto [it, inserted] = impl_->by_alias.insert_or_assign(std::string(alias), std::move(normalized));
  if (inserted) impl_->order.emplace_back(alias);
  impl_->last = &it->second;
}

bool PlanResults::empty() const { return impl_->by_alias.empty(); }

Result<std::string> PlanResults::resolve_arguments(std::string_view args) const {
  json v = json::parse(args, nullptr, false);
  if (v.is_discarded() || !v.is_object()) return Status::InvalidArgument("step arguments must be a JSON object");
  KEEL_TRY(impl_->resolve_in(v));
  return v.dump();
}

Result<std::string> PlanResults::hydrate(std::string_view reply) const {
  std::string out;
  std::string missing;
  size_t copied = 0;
  for (size_t open = reply.find("{{"); open != std::string_view::npos; open = reply.find("{{", open + 2)) {
    size_t close = reply.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    std::string_view inner = detail::trim(reply.substr(open + 2, close - open - 2));
    std::optional<Reference> r = read_reference(inner, 0);
    if (!r || r->end != inner.size()) continue;  // not a result placeholder: left as written
    Result<const json*> value = impl_->resolve(*r);
    if (!value.ok()) {
      missing += (missing.empty() ? "" : "; ") + value.status().message();
      continue;
    }
    out.append(reply.substr(copied, open - copied));
    out += as_text(**value);
    copied = close + 2;
    open = close;
  }
  if (!missing.empty()) return Status::InvalidArgument("the reply's placeholders do not resolve: " + missing);
  out.append(reply.substr(copied));
  return out;
}

std::optional<std::string> PlanResults::normalized(std::string_view alias) const {
  auto it = impl_->by_alias.find(alias);
  if (it == impl_->by_alias.end()) return std::nullopt;
  return it->second.dump();
}

bool reply_binds_results(std::string_view reply) {
  for (size_t open = reply.find("{{"); open != std::string_view::npos; open = reply.find("{{", open + 2)) {
    size_t close = reply.find("}}", open + 2);
    if (close == std::string_view::npos) return false;
    std::string_view inner = detail::trim(reply.substr(open + 2, close - open - 2));
    std::optional<Reference> r = read_reference(inner, 0);
    if (r && r->end == inner.size()) return true;
  }
  return false;
}

}  // namespace keel
