// The guarded libcurl fetch: per-hop transfer, redirect following and error mapping; see
// web_fetcher.hpp.
#include "tools/web/web_fetcher.hpp"

#include <curl/curl.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <system_error>

#include "tools/web/ascii_text.hpp"
#include "tools/web/web_url.hpp"

#ifndef KEEL_VERSION
#define KEEL_VERSION "dev"
#endif

namespace keel::detail {
namespace {

using Clock = std::chrono::steady_clock;

// How often the transfer loop wakes without network activity (stop requests also wake it).
constexpr int kPollIntervalMs = 50;
// Bytes of a redirect response's body read (and dropped) before the transfer is cut short.
constexpr size_t kRedirectBodyLimit = 64 * 1024;

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct EasyDeleter {
  void operator()(CURL* e) const { curl_easy_cleanup(e); }
};
struct MultiDeleter {
  void operator()(CURLM* m) const { curl_multi_cleanup(m); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using SlistPtr = std::unique_ptr<curl_slist, SlistDeleter>;

// Appends to a curl_slist; false when libcurl ran out of memory.
bool slist_append(SlistPtr& list, const std::string& item) {
  curl_slist* next = curl_slist_append(list.get(), item.c_str());
  if (next == nullptr) return false;
  (void)list.release();
  list.reset(next);
  return true;
}

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

size_t on_header(char* buffer, size_t size, size_t count, void* user) {
  auto* hop = static_cast<Hop*>(user);
  const size_t n = size * count;
  try {
    const std::string_view line = trim_ascii(std::string_view(buffer, n));
    if (line.starts_with("HTTP/")) {  // a new response head (after 1xx, or the next hop)
      hop->status = 0;
      hop->reason.clear();
      hop->headers.clear();
      const size_t sp = line.find(' ');
      if (sp != std::string_view::npos) {
        size_t i = sp + 1;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9') hop->status = hop->status * 10 + (line[i++] - '0');
        hop->reason = std::string(trim_ascii(line.substr(i)));
      }
    } else if (const size_t colon = line.find(':'); colon != std::string_view::npos && colon > 0) {
      hop->headers.emplace_back(ascii_lowercase(trim_ascii(line.substr(0, colon))), std::string(trim_ascii(line.substr(colon + 1))));
    }
  } catch (...) {
    return 0;
  }
  return n;
}

size_t on_write(char* data, size_t size, size_t count, void* user) {
  auto* hop = static_cast<Hop*>(user);
  const size_t n = size * count;
  if (is_redirect(hop->status)) {
    hop->dropped += n;
    if (hop->dropped <= kRedirectBodyLimit) return n;
    hop->cut = true;
    return 0;
  }
  const size_t cap = hop->request->max_body_bytes;
  const size_t room = cap > hop->body.size() ? cap - hop->body.size() : 0;
  try {
    if (n <= room) {
      hop->body.append(data, n);
      return n;
    }
    hop->body.append(data, room);
  } catch (...) {
    return 0;
  }
  hop->truncated = true;
  hop->cut = true;
  return 0;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* hop = static_cast<Hop*>(user);
  if (hop->request->stop.stop_requested()) hop->cancelled = true;
  return hop->cancelled ? 1 : 0;
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
  const std::string detail = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(code));
  // Every address was refused: the guard is the reason. (When some address was allowed, its own
  // failure is the more useful message.)
  if (!guard.refusal.ok() && guard.opened == 0) return guard.refusal;
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: {
      curl_off_t connect_us = 0;
      curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
      if (!deadline_passed && connect_us == 0) {
        return Status::DeadlineExceeded("could not connect to " + req.url.host + " within " +
                                        std::to_string(connect_timeout_ms) + " ms (connect_timeout_ms)");
      }
      return Status::DeadlineExceeded("fetching " + url + " timed out after " + std::to_string(timeout_ms) +
                                      " ms (timeout_ms)");
    }
    case CURLE_COULDNT_RESOLVE_HOST:
      return Status::Unavailable("cannot resolve the host name '" + req.url.host + "': " + detail);
    case CURLE_COULDNT_CONNECT: {
      long os_errno = 0;
      curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
      const std::string why = os_errno != 0 ? std::system_category().message(static_cast<int>(os_errno)) : detail;
      return Status::Unavailable("cannot connect to " + req.url.host + ": " + why);
    }
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      return Status::Unavailable("TLS error talking to " + req.url.host + ": " + detail);
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return Status::InvalidArgument("cannot fetch " + url + ": " + detail);
    case CURLE_GOT_NOTHING:
      return Status::Unavailable(req.url.host + " closed the connection without replying");
    case CURLE_BAD_CONTENT_ENCODING:
      return Status::Unavailable("cannot decode the response from " + url + " (Content-Encoding): " + detail);
    default:
      return Status::Unavailable("fetching " + url + " failed: " + detail + " (curl error " +
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
  global_init_once();
  return std::make_shared<const WebFetcher>(options, std::move(policy));
}

Result<FetchResponse> WebFetcher::fetch(const FetchRequest& request) const {
  HopRequest req;
  KEEL_ASSIGN_OR_RETURN(req.url, parse_web_url(request.url));
  req.method = request.method;
  req.headers = request.headers;
  req.body = request.body;
  if (!has_header(req.headers, "expect")) req.headers.push_back("Expect:");  // no 100-continue round trip

  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());  // its connection cache spans the hops
  if (!easy || !multi) return Status::Internal("libcurl could not create a handle (out of memory?)");
  SlistPtr resolve;
  for (const std::string& entry : options_.resolve_overrides) {
    if (!slist_append(resolve, entry)) return Status::Internal("out of memory");
  }
  const std::string user_agent = options_.user_agent.empty() ? "keel/" KEEL_VERSION : options_.user_agent;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(options_.timeout_ms);

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

    SlistPtr headers;
    for (const std::string& h : req.headers) {
      if (!slist_append(headers, h)) return Status::Internal("out of memory");
    }
    Guard guard;
    guard.policy = &policy_;
    guard.host = req.url.host;
    Hop hop;
    hop.request = &request;
    char errbuf[CURL_ERROR_SIZE] = {};
    CURL* e = easy.get();
    curl_easy_reset(e);  // keeps the connection and DNS caches
    curl_easy_setopt(e, CURLOPT_URL, req.url.url.c_str());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_PROXY, "");  // ignore *_proxy variables: the guard must see the real peer
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_guarded_socket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &guard);
    if (resolve) curl_easy_setopt(e, CURLOPT_RESOLVE, resolve.get());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(remaining));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::min<int64_t>(options_.connect_timeout_ms, remaining)));
    curl_easy_setopt(e, CURLOPT_USERAGENT, user_agent.c_str());
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &hop);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &hop);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, &hop);
    if (req.method == "GET") {
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else if (req.method == "HEAD") {
      curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else {
      if (req.method == "POST") {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
      } else {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req.method.c_str());
      }
      if (req.method != "DELETE" || !req.body.empty()) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, req.body.data());
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
      }
    }

    CURLcode result = CURLE_OK;
    bool finished = false;
    if (CURLMcode mc = curl_multi_add_handle(multi.get(), e); mc != CURLM_OK) {
      return Status::Internal(std::string("libcurl refused the transfer: ") + curl_multi_strerror(mc));
    }
    {
      CURLM* m = multi.get();
      std::stop_callback wake(request.stop, [m] { curl_multi_wakeup(m); });
      while (true) {
        int running = 0;
        const CURLMcode mc = curl_multi_perform(m, &running);
        int pending = 0;
        while (CURLMsg* msg = curl_multi_info_read(m, &pending)) {
          if (msg->msg == CURLMSG_DONE && msg->easy_handle == e) {
            result = msg->data.result;
            finished = true;
          }
        }
        if (finished || running == 0 || mc != CURLM_OK) break;
        if (request.stop.stop_requested()) {
          hop.cancelled = true;
          break;
        }
        curl_multi_poll(m, nullptr, 0, kPollIntervalMs, nullptr);
      }
    }
    curl_multi_remove_handle(multi.get(), e);  // an unfinished transfer is aborted here

    if (hop.cancelled) return Status::Cancelled("fetching " + req.url.url + " was cancelled");
    if (!finished) return Status::Internal("libcurl stopped without finishing the transfer of " + req.url.url);
    if (result != CURLE_OK && !(hop.cut && result == CURLE_WRITE_ERROR)) {
      return on_hop(hop_failure(e, result, errbuf, req, guard, options_.timeout_ms, options_.connect_timeout_ms,
                                Clock::now() >= deadline),
                    hop_index, req.url.url);
    }
    long status = hop.status;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);

    char* location = nullptr;
    curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &location);
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
