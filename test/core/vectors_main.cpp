// Runs the state machine's test vectors (test/core/vectors/vectors.json, embedded at build time).
// The same program runs natively under ctest and as WebAssembly under node, proving the core
// decides identically on both.
//
// A vector: {"name", "config", "tools": [spec...], "task", "steps": [{"event"?: {...}, "expect": {...}}]},
// optionally "system_prompt" (default "SYSTEM"), "earlier" (messages of earlier runs) or "resume"
// ({"conversation", "run_start", "calls_not_started"}: an interrupted run) as HostedMachine reads them.
// A tool spec may carry "postconditions" (keel/core/postcondition.hpp's JSON form).
// The first step has no event (it checks start()). "expect" is matched as a subset of the decision's
// JSON; a string starting with "~" matches as a substring.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "keel/core/hosted_machine.hpp"

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

// Runs one vector through HostedMachine, the JSON boundary every host drives; `trace` receives
// every decision in full (the hosts' traces must be identical).
bool run_vector(const json& v, json& trace, std::string& why) {
  json spec = {{"config", v.value("config", json::object())},
               {"tools", v.value("tools", json::array())},
               {"system_prompt", v.value("system_prompt", std::string("SYSTEM"))}};
  if (v.contains("resume")) {
    spec["resume"] = v["resume"];
  } else {
    spec["task"] = v.value("task", std::string("task"));
    if (v.contains("earlier")) spec["earlier"] = v["earlier"];
  }
  auto machine = keel::HostedMachine::create(spec);
  if (!machine.ok()) {
    why = machine.status().message();
    return false;
  }
  const json& steps = v.at("steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& step = steps[i];
    // The text a host reads: it must be JSON exactly as nlohmann writes it (sorted keys, the same
    // escapes and numbers), so every host, whichever path wrote it, reads the same bytes.
    const std::string text = step.contains("event") ? machine->step_text(step["event"].dump()) : machine->start_text();
    json d = json::parse(text, nullptr, false);
    if (d.is_discarded() || d.dump() != text) {
      why = "step " + std::to_string(i) + ": the decision's text is not canonical JSON: " + text;
      return false;
    }
    trace.push_back(d);
    if (!matches(step.at("expect"), d, "step " + std::to_string(i), why)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // --trace FILE: one line per vector, {"vector": name, "decisions": [...]}, for comparing hosts.
  std::FILE* trace_file = nullptr;
  if (argc == 3 && std::string(argv[1]) == "--trace") {
    trace_file = std::fopen(argv[2], "w");
    if (!trace_file) {
      std::printf("cannot write %s\n", argv[2]);
      return 2;
    }
  }
  json vectors = json::parse(kKeelCoreVectors, nullptr, false);
  if (vectors.is_discarded() || !vectors.is_array()) {
    std::printf("vectors.json is not a JSON array\n");
    return 1;
  }
  int passed = 0, failed = 0;
  for (const auto& v : vectors) {
    std::string why;
    bool ok = false;
    json trace = json::array();
    try {
      ok = run_vector(v, trace, why);
    } catch (const std::exception& e) {
      why = std::string("exception: ") + e.what();
    }
    std::string name = v.value("name", std::string("(unnamed)"));
    if (trace_file) std::fprintf(trace_file, "%s\n", json({{"vector", name}, {"decisions", trace}}).dump().c_str());
    if (ok) {
      ++passed;
      std::printf("PASS %s\n", name.c_str());
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
    }
  }
  if (trace_file) std::fclose(trace_file);
  std::printf("vectors: %d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
