// keel/core/preflight.hpp — intent rules that turn the task text into tool hints before the first
// model call (seed 000's preflight + intents table).
//
//   auto pf = keel::Preflight::create(keel::default_intent_rules());
//   std::vector<std::string> hints = pf->hints("search the repo for TODO", registry_specs);
//
// Thread-safety: a built Preflight is immutable; hints() is safe to call concurrently.
#pragma once

#include <memory>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

struct IntentRule {
  std::string name;                   // e.g. "search"
  std::vector<std::string> keywords;  // whole words, case-insensitive
  std::vector<std::string> patterns;  // ECMAScript regular expressions, case-insensitive
  std::vector<std::string> tools;     // preferred tools, in order of preference
};

// The built-in intents: search, read, list, write, shell, time.
std::vector<IntentRule> default_intent_rules();

class Preflight {
 public:
  // InvalidArgument naming the rule if a pattern does not compile or a rule has no name.
  static Result<Preflight> create(std::vector<IntentRule> rules);

  // One hint per matching intent, naming only preferred tools that are registered, e.g.
  // "intent 'search': prefer fs_search". Empty when nothing matches.
  std::vector<std::string> hints(std::string_view task, std::span<const ToolSpec> tools) const;

 private:
  struct Compiled {
    IntentRule rule;
    std::vector<std::regex> patterns;
  };
  std::vector<Compiled> rules_;
};

}  // namespace keel
