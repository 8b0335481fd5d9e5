// keel/core/universal_parser.hpp — reads tool calls from any supported model family's output.
//
// Reasoning (<think>…</think>, and channels a format separates) is split off first and never
// parsed as a call. Then, with format "auto", each built-in format whose markers are present
// parses in priority order and the first that finds calls (or a clear, unrecoverable call)
// decides. A named format parses alone. Repairs applied to small-model JSON are listed; output
// cut off inside a call is an error, never a guess.
//
// What is not a call (src/core/parsing/non_call_rule.hpp states it in full). Once a format has
// read calls or a broken call, the reply is checked:
//  1. Call syntax inside an example region is content: a fenced block tagged with a programming
//     language, a shell or a console/log/text listing (```python, ```bash, ```js, ```log, ...;
//     untagged, json, tool_call and other fences stay with the formats), a block quote ("> "
//     lines), or a log excerpt (lines starting with a timestamp, a level such as INFO: or
//     [ERROR], or time= / level=). Unless a call would then hold part of such a region (a script
//     in a call's argument), in which case the reply is read as written.
//  2. A call with a string argument that is entirely a template placeholder (<CITY>, {city},
//     {{city}}, [CITY], YOUR_API_KEY, "...") shows a form: when every call does and the reply
//     has text besides, it is documentation (no calls, the whole text is content, format
//     "none"); otherwise it is an unfilled call and an error naming the placeholder's offset. A
//     broken call with an unquoted <name> where a JSON value goes is documentation beside prose.
//  3. Syntax without a marker of intent (bare JSON, a bare pythonic list, Llama 3's bare
//     {"name", "parameters"}) is a call only when every name is a registered tool.
//
//   auto parser = keel::UniversalToolCallParser::create("auto");
//   keel::ParseOutcome out = (*parser)->parse_full(model_text, tools);
//
// Thread-safety: immutable after create(); parse() and parse_full() may run concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/core/tool_call_format.hpp"
#include "keel/core/tool_call_parser.hpp"
#include "keel/result.hpp"

namespace keel {
namespace detail {
class MarkerSet;
}  // namespace detail

struct ParseOutcome {
  std::string format = "none";       // the format that decided, or "none" when no call syntax was found
  std::string content;               // visible text without calls and reasoning
  std::string reasoning;             // separated reasoning
  std::vector<ToolCall> calls;       // the calls, arguments as JSON object text
  std::vector<std::string> repairs;  // fixes applied
  std::optional<std::string> error;  // an intended call that could not be used
};

class UniversalToolCallParser final : public ToolCallParser {
 public:
  // `format` is "auto" or a name from formats(). InvalidArgument for an unknown name, listing them.
  static Result<std::unique_ptr<UniversalToolCallParser>> create(std::string_view format = "auto");
  ~UniversalToolCallParser() override;

  ParseOutcome parse_full(std::string_view text, std::span<const ToolSpec> tools) const;
  ParsedReply parse(std::string_view text, std::span<const ToolSpec> tools) const override;

  // (name, description) of every built-in format, in auto-detection order.
  static std::vector<std::pair<std::string, std::string>> formats();

 private:
  UniversalToolCallParser();
  void index_markers();
  // The outcome of the formats alone on `content`, whose markers are `found`; `reasoning` was split
  // off before.
  ParseOutcome read_formats(std::string_view content, std::uint64_t found, std::span<const ToolSpec> tools,
                            std::string&& reasoning) const;
  // Applies the rule of what is not a call to an outcome with calls or an error.
  void apply_non_call_rule(std::string_view content, std::span<const ToolSpec> tools, ParseOutcome& out) const;

  std::vector<std::unique_ptr<ToolCallFormat>> formats_;
  bool auto_detect_ = true;
  // Every format's markers (and <think>, </think>) for one shared scan per reply.
  std::unique_ptr<detail::MarkerSet> markers_;
  std::uint64_t marked_ = 0;    // bit i: formats_[i] has markers
  std::uint64_t unmarked_ = 0;  // bit i: formats_[i] may be detected without them
};

// Splits leading/embedded <think>…</think> reasoning from `text`. A reply that ends inside an
// unclosed <think> is all reasoning; a tag right after a backtick (`</think>`) is a mention in
// prose, not a tag. Returns (content, reasoning).
std::pair<std::string, std::string> split_reasoning(std::string_view text);

}  // namespace keel
