#include "keel/core/injection_detector.hpp"

#include <array>
#include <cctype>

#include "core/text/text_util.hpp"

namespace keel {
namespace {

using detail::lowercase;

std::vector<std::string_view> split_words(std::string_view lower) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < lower.size()) {
    while (i < lower.size() && !std::isalpha(static_cast<unsigned char>(lower[i]))) ++i;
    size_t b = i;
    while (i < lower.size() && std::isalpha(static_cast<unsigned char>(lower[i]))) ++i;
    if (i > b) words.push_back(lower.substr(b, i - b));
  }
  return words;
}

template <size_t N>
bool one_of(std::string_view w, const std::array<std::string_view, N>& set) {
  for (auto s : set) {
    if (w == s) return true;
  }
  return false;
}

constexpr std::array<std::string_view, 6> kOverrideVerbs = {"ignore", "disregard", "forget", "override", "bypass", "skip"};
constexpr std::array<std::string_view, 10> kOverrideTargets = {"instructions", "instruction", "prompt", "prompts", "rules",
                                                                "directives", "guidelines", "context", "messages", "commands"};
constexpr std::array<std::string_view, 11> kOverrideQualifiers = {"previous", "prior", "above", "earlier", "all", "your",
                                                                   "system", "preceding", "original", "any", "the"};

// "ignore (all) previous instructions" and variants: a verb, a qualifier and a target within a
// few words of each other.
void find_overrides(const std::vector<std::string_view>& words, InjectionScan& scan) {
  constexpr size_t kWindow = 5;
  for (size_t i = 0; i < words.size(); ++i) {
    if (!one_of(words[i], kOverrideVerbs)) continue;
    bool qualified = false;
    for (size_t j = i + 1; j < words.size() && j <= i + kWindow; ++j) {
      if (one_of(words[j], kOverrideQualifiers)) qualified = true;
      if (qualified && one_of(words[j], kOverrideTargets)) {
        std::string phrase;
        for (size_t k = i; k <= j; ++k) {
          if (!phrase.empty()) phrase += ' ';
          phrase.append(words[k]);
        }
        scan.signals.push_back("instruction override: " + phrase);
        return;
      }
    }
  }
}

constexpr std::array<std::string_view, 14> kRoleTags = {
    "<system>", "</system>", "<system ", "<assistant>", "</assistant>", "<human>", "</human>", "<|im_start|>",
    "<|system|>", "<|start_header_id|>", "[inst]", "<<sys>>", "<|assistant|>", "<|user|>"};

constexpr std::array<std::string_view, 12> kPersonaPhrases = {
    "you are now", "from now on you", "from now on, you", "pretend to be", "pretend you are", "your new role",
    "new instructions:", "you must now", "roleplay as", "role-play as", "you are no longer", "stay in character"};

}  // namespace

InjectionScan scan_for_injection(std::string_view text) {
  InjectionScan scan;
  if (text.empty()) return scan;
  std::string lower = lowercase(text);
  find_overrides(split_words(lower), scan);
  for (auto tag : kRoleTags) {
    if (lower.find(tag) != std::string::npos) {
      scan.signals.push_back("embedded role tag: " + std::string(tag));
      break;
    }
  }
  for (auto phrase : kPersonaPhrases) {
    if (lower.find(phrase) != std::string::npos) {
      scan.signals.push_back("persona directive: " + std::string(phrase));
      break;
    }
  }
  scan.flagged = !scan.signals.empty();
  return scan;
}

}  // namespace keel
