// JSON forms of postconditions (keel/core/postcondition.hpp), for `keel tools list --json`, tool
// specs read from JSON and the core's test vectors. Reading is strict: an unknown key is an error,
// so a misspelt parameter cannot silently turn a check off.
#include <nlohmann/json.hpp>

#include "keel/core/postcondition.hpp"

namespace keel {
namespace {

using nlohmann::json;

Result<std::vector<std::string>> string_list(const json& j, const std::string& key) {
  if (!j.is_array()) return Status::InvalidArgument("postcondition field '" + key + "' must be an array of strings");
  std::vector<std::string> out;
  for (const auto& item : j) {
    if (!item.is_string()) return Status::InvalidArgument("postcondition field '" + key + "' must hold only strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<Postcondition> from_kind(const std::string& kind) {
  if (kind == "not_empty") return Postcondition::not_empty();
  if (kind == "not_metadata_only") return Postcondition::not_metadata_only();
  if (kind == "min_lines") return Postcondition::at_least_lines(1);
  if (kind == "contains_any") return Postcondition::contains_any({});
  if (kind == "custom") {
    return Status::InvalidArgument("a custom postcondition carries a function and cannot be read from JSON; "
                                   "add it in code with Postcondition::custom()");
  }
  return Status::InvalidArgument("unknown postcondition kind '" + kind +
                                 "'; use not_empty, not_metadata_only, min_lines or contains_any");
}

Result<Postcondition> from_object(const json& j) {
  if (!j.contains("kind") || !j["kind"].is_string()) {
    return Status::InvalidArgument("a postcondition needs a \"kind\" string, e.g. {\"kind\":\"not_empty\"}");
  }
  KEEL_ASSIGN_OR_RETURN(Postcondition p, from_kind(j["kind"].get<std::string>()));
  bool any_of_given = false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "kind") continue;
    if (key == "name" || key == "hint") {
      if (!v.is_string() || v.get<std::string>().empty()) {
        return Status::InvalidArgument("postcondition field '" + key + "' must be a non-empty string");
      }
      (key == "name" ? p.name : p.hint) = v.get<std::string>();
    } else if (key == "ignore_prefixes") {
      KEEL_ASSIGN_OR_RETURN(p.ignore_prefixes, string_list(v, key));
    } else if (key == "min_lines" && p.kind == PostconditionKind::kMinLines) {
      if (!v.is_number_unsigned()) return Status::InvalidArgument("postcondition field 'min_lines' must be an integer >= 0");
      Postcondition fresh = Postcondition::at_least_lines(v.get<size_t>());
      p.min_lines = fresh.min_lines;
      if (!j.contains("hint")) p.hint = fresh.hint;
    } else if (key == "any_of" && p.kind == PostconditionKind::kContainsAny) {
      KEEL_ASSIGN_OR_RETURN(std::vector<std::string> strings, string_list(v, key));
      Postcondition fresh = Postcondition::contains_any(std::move(strings));
      p.any_of = std::move(fresh.any_of);
      if (!j.contains("hint")) p.hint = fresh.hint;
      any_of_given = true;
    } else if (key == "applies_to") {
      if (!v.is_object()) return Status::InvalidArgument("postcondition field 'applies_to' must be an object");
      for (auto s = v.begin(); s != v.end(); ++s) {
        if (s.key() == "argument" && s->is_string()) {
          p.applies_to.argument = s->get<std::string>();
        } else if (s.key() == "programs") {
          KEEL_ASSIGN_OR_RETURN(p.applies_to.programs, string_list(*s, "applies_to.programs"));
        } else {
          return Status::InvalidArgument("unknown or mistyped field 'applies_to." + s.key() +
                                         "'; use \"argument\" (a string) and \"programs\" (strings)");
        }
      }
    } else {
      return Status::InvalidArgument("unknown field '" + key + "' for a " + std::string(postcondition_kind_name(p.kind)) +
                                     " postcondition");
    }
  }
  if (p.kind == PostconditionKind::kContainsAny && (!any_of_given || p.any_of.empty())) {
    return Status::InvalidArgument("a contains_any postcondition needs a non-empty \"any_of\" array of strings");
  }
  return p;
}

}  // namespace

json postcondition_to_json(const Postcondition& p) {
  json j = {{"name", p.name}, {"kind", postcondition_kind_name(p.kind)}, {"hint", p.hint}};
  if (!p.ignore_prefixes.empty()) j["ignore_prefixes"] = p.ignore_prefixes;
  if (p.kind == PostconditionKind::kMinLines) j["min_lines"] = p.min_lines;
  if (p.kind == PostconditionKind::kContainsAny) j["any_of"] = p.any_of;
  if (!p.applies_to.programs.empty()) {
    j["applies_to"] = {{"argument", p.applies_to.argument}, {"programs", p.applies_to.programs}};
  }
  return j;
}

Result<Postcondition> postcondition_from_json(const json& j) {
  try {
    if (j.is_string()) return from_kind(j.get<std::string>());
    if (!j.is_object()) return Status::InvalidArgument("a postcondition must be a kind name or a JSON object");
    return from_object(j);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(std::string("postcondition: ") + e.what());
  }
}

Result<std::vector<Postcondition>> postconditions_from_json(const json& j) {
  if (!j.is_array()) return Status::InvalidArgument("\"postconditions\" must be an array");
  std::vector<Postcondition> out;
  for (size_t i = 0; i < j.size(); ++i) {
    Result<Postcondition> p = postcondition_from_json(j[i]);
    if (!p.ok()) {
      return Status::InvalidArgument("postconditions[" + std::to_string(i) + "]: " + p.status().message());
    }
    out.push_back(std::move(p).value());
  }
  return out;
}

}  // namespace keel
