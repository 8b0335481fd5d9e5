// URL parsing and resolution with libcurl's CURLU API; see web_url.hpp.
#include "tools/web/web_url.hpp"

#include "net/curl_library.hpp"

#include <cstdlib>
#include <memory>

#include "tools/web/address_policy.hpp"
#include "tools/web/ascii_text.hpp"

namespace keel::detail {
namespace {

struct UrlDeleter {
  void operator()(CURLU* u) const { curl().curl_url_cleanup(u); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

struct CurlStringDeleter {
  void operator()(char* s) const { curl().curl_free(s); }
};

// A part of a parsed URL, or "" when it is absent.
std::string get_part(CURLU* u, CURLUPart part, unsigned int flags = 0) {
  char* raw = nullptr;
  if (curl().curl_url_get(u, part, &raw, flags) != CURLUE_OK || raw == nullptr) return "";
  std::unique_ptr<char, CurlStringDeleter> owned(raw);
  return std::string(raw);
}

// The scheme of an absolute reference ("mailto" in "mailto:x"), lowercased, or "" for a relative one.
std::string scheme_of(std::string_view ref) {
  for (size_t i = 0; i < ref.size(); ++i) {
    const char c = ref[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (c == ':') return i > 0 ? ascii_lowercase(std::string(ref.substr(0, i))) : "";
    if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) return "";
  }
  return "";
}

// What browsers do to an href before parsing it: trim C0 controls and spaces, drop tabs and
// newlines, and percent-encode what a URL parser would reject.
std::string clean_reference(std::string_view ref) {
  while (!ref.empty() && static_cast<unsigned char>(ref.front()) <= 0x20) ref.remove_prefix(1);
  while (!ref.empty() && static_cast<unsigned char>(ref.back()) <= 0x20) ref.remove_suffix(1);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(ref.size());
  for (char ch : ref) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (c <= 0x20 || c >= 0x7F || c == '"' || c == '<' || c == '>' || c == '`' || c == '{' || c == '}' ||
        c == '|' || c == '\\' || c == '^') {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += ch;
    }
  }
  return out;
}

// Lowercases the host in place (libcurl keeps its case), so equal URLs compare equal.
void lowercase_host(CURLU* u) {
  const std::string host = get_part(u, CURLUPART_HOST);
  const std::string lower = ascii_lowercase(host);
  if (!host.empty() && lower != host) curl().curl_url_set(u, CURLUPART_HOST, lower.c_str(), 0);
}

}  // namespace

Result<WebUrl> parse_web_url(std::string_view url) {
  const std::string text = clean_reference(url);
  if (text.empty()) return Status::InvalidArgument("the URL is empty; give an absolute http:// or https:// URL");
  const std::string scheme = scheme_of(text);
  if (scheme.empty() || text.find("//") != scheme.size() + 1) {
    if (scheme != "http" && scheme != "https" && !scheme.empty()) {
      return Status::InvalidArgument("'" + scheme + ":' URLs are not supported; the web tools fetch only http and https");
    }
    return Status::InvalidArgument("'" + std::string(url) +
                                   "' is not an absolute URL; give one that starts with http:// or https://");
  }
  if (scheme != "http" && scheme != "https") {
    return Status::InvalidArgument("'" + scheme + "://' URLs are not supported; the web tools fetch only http and https");
  }
  UrlHandle u(curl().curl_url());
  if (!u) return Status::Internal("libcurl could not allocate a URL handle");
  if (CURLUcode rc = curl().curl_url_set(u.get(), CURLUPART_URL, text.c_str(), 0); rc != CURLUE_OK) {
    return Status::InvalidArgument("'" + std::string(url) + "' is not a valid URL: " + curl().curl_url_strerror(rc));
  }
  lowercase_host(u.get());
  WebUrl out;
  out.scheme = ascii_lowercase(get_part(u.get(), CURLUPART_SCHEME));
  out.host = normalize_host(get_part(u.get(), CURLUPART_HOST));
  if (out.host.empty()) return Status::InvalidArgument("'" + std::string(url) + "' has no host name");
  const std::string port = get_part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  out.port = port.empty() ? 0 : std::atoi(port.c_str());
  out.url = get_part(u.get(), CURLUPART_URL);
  return out;
}

std::optional<std::string> resolve_http_url(std::string_view base, std::string_view reference, bool drop_fragment) {
  const std::string ref = clean_reference(reference);
  const std::string scheme = scheme_of(ref);
  if (!scheme.empty() && scheme != "http" && scheme != "https") return std::nullopt;
  UrlHandle u(curl().curl_url());
  if (!u) return std::nullopt;
  const std::string base_text(base);
  if (curl().curl_url_set(u.get(), CURLUPART_URL, base_text.c_str(), 0) != CURLUE_OK) return std::nullopt;
  // An empty reference is the base itself (an <a href=""> points at the page); a fragment-only one
  // replaces just the fragment (libcurl would also drop the last path segment).
  if (ref.starts_with('#')) {
    if (curl().curl_url_set(u.get(), CURLUPART_FRAGMENT, ref.size() > 1 ? ref.c_str() + 1 : nullptr, 0) != CURLUE_OK) {
      return std::nullopt;
    }
  } else if (!ref.empty() && curl().curl_url_set(u.get(), CURLUPART_URL, ref.c_str(), 0) != CURLUE_OK) {
    return std::nullopt;
  }
  lowercase_host(u.get());
  const std::string resolved_scheme = ascii_lowercase(get_part(u.get(), CURLUPART_SCHEME));
  if (resolved_scheme != "http" && resolved_scheme != "https") return std::nullopt;
  if (get_part(u.get(), CURLUPART_HOST).empty()) return std::nullopt;
  if (drop_fragment) curl().curl_url_set(u.get(), CURLUPART_FRAGMENT, nullptr, 0);
  std::string out = get_part(u.get(), CURLUPART_URL);
  if (out.empty()) return std::nullopt;
  return out;
}

bool same_origin(const WebUrl& a, const WebUrl& b) {
  return a.scheme == b.scheme && a.host == b.host && a.port == b.port;
}

}  // namespace keel::detail
