// tools/web/body_decoding.hpp — what kind of content a response body is, and its bytes as UTF-8.
//
// The charset comes from the Content-Type header, or for HTML without one there from a
// <meta charset> / <meta http-equiv="Content-Type"> near the start of the page. Windows-1252 and
// the labels the WHATWG Encoding standard maps to it (ISO-8859-1, latin1, US-ASCII, ...) are
// decoded; everything else is read as UTF-8, invalid bytes becoming U+FFFD.
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace keel::detail {

struct MediaType {
  std::string type;     // "text/html", lowercased, without parameters; "" when absent
  std::string charset;  // the charset parameter, lowercased and unquoted; "" when absent
};

// Parses a Content-Type header value ("text/html; charset=ISO-8859-1").
MediaType parse_content_type(std::string_view header);

enum class BodyKind { kHtml, kText, kBinary };

// HTML (text/html, application/xhtml+xml), other text (text/*, JSON, XML, JavaScript, YAML, ...)
// or binary (images, archives, PDF, octet-stream, ...). Without a media type the body's first
// bytes decide: a NUL byte means binary, an HTML start means HTML, anything else is text.
BodyKind classify_body(const MediaType& media, std::string_view body);

// The charset a <meta> tag in the first bytes of `html` declares, lowercased; "" when none.
std::string sniff_html_charset(std::string_view html);

// True for windows-1252 and its aliases (iso-8859-1, latin1, us-ascii, cp1252, ...).
bool is_windows1252_label(std::string_view charset);

// `bytes` as valid UTF-8: decoded from windows-1252 when `charset` is one of its labels, else read
// as UTF-8 (a byte-order mark removed, invalid sequences replaced by U+FFFD).
std::string decode_to_utf8(std::string_view bytes, std::string_view charset);

}  // namespace keel::detail
