// The guarded libcurl fetch: per-hop transfer, redirect following and error mapping; see
// web_fetcher.hpp.
#include "tools/web/web_fetcher.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "base/clock.hpp"
#include "net/curl_easy.hpp"
#include "net/curl_multi.hpp"
#include "tools/web/ascii_text.hpp"
#include "tools/web/web_url.hpp"

namespace keel::detail {
namespace {

using Clock = std::chrono::steady_clock;

// How often the transfer loop wakes without network activity (stop requests also wake it).
constexpr int kPollIntervalMs = 50;
// Bytes of a redirect response's body read (and dropped) before the transfer is cut short.
constexpr size_t kRedirectBodyLimit = 64 * 1024;

bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string standard_reason(long status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 418: return "I'm a teapot";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// What the opensocket callback needs: the policy and the host of the current hop.
struct Guard {
  const AddressPolicy* policy = nullptr;
  std::string host;
  Status refusal;  // the first refused address of this hop
  int opened = 0;  // sockets the guard let through
};

curl_socket_t open_guarded_socket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  auto* guard = static_cast<Guard*>(user);
  try {
    if (purpose != CURLSOCKTYPE_IPCXN) return CURL_SOCKET_BAD;
    const std::optional<IpAddress> ip = IpAddress::from_sockaddr(&address->addr, address->addrlen);
    Status verdict = ip ? guard->policy->check_address(guard->host, *ip)
                        : Status::PermissionDenied("refused to connect to " + guard->host +
                                                   ": not an IPv4 or IPv6 address");
    if (!verdict.ok()) {
      if (guard->refusal.ok()) guard->refusal = std::move(verdict);
      return CURL_SOCKET_BAD;
    }
  } catch (...) {
    return CURL_SOCKET_BAD;  // never let an exception cross libcurl's C frames
  }
  ++guard->opened;
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

// State of one hop's transfer, shared with the libcurl callbacks.
struct Hop {
  const FetchRequest* request = nullptr;
  long status = 0;
  std::string reason;
  HeaderPairs headers;
  std::string body;
  bool truncated = false;  // the body reached max_body_bytes with more to come
  bool cut = false;        // we ended the transfer on purpose (body limit)
  bool cancelled = false;  // the stop token fired
  size_t dropped = 0;      // bytes of a redirect's body read and dropped
};

// One header line of the hop's response (see CurlHooks::on_header).
bool on_header_line(Hop& hop, std::string_view raw) {
  const std::string_view line = trim_ascii(raw);
  if (line.starts_with("HTTP/")) {  // a new response head (after 1xx, or the next hop)
    hop.status = 0;
    hop.reason.clear();
    hop.headers.clear();
    const size_t sp = line.find(' ');
    if (sp != std::string_view::npos) {
      size_t i = sp + 1;
      while (i < line.size() && line[i] >= '0' && line[i] <= '9') hop.status = hop.status * 10 + (line[i++] - '0');
      hop.reason = std::string(trim_ascii(line.substr(i)));
    }
  } else if (const size_t colon = line.find(':'); colon != std::string_view::npos && colon > 0) {
    hop.headers.emplace_back(ascii_lowercase(trim_ascii(line.substr(0, colon))), std::string(trim_ascii(line.substr(colon + 1))));
  }
  return true;
}

// Body bytes of the hop's response, kept up to the limit (see CurlHooks::on_body).
bool on_body_bytes(Hop& hop, std::string_view data) {
  const size_t n = data.size();
  if (is_redirect(hop.status)) {
    hop.dropped += n;
    if (hop.dropped <= kRedirectBodyLimit) return true;
    hop.cut = true;
    return false;
  }
  const size_t cap = hop.request->max_body_bytes;
  const size_t room = cap > hop.body.size() ? cap - hop.body.size() : 0;
  if (n <= room) {
    hop.body.append(data);
    return true;
  }
  hop.body.append(data.substr(0, room));
  hop.truncated = true;
  hop.cut = true;
  return false;
}

// Asked while the hop runs: false once the stop token fired.
bool hop_wanted(Hop& hop) {
  if (hop.request->stop.stop_requested()) hop.cancelled = true;
  return !hop.cancelled;
}

// The request of one hop: URL, method and headers (which change across redirects).
struct HopRequest {
  WebUrl url;
  std::string method;
  std::vector<std::string> headers;
  std::string body;
};

bool header_named(const std::string& line, std::string_view name) {
  const size_t colon = line.find(':');
  return colon != std::string::npos && ascii_lowercase(trim_ascii(std::string_view(line).substr(0, colon))) == name;
}

bool has_header(const std::vector<std::string>& headers, std::string_view name) {
  for (const std::string& h : headers) {
    if (header_named(h, name)) return true;
  }
  return false;
}

void drop_headers(std::vector<std::string>& headers, std::initializer_list<std::string_view> names) {
  std::erase_if(headers, [&](const std::string& h) {
    for (std::string_view name : names) {
      if (header_named(h, name)) return true;
    }
    return false;
  });
}

// A failed hop as a Status. `guard` holds a refusal when the guard stopped the connection.
Status hop_failure(CURL* easy, CURLcode code, const char* errbuf, const HopRequest& req, const Guard& guard,
                   int timeout_ms, int connect_timeout_ms, bool deadline_passed) {
  const std::string& url = req.url.url;
  // Every address was refused: the guard is the reason. (When some address was allowed, its own
  // failure is the more useful message.)
  if (!guard.refusal.ok() && guard.opened == 0) return guard.refusal;
  const CurlFailure f = classify_curl_failure(easy, code, errbuf);
  switch (f.kind) {
    case CurlFailure::Kind::kTimeout:
      if (!deadline_passed && !f.connected) {
        return Status::DeadlineExceeded("could not connect to " + req.url.host + " within " +
                                        std::to_string(connect_timeout_ms) + " ms (connect_timeout_ms)");
      }
      return Status::DeadlineExceeded("fetching " + url + " timed out after " + std::to_string(timeout_ms) +
                                      " ms (timeout_ms)");
    case CurlFailure::Kind::kResolve:
      return Status::Unavailable("cannot resolve the host name '" + req.url.host + "': " + f.detail);
    case CurlFailure::Kind::kConnect:
      return Status::Unavailable("cannot connect to " + req.url.host + ": " + f.reason());
    case CurlFailure::Kind::kTls:
      return Status::Unavailable("TLS error talking to " + req.url.host + ": " + f.detail);
    case CurlFailure::Kind::kBadUrl:
      return Status::InvalidArgument("cannot fetch " + url + ": " + f.detail);
    case CurlFailure::Kind::kNoReply:
      return Status::Unavailable(req.url.host + " closed the connection without replying");
    case CurlFailure::Kind::kBadEncoding:
      return Status::Unavailable("cannot decode the response from " + url + " (Content-Encoding): " + f.detail);
    default:
      return Status::Unavailable("fetching " + url + " failed: " + f.detail + " (curl error " +
                                 std::to_string(static_cast<int>(code)) + ")");
  }
}

// Prefixes an error of a redirect hop with where the redirect led.
Status on_hop(Status s, int hop, const std::string& url) {
  if (s.ok() || hop == 0) return s;
  return Status(s.code(), "redirect " + std::to_string(hop) + " (to " + url + ") refused or failed: " + s.message());
}

// Checks one resolve_overrides entry: "[+-]host:port:address[,address...]" (IPv6 in brackets).
bool valid_resolve_entry(std::string_view entry) {
  if (!entry.empty() && (entry.front() == '+' || entry.front() == '-')) entry.remove_prefix(1);
  const size_t c1 = entry.find(':');
  if (c1 == std::string_view::npos || c1 == 0) return false;
  const size_t c2 = entry.find(':', c1 + 1);
  if (c2 == std::string_view::npos || c2 == c1 + 1) return false;
  for (char c : entry.substr(c1 + 1, c2 - c1 - 1)) {
    if (c < '0' || c > '9') return false;
  }
  std::string_view addresses = entry.substr(c2 + 1);
  while (!addresses.empty()) {
    const size_t comma = addresses.find(',');
    if (!IpAddress::parse(addresses.substr(0, comma))) return false;
    if (comma == std::string_view::npos) break;
    addresses.remove_prefix(comma + 1);
  }
  return !entry.substr(c2 + 1).empty();
}

}  // namespace

std::string FetchResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

WebFetcher::WebFetcher(WebToolOptions options, AddressPolicy policy)
    : options_(std::move(options)), policy_(std::move(policy)) {}

Result<std::shared_ptr<const WebFetcher>> WebFetcher::create(const WebToolOptions& options) {
  if (options.timeout_ms < 1) return Status::InvalidArgument("web tools: timeout_ms must be at least 1");
  if (options.connect_timeout_ms < 1) return Status::InvalidArgument("web tools: connect_timeout_ms must be at least 1");
  if (options.max_redirects < 0) return Status::InvalidArgument("web tools: max_redirects cannot be negative");
  if (options.max_response_bytes == 0 || options.max_output_bytes == 0) {
    return Status::InvalidArgument("web tools: max_response_bytes and max_output_bytes must be positive");
  }
  for (const std::string& entry : options.resolve_overrides) {
    if (!valid_resolve_entry(entry)) {
      return Status::InvalidArgument("web tools: resolve_overrides entry '" + entry +
                                     "' is not of the form host:port:address");
    }
  }
  KEEL_ASSIGN_OR_RETURN(AddressPolicy policy, AddressPolicy::create(options.allowed));
  return std::make_shared<const WebFetcher>(options, std::move(policy));
}

Result<FetchResponse> WebFetcher::fetch(const FetchRequest& request) const {
  HopRequest req;
  KEEL_ASSIGN_OR_RETURN(req.url, parse_web_url(request.url));
  req.method = request.method;
  req.headers = request.headers;
  req.body = request.body;
  if (!has_header(req.headers, "expect")) req.headers.push_back("Expect:");  // no 100-continue round trip

  CurlEasy easy;
  CurlMulti multi;  // its connection cache spans the hops
  if (!easy.ok() || !multi.ok()) return Status::Internal("libcurl could not create a handle (out of memory?)");
  CurlList resolve;
  for (const std::string& entry : options_.resolve_overrides) {
    if (!resolve.append(entry)) return Status::Internal("out of memory");
  }
  const Clock::time_point deadline = deadline_after_ms(options_.timeout_ms);

  for (int hop_index = 0;; ++hop_index) {
    KEEL_TRY(on_hop(policy_.check_host(req.url.host), hop_index, req.url.url));
    if (std::optional<IpAddress> literal = IpAddress::parse(req.url.host)) {
      KEEL_TRY(on_hop(policy_.check_address(req.url.host, *literal), hop_index, req.url.url));
    }
    const auto remaining =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (remaining <= 0) {
      return Status::DeadlineExceeded("fetching " + request.url + " timed out after " +
                                      std::to_string(options_.timeout_ms) + " ms (timeout_ms)");
    }
    if (request.stop.stop_requested()) return Status::Cancelled("fetching " + req.url.url + " was cancelled");

    CurlList headers;
    for (const std::string& h : req.headers) {
      if (!headers.append(h)) return Status::Internal("out of memory");
    }
    Guard guard;
    guard.policy = &policy_;
    guard.host = req.url.host;
    Hop hop;
    hop.request = &request;
    CurlHooks hooks;
    hooks.on_header = [&hop](std::string_view line) { return on_header_line(hop, line); };
    hooks.on_body = [&hop](std::string_view data) { return on_body_bytes(hop, data); };
    hooks.keep_going = [&hop] { return hop_wanted(hop); };

    CurlTransfer common;
    common.url = req.url.url;
    common.user_agent = options_.user_agent;  // empty: keel's own
    common.total_timeout_ms = remaining;
    common.connect_timeout_ms = std::min<int64_t>(options_.connect_timeout_ms, remaining);
    common.max_redirects = 0;              // followed below, so that each hop is checked
    common.proxy_from_environment = false;  // ignore *_proxy variables: the guard must see the real peer
    common.headers = headers.get();
    common.hooks = &hooks;
    easy.prepare(common);
    CURL* e = easy.get();
    curl().curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_guarded_socket);
    curl().curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &guard);
    if (!resolve.empty()) curl().curl_easy_setopt(e, CURLOPT_RESOLVE, resolve.get());
    curl().curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
    if (req.method == "GET") {
      curl().curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else if (req.method == "HEAD") {
      curl().curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else {
      if (req.method == "POST") {
        curl().curl_easy_setopt(e, CURLOPT_POST, 1L);
      } else {
        curl().curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req.method.c_str());
      }
      if (req.method != "DELETE" || !req.body.empty()) {
        curl().curl_easy_setopt(e, CURLOPT_POSTFIELDS, req.body.data());
        curl().curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
      }
    }

    KEEL_ASSIGN_OR_RETURN(const CurlMulti::Outcome ran,
                          multi.run(e, request.stop, std::chrono::milliseconds(kPollIntervalMs),
                                    [&hop] { return hop_wanted(hop); }));
    const CURLcode result = ran.result;

    if (hop.cancelled) return Status::Cancelled("fetching " + req.url.url + " was cancelled");
    if (!ran.finished) return Status::Internal("libcurl stopped without finishing the transfer of " + req.url.url);
    if (result != CURLE_OK && !(hop.cut && result == CURLE_WRITE_ERROR)) {
      return on_hop(hop_failure(e, result, easy.error_text(), req, guard, options_.timeout_ms,
                                options_.connect_timeout_ms, Clock::now() >= deadline),
                    hop_index, req.url.url);
    }
    long status = hop.status;
    curl().curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);

