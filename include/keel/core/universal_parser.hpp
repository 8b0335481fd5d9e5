// keel/core/universal_parser.hpp — reads tool calls from any supported model family's output.
//
// Reasoning (<think>…</think>, and channels a format separates) is split off first and never
// parsed as a call. Then, with format "auto", each built-in format whose markers are present
// parses in priority order and the first that finds calls (or a clear, unrecoverable call)
// decides. A named format parses alone. Repairs applied to small-model JSON are listed; output
// cut off inside a call is an error, never a guess.
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

  std::vector<std::unique_ptr<ToolCallFormat>> formats_;
  bool auto_detect_ = true;
  // Every format's markers (and <think>, </think>) for one shared scan per reply.
  std::unique_ptr<detail::MarkerSet> markers_;
  std::uint64_t marked_ = 0;    // bit i: formats_[i] has markers
  std::uint64_t unmarked_ = 0;  // bit i: formats_[i] may be detected without them
};

// Splits leading/embedded <think>…</think> reasoning from `text`. A reply that ends inside an
// unclosed <think> is all reasoning. Returns (content, reasoning).
std::pair<std::string, std::string> split_reasoning(std::string_view text);

}  // namespace keel
