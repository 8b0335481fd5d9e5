// Whitespace collapsing, block separation and container prefixes; see markdown_writer.hpp.
#include "tools/web/markdown_writer.hpp"

#include <string>

namespace keel::detail {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

void rtrim_spaces(std::string& s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
}

}  // namespace

void MarkdownWriter::text(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool nbsp = c == '\xC2' && i + 1 < s.size() && s[i + 1] == '\xA0';
    if (is_space(c) || nbsp) {
      if (nbsp) ++i;
      space();
      continue;
    }
    if (pending_space_ && !line_.empty() && line_.back() != '\n') line_ += ' ';
    pending_space_ = false;
    line_ += c;
  }
}

void MarkdownWriter::atom(std::string_view s) { append_piece(s); }

void MarkdownWriter::space() {
  if (line_.empty()) leading_space_ = true;
  pending_space_ = true;
}

void MarkdownWriter::line_break() {
  pending_space_ = false;
  if (line_.empty() || line_.ends_with("\n\n")) return;
  rtrim_spaces(line_);
  line_ += '\n';
}

void MarkdownWriter::append_piece(std::string_view s) {
  if (s.empty()) return;
  if (pending_space_ && !line_.empty() && line_.back() != '\n') line_ += ' ';
  pending_space_ = false;
  line_ += s;
}

void MarkdownWriter::end_paragraph() {
  const std::string text(trim(line_));
  line_.clear();
  pending_space_ = false;
  leading_space_ = false;
  if (!text.empty()) emit(text);
}

void MarkdownWriter::block(std::string_view block) {
  end_paragraph();
  if (!trim(block).empty()) emit(block);
}

bool MarkdownWriter::in_list() const {
  for (const Container& c : containers_) {
    if (!c.quote) return true;
  }
  return false;
}

void MarkdownWriter::emit(std::string_view block) {
  const bool list_now = in_list();
  if (!out_.empty()) out_ += (list_now && last_emit_in_list_) ? "\n" : "\n\n";
  bool first_line = true;
  while (true) {
    const size_t nl = block.find('\n');
    std::string_view line = block.substr(0, nl);
    std::string prefixed;
    for (const Container& c : containers_) {
      if (c.quote) {
        prefixed += "> ";
      } else {
        prefixed += c.marker_used ? std::string(c.marker.size(), ' ') : c.marker;
      }
    }
    if (first_line) {
      for (Container& c : containers_) c.marker_used = true;
      first_line = false;
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    prefixed += line;
    rtrim_spaces(prefixed);
    out_ += prefixed;
    if (nl == std::string_view::npos) break;
    out_ += '\n';
    block.remove_prefix(nl + 1);
  }
  last_emit_in_list_ = list_now;
}

void MarkdownWriter::begin_quote() {
  end_paragraph();
  Container c;
  c.quote = true;
  containers_.push_back(c);
}

void MarkdownWriter::end_quote() {
  end_paragraph();
  if (!containers_.empty() && containers_.back().quote) containers_.pop_back();
}

void MarkdownWriter::begin_list(bool ordered, int start) {
  end_paragraph();
  List list;
  list.ordered = ordered;
  list.next = start;
  lists_.push_back(list);
}

void MarkdownWriter::end_list() {
  end_paragraph();
  if (!lists_.empty()) lists_.pop_back();
  if (lists_.empty()) last_emit_in_list_ = false;  // two lists in a row stay two blocks
}

void MarkdownWriter::begin_item() {
  end_paragraph();
  Container c;
  if (!lists_.empty() && lists_.back().ordered) {
    c.marker = std::to_string(lists_.back().next++) + ". ";
  } else {
    c.marker = "- ";
  }
  containers_.push_back(c);
}

void MarkdownWriter::end_item() {
  end_paragraph();
  if (!containers_.empty() && !containers_.back().quote) containers_.pop_back();
}

std::string MarkdownWriter::inline_text() const {
  std::string out(trim(line_));
  for (char& c : out) {
    if (c == '\n') c = ' ';
  }
  return out;
}

std::string MarkdownWriter::finish() {
  end_paragraph();
  return out_;
}

}  // namespace keel::detail
