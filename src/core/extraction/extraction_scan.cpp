// find_extraction_candidates(): the deterministic extractor behind the extract skill's heuristic.
//
// It scans the normalized text (one case, one kind of space and quote), so each scanner is simple,
// and accepts a candidate only where the guard would: the type check, the guard's whole-token rule
// at that very occurrence, and the input bytes it maps back to normalizing to the same candidate.
// The value returned is those input bytes, verbatim. Every scanner moves forward only, and each
// date attempt reads a bounded number of bytes: linear in the text size.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/extraction/extraction_detail.hpp"
#include "core/extraction/extraction_unicode.hpp"
#include "keel/core/extraction.hpp"

namespace keel {
namespace {

using detail::is_ascii_alnum;


// Collects accepted candidates in order, once each. One per call; not thread-safe.
class Collector {
 public:
  Collector(std::string_view input, const detail::MappedText& norm, ExtractionTarget target)
      : input_(input), norm_(norm), target_(target) {}

  // Offers norm.text[begin, end); returns whether it was accepted (or already was).
  bool offer(size_t begin, size_t end) {
    if (begin >= end) return false;
    const std::string_view text = norm_.text;
    const std::string_view candidate = text.substr(begin, end - begin);
    if (!is_valid_extraction_value(target_, candidate) || !detail::whole_token(text, begin, end, candidate, target_)) {
      return false;
    }
    const std::string_view verbatim = input_.substr(norm_.from[begin], norm_.to[end - 1] - norm_.from[begin]);
    if (normalize_for_matching(verbatim) != candidate) return false;
    if (seen_.insert(std::string(candidate)).second) values_.emplace_back(verbatim);
    return true;
  }

  std::vector<std::string> take() { return std::move(values_); }

 private:
  std::string_view input_;
  const detail::MappedText& norm_;
  ExtractionTarget target_;
  std::unordered_set<std::string> seen_;  // normalized forms already returned
  std::vector<std::string> values_;
};

// local@domain around each '@' (ASCII addresses; the local part as people usually write it).
void scan_emails(std::string_view s, Collector& out) {
  const auto local_char = [](char c) {
    return is_ascii_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
  };
  const auto domain_char = [](char c) { return is_ascii_alnum(c) || c == '.' || c == '-'; };
  size_t scanned_to = 0;  // nothing before this is scanned again
  for (size_t at = s.find('@'); at != std::string_view::npos; at = s.find('@', at + 1)) {
    size_t begin = at;
    while (begin > scanned_to && local_char(s[begin - 1])) --begin;
    while (begin < at && s[begin] == '.') ++begin;
    size_t end = at + 1;
    while (end < s.size() && domain_char(s[end])) ++end;
    scanned_to = end;
    while (end > at + 1 && (s[end - 1] == '.' || s[end - 1] == '-')) --end;
    out.offer(begin, end);
  }
}

// Characters a URL runs over: printable ASCII but spaces, quotes, <>, [] and {}, and non-ASCII
// letters and digits (internationalized paths).
size_t url_end(std::string_view s, size_t pos) {
  while (pos < s.size()) {
    size_t next = pos;
    const char32_t cp = detail::decode_utf8(s, next);
    const bool ok = cp >= 0x80
                        ? detail::is_word_char(cp)
                        : cp > 0x20 && cp < 0x7F &&
                              std::string_view("<>\"'`[]{}|\\^").find(static_cast<char>(cp)) == std::string_view::npos;
    if (!ok) break;
    pos = next;
  }
  return pos;
}

// The end of a scanned URL without trailing sentence punctuation or a ")" that closes nothing.
size_t trim_url(std::string_view s, size_t begin, size_t end) {
  size_t open = 0;
  size_t close = 0;
  for (char c : s.substr(begin, end - begin)) {
    open += c == '(' ? 1 : 0;
    close += c == ')' ? 1 : 0;
  }
  while (end > begin) {
    const char c = s[end - 1];
    if (std::string_view(".,;:!?'").find(c) != std::string_view::npos) {
      --end;
    } else if (c == ')' && close > open) {
      --end;
      --close;
    } else {
      break;
    }
  }
  return end;
}

void scan_urls(std::string_view s, Collector& out) {
  size_t i = 0;
  while (i < s.size()) {
    const std::string_view rest = s.substr(i);
    bool start = rest.starts_with("http://") || rest.starts_with("https://") || rest.starts_with("ftp://") ||
                 rest.starts_with("www.");
    if (start && i > 0) {
      size_t b = i;
      start = !detail::continues_token(ExtractionTarget::kUrl, detail::decode_utf8_before(s, b));
    }
    if (!start) {
      ++i;
      continue;
    }
    const size_t end = url_end(s, i);
    out.offer(i, trim_url(s, i, end));
    i = end;
  }
}

void scan_dates(std::string_view s, Collector& out) {
  size_t i = 0;
  while (i < s.size()) {
    bool word_start = is_ascii_alnum(s[i]);
    if (word_start && i > 0) {
      size_t b = i;
      const char32_t prev = detail::decode_utf8_before(s, b);
      word_start = !detail::is_word_char(prev) || detail::is_unspaced_script(prev);
    }
    if (word_start) {
      const size_t n = detail::match_date(s, i);
      if (n > 0 && out.offer(i, i + n)) {
        i += n;
        continue;
      }
    }
    ++i;
  }
}

}  // namespace

Result<std::vector<std::string>> find_extraction_candidates(ExtractionTarget target, std::string_view text) {
  if (target == ExtractionTarget::kEntity) {
    return Status::FailedPrecondition(
        "extracting entities needs a model: no deterministic rule tells names of people, places or organisations "
        "from other words; run the extract skill with a model (--model), or pick target email, url or date");
  }
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    return Status::ResourceExhausted("the text to extract from is over 4 GiB; split it into smaller parts");
  }
  const detail::MappedText norm = detail::normalize_mapped(text);
  Collector out(text, norm, target);
  switch (target) {
    case ExtractionTarget::kEmail:
      scan_emails(norm.text, out);
      break;
    case ExtractionTarget::kUrl:
      scan_urls(norm.text, out);
      break;
    case ExtractionTarget::kDate:
      scan_dates(norm.text, out);
      break;
    case ExtractionTarget::kEntity:
      break;
  }
  return out.take();
}

}  // namespace keel
