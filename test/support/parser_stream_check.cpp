#include "support/parser_stream_check.hpp"

#include "keel/core/call_stream_filter.hpp"

namespace keel::testing {

namespace {

// Whether the reply starts inside reasoning the prompt opened (a </think> before any <think>).
bool opens_in_reasoning(const std::string& text) {
  const size_t close = text.find("</think>");
  return close != std::string::npos && text.find("<think>") > close;
}

}  // namespace

StreamedCase stream_case(const UniversalToolCallParser& parser, const ParserCase& c,
                         const std::vector<std::string_view>& pieces) {
  CallStreamFilter filter(parser, c.tools, {opens_in_reasoning(c.data["input"].get<std::string>())});
  StreamedCase s;
  for (std::string_view p : pieces) {
    CallStreamFilter::Output o = filter.feed(p);
    s.shown += o.text;
    for (auto& n : o.announced) s.announced_early.push_back(n);
  }
  s.announced = s.announced_early;
  CallStreamFilter::Output last = filter.finish();
  s.rest = last.text;
  for (auto& n : last.announced) s.announced.push_back(n);
  s.outcome = filter.outcome();
  return s;
}

std::string broken_stream_promise(const StreamedCase& s) {
  const std::string& answer = s.outcome.content;
  if (s.shown.size() > answer.size() || answer.compare(0, s.shown.size(), s.shown) != 0) {
    return "shown text is not the start of the answer: shown " + nlohmann::json(s.shown).dump() + ", answer " +
           nlohmann::json(answer).dump();
  }
  if (s.shown + s.rest != answer) return "shown + rest is not the answer";
  if (s.outcome.error) return "";  // a broken call: names read before it broke may be announced
  std::vector<std::string> names;
  for (const auto& call : s.outcome.calls) names.push_back(call.name);
  if (s.announced != names) {
    return "announced " + nlohmann::json(s.announced).dump() + ", calls " + nlohmann::json(names).dump();
  }
  return "";
}

std::string check_streaming(const UniversalToolCallParser& parser, const ParserCase& c, size_t* announced_early) {
  const std::string input = c.data["input"].get<std::string>();
  std::vector<std::string_view> bytes;
  for (size_t i = 0; i < input.size(); ++i) bytes.push_back(std::string_view(input).substr(i, 1));
  StreamedCase one = stream_case(parser, c, bytes);
  if (announced_early != nullptr) *announced_early = one.announced_early.size();
  if (std::string why = broken_stream_promise(one); !why.empty()) return "byte by byte: " + why;
  for (size_t cut = 0; cut <= input.size(); ++cut) {
    StreamedCase two = stream_case(parser, c, {std::string_view(input).substr(0, cut), std::string_view(input).substr(cut)});
    if (std::string why = broken_stream_promise(two); !why.empty()) return "split at byte " + std::to_string(cut) + ": " + why;
  }
  return "";
}

}  // namespace keel::testing
