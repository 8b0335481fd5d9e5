#include "core/context/microcompact_digest.hpp"

#include <algorithm>

#include "core/context/text_cut.hpp"

namespace keel::detail {
namespace {

bool digest_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

bool starts_with_error(std::string_view s) {
  static constexpr std::string_view kError = "error:";
  if (s.size() < kError.size()) return false;
  for (size_t i = 0; i < kError.size(); ++i) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kError[i]) return false;
  }
  return true;
}

// Appends `line` whitespace-collapsed and cut to `max_chars` code points at a word boundary
// (the same result as cut_at_word(collapse_whitespace(line), max_chars), in one pass and without
// temporaries: microcompact digests tens of thousands of results on a cold start).
void append_key(std::string& out, std::string_view line, size_t max_chars) {
  const size_t start = out.size();
  size_t chars = 0;
  size_t last_space = std::string::npos;  // position in `out` of the last space appended
  bool pending_space = false;
  bool cut = false;
  bool clean_end = false;  // the cut falls on a space: nothing to take back
  for (char c : line) {
    if (digest_is_space(c)) {
      pending_space = out.size() > start;
      continue;
    }
    if (pending_space) {
      if (chars == max_chars) {
        cut = clean_end = true;
        break;
      }
      last_space = out.size();
      out.push_back(' ');
      ++chars;
      pending_space = false;
    }
    if (!utf8_is_continuation(c)) {
      if (chars == max_chars) {
        cut = true;
        break;
      }
      ++chars;
    }
    out.push_back(c);
  }
  if (!cut) return;
  size_t kept = out.size() - start;
  if (!clean_end && last_space != std::string::npos && last_space - start >= kept / 2) out.resize(last_space);
  while (out.size() > start && out.back() == ' ') out.pop_back();
  out += "…";
}

}  // namespace

std::string make_digest(std::string_view tool_name, bool ok, std::string_view content, size_t max_chars) {
  std::string out;
  write_digest(out, tool_name, ok, content, max_chars);
  return out;
}

void write_digest(std::string& out, std::string_view tool_name, bool ok, std::string_view content, size_t max_chars) {
  std::string_view line = first_nonempty_line(content);
  size_t lead = 0;
  while (lead < line.size() && digest_is_space(line[lead])) ++lead;
  line.remove_prefix(lead);
  if (!ok && starts_with_error(line)) line.remove_prefix(6);

  std::string_view name = tool_name.empty() ? std::string_view("tool") : tool_name;
  out.clear();
  out.reserve(name.size() + 16 + std::min(line.size(), max_chars * 4) + 4);
  out += '[';
  out += name;
  out += " → ";
  if (!ok) out += "error: ";
  size_t key_start = out.size();
  append_key(out, line, max_chars);
  if (out.size() == key_start) out += "(empty)";
  out += ']';
}

bool is_compacted(const Message& m) {
  return m.metadata.count("compacted") != 0;
}

bool digest_message(Message& m, size_t max_chars) {
  if (m.role != Role::kTool) return false;
  // One lookup decides and marks: the cold pass over a long history digests tens of thousands.
  auto [mark, fresh] = m.metadata.try_emplace("compacted", "digest");
  if (!fresh) return false;
  auto status = m.metadata.find("status");
  bool ok = status == m.metadata.end() || status->second == "ok";
  // Composed in a reused buffer and written over the old text in place: allocating and freeing
  // tens of thousands of buffers on a cold pass costs more than the digests themselves. The old
  // capacity stays with the message (the history's memory is O(history) anyway).
  thread_local std::string scratch;
  write_digest(scratch, m.name, ok, m.content, max_chars);
  m.content.assign(scratch);
  return true;
}

}  // namespace keel::detail
