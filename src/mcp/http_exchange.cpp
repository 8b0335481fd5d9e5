// Shared pieces of the HTTP transports; see http_exchange.hpp.
#include "mcp/http_exchange.hpp"

#include <condition_variable>
#include <nlohmann/json.hpp>
#include <utility>

namespace keel::mcp::detail {
namespace {

// How much of an error body is kept for the message.
constexpr size_t kErrorBodyBytes = 4096;

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// The server's own words in an error body: a JSON-RPC error message, an {"error": "..."} or
// {"message": "..."} field, or else the start of the body.
std::string server_message(std::string_view body) {
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object()) {
    const auto error = doc.find("error");
    if (error != doc.end() && error->is_object()) {
      const auto message = error->find("message");
      if (message != error->end() && message->is_string()) return message->get<std::string>();
    }
    if (error != doc.end() && error->is_string()) return error->get<std::string>();
    for (const char* key : {"message", "error_description", "detail"}) {
      const auto it = doc.find(key);
      if (it != doc.end() && it->is_string()) return it->get<std::string>();
    }
  }
  return excerpt(body);
}

}  // namespace

HttpSessionPool::Lease::~Lease() {
  if (pool_ == nullptr || session_ == nullptr) return;
  std::lock_guard lock(pool_->mutex_);
  if (pool_->idle_.size() < kMaxIdle) pool_->idle_.push_back(std::move(session_));
}

HttpSessionPool::Lease HttpSessionPool::acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<keel::detail::HttpSession> session = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(session));
    }
  }
  return Lease(this, std::make_unique<keel::detail::HttpSession>());
}

Status check_spec(const HttpServerSpec& spec) {
  if (!spec.url.starts_with("http://") && !spec.url.starts_with("https://")) {
    std::string m = "the MCP server URL '";
    m.append(excerpt(spec.url)).append("' is not an http:// or https:// URL; give the server's full endpoint URL");
    return Status::InvalidArgument(std::move(m));
  }
  for (const auto& [name, value] : spec.headers) {
    const bool bad_name = name.empty() || name.find_first_of(":\r\n \t") != std::string::npos;
    if (bad_name || value.find_first_of("\r\n") != std::string::npos) {
      std::string m = "the header '";
      m.append(excerpt(name)).append("' of MCP server ").append(spec.url);
      m.append(bad_name ? " has an invalid name" : " has a line break in its value");
      m.append("; remove it from the server's headers");
      return Status::InvalidArgument(std::move(m));
    }
  }
  return Status::Ok();
}

std::vector<std::string> header_lines(const HttpServerSpec& spec) {
  std::vector<std::string> lines;
  lines.reserve(spec.headers.size());
  static constexpr std::string_view kOwn[] = {"accept", "content-type", "mcp-session-id", "mcp-protocol-version",
                                              "last-event-id"};
  for (const auto& [name, value] : spec.headers) {
    bool own = false;
    for (std::string_view o : kOwn) own = own || iequals(name, o);
    if (own) continue;
    std::string line = name;
    line.append(": ").append(value);
    lines.push_back(std::move(line));
  }
  return lines;
}

bool uses_authorizer(const HttpServerSpec& spec) {
  if (!spec.authorizer) return false;
  for (const auto& [name, value] : spec.headers) {
    if (iequals(name, "authorization")) return false;  // the operator's own credentials win
  }
  return true;
}

std::vector<std::string> header_lines_with_token(const HttpServerSpec& spec) {
  std::vector<std::string> lines = header_lines(spec);
  if (uses_authorizer(spec)) {
    if (std::string token = spec.authorizer->access_token(); !token.empty())
      lines.push_back("Authorization: Bearer " + token);
  }
  return lines;
}

bool has_media_type(std::string_view content_type, std::string_view media_type) {
  std::string_view type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  return iequals(type, media_type);
}

std::string excerpt(std::string_view text, size_t max) {
  std::string out;
  for (char c : text.substr(0, max)) out.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
  if (text.size() > max) out.append("...");
  return out;
}

void deliver_json_text(std::string_view text, const TransportCallbacks& callbacks, std::string_view source) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto garbage = [&](const char* what) {
    if (!callbacks.on_garbage) return;
    std::string detail(source);
    detail.append(" sent ").append(what).append(": ").append(excerpt(text));
    callbacks.on_garbage(std::move(detail));
  };
  if (doc.is_discarded()) return garbage("data that is not JSON");
  if (doc.is_object()) {
    if (callbacks.on_message) callbacks.on_message(std::move(doc));
    return;
  }
  if (!doc.is_array()) return garbage("JSON that is not a message");
  for (nlohmann::json& element : doc) {
    if (!element.is_object()) {
      garbage("a batch element that is not a message");
      continue;
    }
    if (callbacks.on_message) callbacks.on_message(std::move(element));
  }
}

