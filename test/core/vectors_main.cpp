// Runs the state machine's test vectors (test/core/vectors/vectors.json, embedded at build time).
// The same program runs natively under ctest and as WebAssembly under node, proving the core
// decides identically on both.
//
// A vector: {"name", "config", "tools": [spec...], "task", "steps": [{"event"?: {...}, "expect": {...}}]}.
// A tool spec may carry "postconditions" (keel/core/postcondition.hpp's JSON form).
// The first step has no event (it checks start()). "expect" is matched as a subset of the decision's
// JSON; a string starting with "~" matches as a substring.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "keel/core/agent_machine.hpp"
#include "keel/core/json_codec.hpp"

extern const char* const kKeelCoreVectors;

namespace {

using nlohmann::json;

bool matches(const json& expect, const json& actual, const std::string& path, std::string& why) {
  if (expect.is_object()) {
    if (!actual.is_object()) {
      why = path + ": expected an object";
      return false;
    }
    for (auto it = expect.begin(); it != expect.end(); ++it) {
      if (!actual.contains(it.key())) {
        why = path + "/" + it.key() + ": missing";
        return false;
      }
      if (!matches(it.value(), actual[it.key()], path + "/" + it.key(), why)) return false;
    }
    return true;
  }
  if (expect.is_array()) {
    if (!actual.is_array() || actual.size() != expect.size()) {
      why = path + ": expected " + std::to_string(expect.size()) + " elements, got " + actual.dump();
      return false;
    }
    for (size_t i = 0; i < expect.size(); ++i) {
      if (!matches(expect[i], actual[i], path + "/" + std::to_string(i), why)) return false;
    }
    return true;
  }
  if (expect.is_string() && !expect.get<std::string>().empty() && expect.get<std::string>()[0] == '~') {
    std::string needle = expect.get<std::string>().substr(1);
    if (actual.is_string() && actual.get<std::string>().find(needle) != std::string::npos) return true;
    why = path + ": expected to contain '" + needle + "', got " + actual.dump();
    return false;
  }
  if (expect != actual) {
    why = path + ": expected " + expect.dump() + ", got " + actual.dump();
    return false;
  }
  return true;
}

bool run_vector(const json& v, std::string& why) {
  auto config = keel::agent_config_from_json(v.value("config", json()));
  if (!config.ok()) {
    why = config.status().message();
    return false;
  }
  std::vector<keel::ToolSpec> tools;
  for (const auto& t : v.value("tools", json::array())) {
    auto spec = keel::tool_spec_from_json(t);
    if (!spec.ok()) {
      why = spec.status().message();
      return false;
    }
    tools.push_back(*spec);
  }
  keel::AgentMachine machine(*config, tools, "SYSTEM", v.value("task", std::string("task")));
  const json& steps = v.at("steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& step = steps[i];
    keel::Decision d;
    if (step.contains("event")) {
      auto event = keel::event_from_json(step["event"]);
      if (!event.ok()) {
        why = "step " + std::to_string(i) + ": " + event.status().message();
        return false;
      }
      d = machine.step(*event);
    } else {
      d = machine.start();
    }
    if (!matches(step.at("expect"), keel::decision_to_json(d), "step " + std::to_string(i), why)) return false;
  }
  return true;
}

}  // namespace

int main() {
  json vectors = json::parse(kKeelCoreVectors, nullptr, false);
  if (vectors.is_discarded() || !vectors.is_array()) {
    std::printf("vectors.json is not a JSON array\n");
    return 1;
  }
  int passed = 0, failed = 0;
  for (const auto& v : vectors) {
    std::string why;
    bool ok = false;
    try {
      ok = run_vector(v, why);
    } catch (const std::exception& e) {
      why = std::string("exception: ") + e.what();
    }
    std::string name = v.value("name", std::string("(unnamed)"));
    if (ok) {
      ++passed;
      std::printf("PASS %s\n", name.c_str());
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
    }
  }
  std::printf("vectors: %d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
