// keel/core/secret_redactor.hpp — replaces the values of known secrets (API keys, tokens,
// passwords) in text before it reaches the model, events, traces or the store.
//
// A tool may print an environment variable, a config file or an HTTP header: its output would carry
// the secret into the transcript the model reads, into the database and to every client of keel
// serve. The redactor is given the secrets' names and values once and then scans any amount of
// text in one pass (Aho-Corasick over bytes), however many secrets there are:
//
//   keel::SecretRedactor redactor(std::vector<keel::Secret>{{"OPENAI_API_KEY", "sk-live-0123456789"}});
//   redactor.redact("key=sk-live-0123456789\n");   // "key=[REDACTED:OPENAI_API_KEY]\n"
//
// Rules: values shorter than kMinChars code points are ignored (too likely to occur by chance);
// every occurrence is replaced by "[REDACTED:NAME]"; occurrences that overlap become one marker
// naming each secret involved ("[REDACTED:A,B]"), so no part of either value survives; a value
// that holds characters JSON escapes (quote, backslash, control characters) is also found in its
// escaped form. Matching is byte-exact, so UTF-8 text and values are handled as they are (a valid
// UTF-8 value can only match at character boundaries).
//
// Thread-safety: immutable after construction; redact() may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keel {

// A secret: the name shown in its place and the value to find.
struct Secret {
  std::string name;   // e.g. "OPENAI_API_KEY"
  std::string value;  // the text that must not appear
};

class SecretRedactor {
 public:
  static constexpr size_t kMinChars = 8;  // shorter values are not redacted

  SecretRedactor() = default;
  // Secrets with values shorter than kMinChars are left out; a value listed twice keeps its first
  // name.
  explicit SecretRedactor(const std::vector<Secret>& secrets);

  // True when there is nothing to redact (every text comes back unchanged).
  bool empty() const { return patterns_.empty(); }
  // The names of the secrets it redacts, in the order given (each once).
  std::vector<std::string> names() const;

  // `text` with every occurrence of a secret replaced by its marker.
  std::string redact(std::string_view text) const;
  // Redacts `text` in place; true when anything was replaced.
  bool redact_in_place(std::string& text) const;

 private:
  struct Pattern {
    size_t length;      // bytes
    uint32_t name;      // index into names_
  };
  struct Node {
    std::vector<std::pair<unsigned char, uint32_t>> next;  // sorted by byte
    uint32_t fail = 0;
    uint32_t longest = UINT32_MAX;  // the longest pattern ending here (own or by suffix); UINT32_MAX: none
  };
  struct Span {
    size_t begin, end;
    std::vector<uint32_t> names;
  };
  void add_pattern(std::string_view bytes, uint32_t name);
  void build();
  uint32_t step(uint32_t state, unsigned char byte) const;
  std::vector<Span> find(std::string_view text) const;

  std::vector<std::string> names_;
  std::vector<Pattern> patterns_;
  std::vector<Node> nodes_;
  uint32_t root_next_[256] = {};  // the root's transitions, complete, for fast restarts
};

}  // namespace keel