Status http_error(long status, const keel::detail::HttpHead& head, std::string_view body, std::string_view url) {
  const std::string said = body.empty() ? std::string() : server_message(body);
  std::string m(url);
  const std::string code = std::to_string(status);
  if (status == 401 || status == 403) {
    m.append(" refused the request: HTTP ").append(code);
    if (const std::string_view challenge = head.header("www-authenticate"); !challenge.empty()) {
      m.append(" (WWW-Authenticate: ").append(challenge).append(")");
    }
    if (!said.empty()) m.append(": ").append(said);
    m.append("; check the credentials in the server's headers (e.g. Authorization)");
    return Status::Unauthenticated(std::move(m));
  }
  if (status >= 300 && status < 400) {
    m.append(" answered HTTP ").append(code);
    if (const std::string_view location = head.header("location"); !location.empty()) {
      m.append(" (a redirect to ").append(location).append(")");
    }
    m.append("; set the server URL to the endpoint itself");
    return Status::InvalidArgument(std::move(m));
  }
  if (status >= 400 && status < 500) {
    m.append(" rejected the request: HTTP ").append(code);
    if (!said.empty()) m.append(": ").append(said);
    return Status::InvalidArgument(std::move(m));
  }
  m.append(status >= 500 ? " failed: HTTP " : " gave an unexpected answer: HTTP ").append(code);
  if (!said.empty()) m.append(": ").append(said);
  return Status::Unavailable(std::move(m));
}

bool sleep_until(Clock::time_point until, const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any cv;
  std::unique_lock lock(mutex);
  while (!stop.stop_requested() && Clock::now() < until) {
    cv.wait_until(lock, stop, until, [] { return false; });
  }
  return !stop.stop_requested();
}

int64_t ms_until(Clock::time_point deadline) {
  // Rounded up, plus 2 ms: libcurl's millisecond timer may fire a fraction early, and a timeout
  // must never be reported before the caller's deadline.
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count() + 2;
  return left < 1 ? 1 : left;
}

ResponseReader::ResponseReader(keel::detail::SseParser& stream, const TransportCallbacks& callbacks, std::string source,
                               std::function<bool()> keep_reading)
    : stream_(stream), callbacks_(callbacks), source_(std::move(source)), keep_reading_(std::move(keep_reading)) {}

bool ResponseReader::on_body(const keel::detail::HttpHead& head, std::string_view bytes) {
  if (mode_ == Mode::kUndecided) {
    if (head.status < 200 || head.status >= 300) {
      mode_ = Mode::kError;
    } else if (has_media_type(head.content_type, "text/event-stream")) {
      mode_ = Mode::kStream;
    } else {
      mode_ = Mode::kBody;
    }
  }
  switch (mode_) {
    case Mode::kStream:
      if (stream_.feed(bytes, [this](const keel::detail::SseEvent& e) { return on_event(e); })) return true;
      oversized_ = stream_.oversized();
      return false;
    case Mode::kBody:
      if (body_.size() + bytes.size() > kMaxEventBytes) {
        oversized_ = true;
        return false;
      }
      body_.append(bytes);
      return true;
    default:
      body_.append(bytes.substr(0, kErrorBodyBytes - body_.size()));
      return body_.size() < kErrorBodyBytes;  // enough to quote: stop reading
  }
}

bool ResponseReader::on_event(const keel::detail::SseEvent& event) {
  if (!event.event.empty() && event.event != "message") {
    if (!on_other_event || on_other_event(event)) return true;
    stopped_by_event_ = true;
    return false;
  }
  if (event.data.empty()) return true;  // a priming event: it only sets the id to resume from
  deliver_json_text(event.data, callbacks_, source_);
  if (!satisfied_ && keep_reading_ && !keep_reading_()) {
    satisfied_ = true;
    satisfied_at_ = Clock::now();
  }
  return true;
}

void ResponseReader::attach(keel::detail::HttpRequest& request) {
  request.on_body = [this](const keel::detail::HttpHead& head, std::string_view bytes) { return on_body(head, bytes); };
  request.still_wanted = [this] { return still_wanted(); };
}

void ResponseReader::deliver_body() {
  if (mode_ != Mode::kBody) return;
  std::string_view text = body_;
  while (!text.empty() &&
         (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  if (!text.empty()) deliver_json_text(text, callbacks_, source_);
}

}  // namespace keel::mcp::detail
