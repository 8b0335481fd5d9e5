// Content types, charset sniffing and windows-1252 decoding; see body_decoding.hpp.
#include "tools/web/body_decoding.hpp"

#include <cstdint>

#include "core/text/text_util.hpp"
#include "core/text/utf8_text.hpp"
#include "tools/web/ascii_text.hpp"

namespace keel::detail {
namespace {

// How far into an HTML document a <meta> charset declaration is looked for.
constexpr size_t kCharsetSniffBytes = 4096;

// Code points of windows-1252 bytes 0x80..0x9F (the rest of the upper half equals Latin-1).
constexpr uint16_t kWindows1252High[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

// The value after "charset" in `s` (e.g. in `charset="utf-8"` or `content="text/html; charset=x"`).
std::string charset_after(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i >= s.size() || s[i] != '=') return "";
  ++i;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '"' || s[i] == '\'')) ++i;
  size_t end = i;
  while (end < s.size()) {
    const char c = s[end];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == ':';
    if (!ok) break;
    ++end;
  }
  return std::string(s.substr(i, end - i));
}

bool looks_like_html(std::string_view body) {
  const std::string head = ascii_lowercase(body.substr(0, 1024));
  std::string_view s = trim_ascii(head);
  if (s.starts_with("\xef\xbb\xbf")) s.remove_prefix(3);
  s = trim_ascii(s);
  return s.starts_with("<!doctype html") || s.starts_with("<html") || head.find("<head") != std::string::npos ||
         head.find("<body") != std::string::npos;
}

}  // namespace

MediaType parse_content_type(std::string_view header) {
  MediaType media;
  const size_t semi = header.find(';');
  media.type = ascii_lowercase(trim_ascii(header.substr(0, semi)));
  if (semi == std::string_view::npos) return media;
  const std::string params = ascii_lowercase(header.substr(semi + 1));
  size_t pos = 0;
  while ((pos = params.find("charset", pos)) != std::string::npos) {
    const bool at_start = pos == 0 || params[pos - 1] == ';' || params[pos - 1] == ' ' || params[pos - 1] == '\t';
    pos += 7;
    if (!at_start) continue;
    media.charset = charset_after(std::string_view(params).substr(pos));
    if (!media.charset.empty()) break;
  }
  return media;
}

BodyKind classify_body(const MediaType& media, std::string_view body) {
  const std::string& t = media.type;
  if (t == "text/html" || t == "application/xhtml+xml") return BodyKind::kHtml;
  if (t.starts_with("text/") || t.ends_with("+json") || t.ends_with("+xml") || t == "application/json" ||
      t == "application/xml" || t == "application/javascript" || t == "application/x-javascript" ||
      t == "application/ecmascript" || t == "application/yaml" || t == "application/x-yaml" ||
      t == "application/toml" || t == "application/x-sh" || t == "application/sql" ||
      t == "application/graphql" || t == "application/x-www-form-urlencoded" || t == "application/x-ndjson") {
    return BodyKind::kText;
  }
  if (!t.empty()) return BodyKind::kBinary;
  if (looks_binary(body)) return BodyKind::kBinary;
  return looks_like_html(body) ? BodyKind::kHtml : BodyKind::kText;
}

std::string sniff_html_charset(std::string_view html) {
  const std::string head = ascii_lowercase(html.substr(0, kCharsetSniffBytes));
  size_t pos = 0;
  while ((pos = head.find("<meta", pos)) != std::string::npos) {
    const size_t end = head.find('>', pos);
    const std::string_view tag = std::string_view(head).substr(pos, end == std::string::npos ? end : end - pos);
    pos += 5;
    size_t at = tag.find("charset");
    while (at != std::string_view::npos) {
      std::string charset = charset_after(tag.substr(at + 7));
      if (!charset.empty()) return charset;
      at = tag.find("charset", at + 7);
    }
  }
  return "";
}

bool is_windows1252_label(std::string_view charset) {
  static constexpr std::string_view kLabels[] = {
      "windows-1252", "cp1252",   "x-cp1252",   "iso-8859-1", "iso8859-1",       "iso88591",  "iso_8859-1",
      "iso_8859-1:1987", "latin1", "l1",        "cp819",      "ibm819",          "iso-ir-100", "csisolatin1",
      "us-ascii",     "ascii",    "ansi_x3.4-1968",
  };
  const std::string label = ascii_lowercase(trim_ascii(charset));
  for (std::string_view known : kLabels) {
    if (label == known) return true;
  }
  return false;
}

std::string decode_to_utf8(std::string_view bytes, std::string_view charset) {
  if (bytes.starts_with("\xef\xbb\xbf")) return sanitize_utf8(bytes.substr(3));  // a BOM overrides labels
  if (!is_windows1252_label(charset)) return sanitize_utf8(bytes);
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (char ch : bytes) {
    const auto b = static_cast<uint8_t>(ch);
    if (b < 0x80) {
      out += ch;
    } else if (b < 0xA0) {
      append_utf8(out, kWindows1252High[b - 0x80]);
    } else {
      append_utf8(out, b);
    }
  }
  return out;
}

}  // namespace keel::detail
