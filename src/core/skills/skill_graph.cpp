// Planning executable skills: Kahn's algorithm with alphabetical ties, levels for parallel runs,
// cycle naming, selection closure and skipWhen conditions.
#include "keel/core/skill_graph.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>

namespace keel {
namespace {

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out.append(separator);
    out.append(s);
  }
  return out;
}

// The dependencies of each node as indexes, without repeats. Unknown ids are an error.
Result<std::vector<std::vector<size_t>>> dependency_indexes(std::span<const SkillNode> nodes,
                                                            const std::map<std::string, size_t>& index) {
  std::vector<std::vector<size_t>> deps(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& d : nodes[i].depends) {
      auto it = index.find(d);
      if (it == index.end()) {
        std::string msg = "skill '";
        msg.append(nodes[i].id).append("' depends on '").append(d).append("', which is not a loaded skill");
        return Status::InvalidArgument(std::move(msg));
      }
      if (std::find(deps[i].begin(), deps[i].end(), it->second) == deps[i].end()) deps[i].push_back(it->second);
    }
  }
  return deps;
}

// A cycle among the nodes Kahn's algorithm could not place (each of them still waits for at least
// one other such node): walk from the smallest id along the smallest waiting dependency until a
// node repeats, then start the cycle at its smallest member.
std::string describe_cycle(std::span<const SkillNode> nodes, const std::vector<std::vector<size_t>>& deps,
                           const std::vector<bool>& placed) {
  size_t start = nodes.size();
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!placed[i] && (start == nodes.size() || nodes[i].id < nodes[start].id)) start = i;
  }
  std::vector<size_t> path;
  std::vector<int> seen_at(nodes.size(), -1);
  size_t at = start;
  while (seen_at[at] < 0) {
    seen_at[at] = static_cast<int>(path.size());
    path.push_back(at);
    size_t next = nodes.size();
    for (size_t d : deps[at]) {
      if (!placed[d] && (next == nodes.size() || nodes[d].id < nodes[next].id)) next = d;
    }
    at = next;
  }
  std::vector<size_t> cycle(path.begin() + seen_at[at], path.end());
  auto smallest =
      std::min_element(cycle.begin(), cycle.end(), [&](size_t a, size_t b) { return nodes[a].id < nodes[b].id; });
  std::rotate(cycle.begin(), smallest, cycle.end());
  std::string msg = "skill cycle: ";
  for (size_t i : cycle) msg.append(nodes[i].id).append(" → ");
  msg.append(nodes[cycle.front()].id);
  return msg;
}

}  // namespace

Result<SkillPlan> plan_skill_graph(std::span<const SkillNode> nodes) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].id.empty()) return Status::InvalidArgument("a skill has an empty id");
    if (!index.emplace(nodes[i].id, i).second) {
      std::string msg = "skill '";
      msg.append(nodes[i].id).append("' is defined twice");
      return Status::InvalidArgument(std::move(msg));
    }
  }
  KEEL_ASSIGN_OR_RETURN(std::vector<std::vector<size_t>> deps, dependency_indexes(nodes, index));

  std::vector<size_t> waiting(nodes.size());
  std::vector<std::vector<size_t>> dependents(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    waiting[i] = deps[i].size();
    for (size_t d : deps[i]) dependents[d].push_back(i);
  }
  auto later = [&](size_t a, size_t b) { return nodes[a].id > nodes[b].id; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> ready(later);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  SkillPlan plan;
  std::vector<size_t> level(nodes.size(), 0);
  std::vector<bool> placed(nodes.size(), false);
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    placed[i] = true;
    plan.order.push_back(nodes[i].id);
    for (size_t d : deps[i]) level[i] = std::max(level[i], level[d] + 1);
    for (size_t j : dependents[i]) {
      if (--waiting[j] == 0) ready.push(j);
    }
  }
  if (plan.order.size() != nodes.size()) return Status::InvalidArgument(describe_cycle(nodes, deps, placed));

  for (size_t i = 0; i < nodes.size(); ++i) {
    if (plan.levels.size() <= level[i]) plan.levels.resize(level[i] + 1);
    plan.levels[level[i]].push_back(nodes[i].id);
  }
  for (auto& l : plan.levels) std::sort(l.begin(), l.end());
  return plan;
}

