// Extraction targets and the type checks of email addresses, URLs and entities (dates live in
// extraction_date.cpp). The rules are listed in keel/core/extraction.hpp.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/extraction/extraction_detail.hpp"
#include "core/text/text_util.hpp"
#include "core/extraction/extraction_unicode.hpp"
#include "keel/core/extraction.hpp"

namespace keel {
namespace {

using detail::is_ascii_alnum;
using detail::is_ascii_alpha;
using detail::is_ascii_digit;

constexpr ExtractionTarget kTargets[] = {ExtractionTarget::kEmail, ExtractionTarget::kUrl, ExtractionTarget::kDate,
                                         ExtractionTarget::kEntity};

bool is_non_ascii(char c) {
  return static_cast<unsigned char>(c) >= 0x80;
}

// Valid UTF-8 without whitespace or control characters.
bool is_clean_token(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t start = pos;
    const char32_t cp = detail::decode_utf8(s, pos);
    if (cp == detail::kReplacementChar && s.substr(start, pos - start) != "\xEF\xBF\xBD") return false;
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || detail::is_unicode_space(cp)) return false;
  }
  return true;
}

// A DNS-style label: 1-63 bytes of letters, digits, hyphens (not first or last) and non-ASCII.
bool is_host_label(std::string_view label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
  for (char c : label) {
    if (!is_ascii_alnum(c) && c != '-' && !is_non_ascii(c)) return false;
  }
  return true;
}

bool has_alpha(std::string_view s) {
  for (char c : s) {
    if (is_ascii_alpha(c) || is_non_ascii(c)) return true;
  }
  return false;
}

// Dot-separated host labels; `min_labels` of them at least. The last must have a letter (so a
// bare number is not a host name).
bool is_host_name(std::string_view host, size_t min_labels) {
  size_t labels = 0;
  size_t start = 0;
  std::string_view last;
  while (true) {
    const size_t dot = host.find('.', start);
    last = host.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!is_host_label(last)) return false;
    ++labels;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return labels >= min_labels && has_alpha(last);
}

bool is_ipv4(std::string_view host) {
  int parts = 0;
  size_t start = 0;
  while (true) {
    const size_t dot = host.find('.', start);
    const std::string_view part =
        host.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 3) return false;
    int v = 0;
    for (char c : part) {
      if (!is_ascii_digit(c)) return false;
      v = v * 10 + (c - '0');
    }
    if (v > 255) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

// host[:port] of a URL; `min_labels` applies to host names (3 for a bare "www." URL).
bool is_host_port(std::string_view hp, size_t min_labels) {
  std::string_view host = hp;
  std::string_view port;
  if (!hp.empty() && hp.front() == '[') {
    const size_t close = hp.find(']');
    if (close == std::string_view::npos || close < 3) return false;
    for (char c : hp.substr(1, close - 1)) {
      if (!is_ascii_digit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') && c != ':' && c != '.')
        return false;
    }
    if (hp.substr(1, close - 1).find(':') == std::string_view::npos) return false;
    const std::string_view rest = hp.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port = rest.substr(1);
      if (port.empty()) return false;
    }
    host = {};
  } else if (const size_t colon = hp.rfind(':'); colon != std::string_view::npos) {
    host = hp.substr(0, colon);
    port = hp.substr(colon + 1);
    if (port.empty()) return false;
  }
  if (!port.empty()) {
    if (port.size() > 5) return false;
    int v = 0;
    for (char c : port) {
      if (!is_ascii_digit(c)) return false;
      v = v * 10 + (c - '0');
    }
    if (v > 65535) return false;
  }
  if (host.empty()) return hp.front() == '[';
  return is_host_name(host, min_labels) || (min_labels == 1 && is_ipv4(host));
}


}  // namespace

namespace detail {

std::string_view trim_unicode_space(std::string_view s) {
  size_t begin = s.size();
  size_t end = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t start = pos;
    if (!is_unicode_space(decode_utf8(s, pos))) {
      if (begin == s.size()) begin = start;
      end = pos;
    }
  }
  return begin == s.size() ? std::string_view() : s.substr(begin, end - begin);
}

}  // namespace detail

std::string_view extraction_target_name(ExtractionTarget target) {
  switch (target) {
    case ExtractionTarget::kEmail:
      return "email";
    case ExtractionTarget::kUrl:
      return "url";
    case ExtractionTarget::kDate:
      return "date";
    case ExtractionTarget::kEntity:
      return "entity";
  }
  return "entity";
}

Result<ExtractionTarget> parse_extraction_target(std::string_view name) {
  for (ExtractionTarget t : kTargets) {
    if (extraction_target_name(t) == name) return t;
  }
  std::string msg = "unknown extraction target '";
  msg.append(name);
  msg.append("': use one of email, url, date, entity");
  return Status::InvalidArgument(std::move(msg));
}

bool is_valid_email(std::string_view value) {
  const std::string_view v = detail::trim_unicode_space(value);
  if (v.size() > 254 || !is_clean_token(v)) return false;
  const size_t at = v.find('@');
  if (at == std::string_view::npos || v.find('@', at + 1) != std::string_view::npos) return false;
  const std::string_view local = v.substr(0, at);
  const std::string_view domain = v.substr(at + 1);
  if (local.empty() || local.size() > 64 || local.front() == '.' || local.back() == '.' ||
      local.find("..") != std::string_view::npos) {
    return false;
  }
  constexpr std::string_view kAtext = "!#$%&'*+/=?^_`{|}~-.";
  for (char c : local) {
    if (!is_ascii_alnum(c) && !is_non_ascii(c) && kAtext.find(c) == std::string_view::npos) return false;
  }
  return is_host_name(domain, 2);
}

bool is_valid_url(std::string_view value) {
  const std::string_view v = detail::trim_unicode_space(value);
  if (v.empty() || !is_clean_token(v) || v.find_first_of("<>\"{}|\\^`") != std::string_view::npos) return false;
  std::string_view rest;
  size_t min_labels = 1;
  using detail::starts_with_ascii_icase;
  if (starts_with_ascii_icase(v, "http://") || starts_with_ascii_icase(v, "https://") ||
      starts_with_ascii_icase(v, "ftp://")) {
    rest = v.substr(v.find("://") + 3);
  } else if (starts_with_ascii_icase(v, "www.")) {
    rest = v;
    min_labels = 3;
  } else {
    return false;
  }
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    if (min_labels == 3) return false;  // "www.x@y" is not a bare URL
    authority = authority.substr(at + 1);
  }
  if (authority.empty()) return false;
  return is_host_port(authority, min_labels);
}

bool is_valid_entity(std::string_view value) {
  const std::string_view v = detail::trim_unicode_space(value);
  size_t count = 0;
  bool letter = false;
  size_t pos = 0;
  while (pos < v.size()) {
    const char32_t cp = detail::decode_utf8(v, pos);
    if (++count > 200) return false;
    letter = letter || detail::is_letter(cp);
  }
  return letter;
}

bool is_valid_extraction_value(ExtractionTarget target, std::string_view value) {
  switch (target) {
    case ExtractionTarget::kEmail:
      return is_valid_email(value);
    case ExtractionTarget::kUrl:
      return is_valid_url(value);
    case ExtractionTarget::kDate:
      return is_valid_date(value);
    case ExtractionTarget::kEntity:
      return is_valid_entity(value);
  }
  return false;
}

}  // namespace keel
