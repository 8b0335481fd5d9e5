// keel/core/tool_call_format.hpp — one model family's way of writing tool calls as text.
//
// Each supported family (Hermes/Qwen, Mistral, Llama 3, harmony, ...) is a ToolCallFormat. The
// universal parser strips reasoning, asks every format whether its markers are present
// (detect), and lets the first matching format parse. A format never guesses: output that was
// clearly meant as a call but cannot be recovered is reported in FormatResult::error with a
// precise message, and repairs that were applied are listed.
//
// Thread-safety: formats are immutable; detect() and parse() may run concurrently.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

struct FormatResult {
  // In text order; `arguments` is a JSON object as text; ids only when the format carries them.
  std::vector<ToolCall> calls;
  std::string content;               // the visible text with call segments removed, trimmed
  std::string reasoning;             // reasoning the format itself separates (e.g. harmony's analysis channel)
  std::vector<std::string> repairs;  // fixes applied to recover the calls, e.g. "removed a trailing comma"
  std::optional<std::string> error;  // an intended call that cannot be used, with a precise message
  bool framed = false;               // the text was in this format's framing (tokens, headers), calls or not
};

class ToolCallFormat {
 public:
  virtual ~ToolCallFormat() = default;
  // Stable name, e.g. "hermes"; used by --format and in results.
  virtual std::string_view name() const = 0;
  // One line for `keel parse --list-formats`.
  virtual std::string_view description() const = 0;
  // Whether the text carries this format's markers. Cheap and linear; false positives are allowed
  // (parse() then finds no calls), false negatives are not. The default answers from markers():
  // detect_marked() when one of them occurs, else detect_unmarked().
  virtual bool detect(std::string_view text) const;
  // The literal strings that mark this format. With format "auto" the universal parser looks for
  // every format's markers in one shared scan of the text, then asks detect_marked() of the
  // formats whose markers occur and detect_unmarked() of the others; a format without markers is
  // asked detect(). Together they must never miss a text that parse() would take.
  virtual std::span<const std::string_view> markers() const { return {}; }
  // Strings that mark this format only where the reply opens with them (after blanks): wrappers
  // too common to look for everywhere. A streamed reply is held from the start while it may open
  // with one.
  virtual std::span<const std::string_view> leading_markers() const { return {}; }
  // Strings that open this format's markup but are not markers() (markers are chosen to keep the
  // parse's one scan cheap, and may be a later part of the call): a streamed reply is held from
  // them as from a marker.
  virtual std::span<const std::string_view> stream_markers() const { return {}; }
  // detect() for a text known to hold one of markers(): true unless the format looks closer.
  virtual bool detect_marked(std::string_view /*text*/) const { return true; }
  // detect() for a text that holds none of markers() (a format also recognised by how the text
  // starts, say). Only asked when unmarked_detection() is true.
  virtual bool detect_unmarked(std::string_view /*text*/) const { return false; }
  // Whether detect_unmarked() can ever be true; the universal parser skips a format whose markers
  // are absent unless it can.
  virtual bool unmarked_detection() const { return false; }
  // Extracts the calls. `tools` are the registered tools: they type untyped values (XML
  // parameters) and tell calls from prose where the format is ambiguous. Linear in the text.
  virtual FormatResult parse(std::string_view text, std::span<const ToolSpec> tools) const = 0;
};

// Every built-in format, in auto-detection priority order.
std::vector<std::unique_ptr<ToolCallFormat>> builtin_tool_call_formats();

}  // namespace keel
