#include "keel/core/universal_parser.hpp"

#include <algorithm>

#include "core/text_util.hpp"

namespace keel {

std::pair<std::string, std::string> split_reasoning(std::string_view text) {
  constexpr std::string_view kOpen = "<think>";
  constexpr std::string_view kClose = "</think>";
  std::string content;
  std::string reasoning;
  auto add_reasoning = [&](std::string_view r) {
    std::string_view t = detail::trim(r);
    if (t.empty()) return;
    if (!reasoning.empty()) reasoning += "\n";
    reasoning.append(t);
  };
  size_t pos = 0;
  // Templates that open <think> in the prompt make the reply start inside it: reasoning up to the
  // first </think> when no <think> precedes it.
  size_t first_close = text.find(kClose);
  size_t first_open = text.find(kOpen);
  if (first_close != std::string_view::npos && (first_open == std::string_view::npos || first_open > first_close)) {
    add_reasoning(text.substr(0, first_close));
    pos = first_close + kClose.size();
  }
  while (pos < text.size()) {
    size_t open = text.find(kOpen, pos);
    if (open == std::string_view::npos) {
      content.append(text.substr(pos));
      break;
    }
    content.append(text.substr(pos, open - pos));
    size_t body = open + kOpen.size();
    size_t close = text.find(kClose, body);
    if (close == std::string_view::npos) {  // cut off while thinking: all of it is reasoning
      add_reasoning(text.substr(body));
      break;
    }
    add_reasoning(text.substr(body, close - body));
    pos = close + kClose.size();
  }
  return {std::move(content), std::move(reasoning)};
}

Result<std::unique_ptr<UniversalToolCallParser>> UniversalToolCallParser::create(std::string_view format) {
  std::unique_ptr<UniversalToolCallParser> p(new UniversalToolCallParser());
  auto all = builtin_tool_call_formats();
  if (format == "auto") {
    p->formats_ = std::move(all);
    return p;
  }
  std::string names;
  for (auto& f : all) {
    if (f->name() == format) {
      p->formats_.push_back(std::move(f));
      p->auto_detect_ = false;
      return p;
    }
    names += (names.empty() ? "" : ", ") + std::string(f->name());
  }
  return Status::InvalidArgument("unknown tool-call format '" + std::string(format) + "'; known: auto, " + names);
}

ParseOutcome UniversalToolCallParser::parse_full(std::string_view text, std::span<const ToolSpec> tools) const {
  ParseOutcome out;
  auto [content, reasoning] = split_reasoning(text);
  out.reasoning = std::move(reasoning);
  out.content = std::string(detail::trim(content));
  auto take = [&](const ToolCallFormat& f, FormatResult r) {
    out.format = std::string(f.name());
    out.content = std::move(r.content);
    if (!r.reasoning.empty()) out.reasoning += (out.reasoning.empty() ? "" : "\n") + r.reasoning;
    out.calls = std::move(r.calls);
    out.repairs = std::move(r.repairs);
    out.error = std::move(r.error);
  };
  // A format that separated its own reasoning (harmony's analysis channel, [THINK], ...) but found
  // no call is kept as the answer's format unless a later format finds calls.
  const ToolCallFormat* framing = nullptr;
  FormatResult framed;
  for (const auto& f : formats_) {
    if (auto_detect_ && !f->detect(content)) continue;
    FormatResult r = f->parse(content, tools);
    if (!r.calls.empty() || r.error) {
      take(*f, std::move(r));
      return out;
    }
    if (!r.reasoning.empty() && framing == nullptr) {
      framing = f.get();
      framed = std::move(r);
    }
  }
  if (framing != nullptr) take(*framing, std::move(framed));
  return out;
}

ParsedReply UniversalToolCallParser::parse(std::string_view text, std::span<const ToolSpec> tools) const {
  ParseOutcome o = parse_full(text, tools);
  ParsedReply r;
  r.calls = std::move(o.calls);
  r.text = std::move(o.content);
  if (o.error) r.errors.push_back(*o.error);
  r.format = std::move(o.format);
  r.reasoning = std::move(o.reasoning);
  r.repairs = std::move(o.repairs);
  return r;
}

std::vector<std::pair<std::string, std::string>> UniversalToolCallParser::formats() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : builtin_tool_call_formats()) out.emplace_back(std::string(f->name()), std::string(f->description()));
  return out;
}

std::unique_ptr<ToolCallParser> make_default_tool_call_parser() {
  auto p = UniversalToolCallParser::create("auto");
  return std::move(p).value();
}

}  // namespace keel
