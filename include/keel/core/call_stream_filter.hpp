// keel/core/call_stream_filter.hpp — what of a streaming reply may be shown as the answer yet.
//
// A model that writes its tool calls as text (a local model, a server without a tool parser)
// streams the call markup like any other text. The filter sits between the stream and the user:
// text is shown as it arrives unless it is, or may still become, call markup, and a call's name
// is announced as soon as it is written. The rule:
//   - any built-in format's marker ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", ...) starts
//     a call region: nothing from it on is shown while the reply streams;
//   - a "{" or "[" that may open a bare JSON or pythonic call, a registered tool's name and "(" at
//     the start of a line (a bare pythonic call), and a Markdown fence that may hold one (no
//     language, json, xml, python, tool_call), is held until it closes, then parsed alone: a call
//     (or a broken call) starts a call region, anything else is shown;
//   - a possible start of a marker at the end of what arrived is held until the next piece;
//   - <think>…</think> is reasoning, shown as reasoning; leading and trailing blanks wait for text.
// At the end, finish() parses the whole reply as the universal parser does: the shown text
// followed by the rest finish() returns is exactly the parsed answer, and the names announced are
// the parsed calls' names in order.
//
// Thread-safety: one filter per streaming reply; the parser it reads may be shared.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/universal_parser.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

class CallStreamFilter {
 public:
  struct Options {
    // The prompt opened <think> for the model (a thinking chat template): the reply starts as
    // reasoning and is shown as such until </think>.
    bool opened_reasoning = false;
  };
  // What may be shown after a piece: answer text, reasoning text, and call names now known.
  struct Output {
    std::string text;
    std::string reasoning;
    std::vector<std::string> announced;
  };

  // `parser` and `tools` must outlive the filter.
  CallStreamFilter(const UniversalToolCallParser& parser, std::span<const ToolSpec> tools, Options options);
  CallStreamFilter(const UniversalToolCallParser& parser, std::span<const ToolSpec> tools)
      : CallStreamFilter(parser, tools, Options{}) {}

  // Takes the next piece of the reply.
  Output feed(std::string_view piece);
  // The reply is complete: parses it, and returns the answer not shown yet and the names of the
  // calls not announced yet. outcome() holds the parse.
  Output finish();
  // The stream starts over (a retried model call).
  void reset();

  const ParseOutcome& outcome() const { return outcome_; }

 private:
  enum class Mode { kAnswer, kReasoning, kCandidate, kHeld };
  enum class Candidate { kBrace, kBracket, kFence, kBareCall };
  enum class Verdict { kCall, kNotCall, kUndecided };
  enum class BareCall { kNo, kYes, kMaybe };

  void advance(Output& out);
  void release(size_t end, Output& out);
  Verdict decide_candidate(size_t& not_call_end);
  Verdict judge_candidate(size_t& not_call_end);
  void hold(bool announce);
  bool announces_at(size_t at, std::string_view marker) const;
  bool check_header(Output& out);
  bool opens_with_reasoning() const;
  bool balanced_until_end(size_t from, size_t& end);
  BareCall bare_call_at(std::string_view rest, size_t i) const;
  void sniff_names(Output& out);

  const UniversalToolCallParser& parser_;
  std::span<const ToolSpec> tools_;
  Options options_;
  std::string text_;         // the reply so far
  std::string shown_;        // the answer text released so far
  std::string blanks_;       // blanks after the shown text, released with the next text
  size_t pos_ = 0;           // text_ before this is decided
  Mode mode_ = Mode::kAnswer;
  Candidate candidate_ = Candidate::kBrace;
  size_t scan_ = 0;          // a candidate's balance scan stopped here
  int depth_ = 0;            // its nesting depth there
  char quote_ = 0;           // the string it is inside, if any
  bool escaped_ = false;
  size_t examined_ = 0;      // a candidate was read up to here before it was ruled out
  size_t region_ = 0;        // the held call region starts here
  int depth_open_ = 0;       // XML-like calls open where names are looked for (nested ones are quoted)
  size_t sniff_ = 0;         // call names were looked for up to here
  bool header_checked_ = false;  // the reply's first line was looked at (check_header)
  bool announce_ = false;        // names in the held call region are announced as they come
  size_t announced_ = 0;  // call names announced so far
  ParseOutcome outcome_;
};

}  // namespace keel