    char* location = nullptr;
    curl().curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &location);
    if (is_redirect(status) && location != nullptr && options_.max_redirects > 0) {
      const std::string next_url(location);
      if (hop_index >= options_.max_redirects) {
        return Status::ResourceExhausted("stopped after " + std::to_string(hop_index) + " redirects (max_redirects " +
                                         std::to_string(options_.max_redirects) + "): " + req.url.url +
                                         " redirects again, to " + next_url);
      }
      Result<WebUrl> next = parse_web_url(next_url);
      if (!next.ok()) {
        return Status::PermissionDenied("redirect from " + req.url.url + " refused: " + next.status().message());
      }
      // Browser semantics: 303 turns every method but HEAD into GET; 301/302 turn POST into GET.
      if ((status == 303 && req.method != "HEAD") || ((status == 301 || status == 302) && req.method == "POST")) {
        req.method = "GET";
        req.body.clear();
        drop_headers(req.headers, {"content-type"});
      }
      if (!same_origin(req.url, *next)) drop_headers(req.headers, {"authorization", "cookie", "proxy-authorization"});
      req.url = std::move(next).value();
      continue;
    }

    FetchResponse out;
    out.url = req.url.url;
    out.redirects = hop_index;
    out.status = status;
    out.reason = hop.reason.empty() ? standard_reason(status) : hop.reason;
    out.headers = std::move(hop.headers);
    out.body = std::move(hop.body);
    out.truncated = hop.truncated;
    out.method = req.method;
    return out;
  }
}

}  // namespace keel::detail