Result<std::vector<std::string>> select_skill_closure(std::span<const SkillNode> nodes,
                                                      std::span<const std::string> ids,
                                                      std::span<const std::string> triggers) {
  if (ids.empty() && triggers.empty()) {
    return Status::InvalidArgument("no skill selected: name at least one skill id or trigger");
  }
  std::map<std::string, const SkillNode*> by_id;
  for (const SkillNode& n : nodes) by_id.emplace(n.id, &n);
  std::vector<std::string> pending;
  for (const std::string& id : ids) {
    if (by_id.count(id) == 0) {
      std::vector<std::string> known;
      for (const auto& [k, v] : by_id) known.push_back(k);
      std::string msg = "no executable skill '";
      msg.append(id).append("' (loaded: ").append(known.empty() ? "none" : joined(known, ", ")).append(")");
      return Status::NotFound(std::move(msg));
    }
    pending.push_back(id);
  }
  for (const std::string& t : triggers) {
    bool matched = false;
    std::set<std::string> all_triggers;
    for (const SkillNode& n : nodes) {
      for (const std::string& nt : n.triggers) all_triggers.insert(nt);
      if (std::find(n.triggers.begin(), n.triggers.end(), t) != n.triggers.end()) {
        pending.push_back(n.id);
        matched = true;
      }
    }
    if (!matched) {
      std::string msg = "no executable skill has the trigger '";
      msg.append(t).append("' (triggers: ");
      msg.append(all_triggers.empty()
                     ? "none"
                     : joined(std::vector<std::string>(all_triggers.begin(), all_triggers.end()), ", "));
      msg.append(")");
      return Status::NotFound(std::move(msg));
    }
  }
  std::set<std::string> selected;
  while (!pending.empty()) {
    std::string id = std::move(pending.back());
    pending.pop_back();
    auto it = by_id.find(id);
    if (it == by_id.end() || !selected.insert(id).second) continue;
    for (const std::string& d : it->second->depends) pending.push_back(d);
  }
  return std::vector<std::string>(selected.begin(), selected.end());
}

Result<SkipCondition> parse_skip_condition(std::string_view text) {
  SkipCondition c;
  c.text = std::string(text);
  if (text.size() > 3 && text.substr(0, 3) == "no-") {
    c.kind = SkipCondition::Kind::kNo;
    c.key = std::string(text.substr(3));
    return c;
  }
  if (text.size() > 4 && text.substr(0, 4) == "has-") {
    c.kind = SkipCondition::Kind::kHas;
    c.key = std::string(text.substr(4));
    return c;
  }
  std::string msg = "skipWhen '";
  msg.append(text).append("' is not a condition: write \"no-KEY\" or \"has-KEY\"");
  return Status::InvalidArgument(std::move(msg));
}

bool skill_context_has(const nlohmann::json& context, std::string_view key) {
  if (!context.is_object()) return false;
  auto it = context.find(std::string(key));
  if (it == context.end()) return false;
  const nlohmann::json& v = *it;
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0.0;
  if (v.is_string()) return !v.get_ref<const std::string&>().empty();
  return !v.empty();  // arrays, objects
}

std::optional<std::string> skip_reason(std::span<const SkipCondition> conditions, const nlohmann::json& context) {
  for (const SkipCondition& c : conditions) {
    bool has = skill_context_has(context, c.key);
    if (c.kind == SkipCondition::Kind::kNo && !has) {
      std::string r = c.text;
      r.append(": the context has no value '").append(c.key).append("'");
      return r;
    }
    if (c.kind == SkipCondition::Kind::kHas && has) {
      std::string r = c.text;
      r.append(": the context has a value '").append(c.key).append("'");
      return r;
    }
  }
  return std::nullopt;
}

}  // namespace keel
