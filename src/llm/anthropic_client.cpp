// The Anthropic Messages LlmClient: request building, the retry loop and the HTTP session; see
// keel/anthropic_client.hpp.
#include "keel/anthropic_client.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include "llm/anthropic_reader.hpp"
#include "llm/anthropic_wire.hpp"
#include "llm/http_call.hpp"
#include "net/http_transport.hpp"
#include "llm/retry_policy.hpp"

namespace keel {
namespace {

bool anthropic_line_break(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

// The endpoint URL for a base URL (see AnthropicOptions::base_url).
std::string messages_url(std::string base) {
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.ends_with("/v1/messages")) return base;
  base += base.ends_with("/v1") ? "/messages" : "/v1/messages";
  return base;
}

// Thread-safety: complete() is serialised by mutex_; describe() reads immutable state.
class AnthropicClient final : public LlmClient {
 public:
  explicit AnthropicClient(AnthropicOptions options)
      : options_(std::move(options)), valid_(validate_anthropic_options(options_)), url_(messages_url(options_.base_url)), http_(url_) {
    rng_.seed(std::random_device{}());
  }

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    try {
      std::lock_guard lock(mutex_);
      return complete_locked(request, options);
    } catch (const std::exception& e) {
      return Status::Internal(std::string("anthropic client: unexpected exception: ") + e.what());
    } catch (...) {
      return Status::Internal("anthropic client: unexpected non-standard exception");
    }
  }

  std::string describe() const override {
    std::string out = "anthropic ";
    out += url_;
    out += " (";
    out += options_.model;
    out += ')';
    return out;
  }

 private:
  Result<ModelReply> complete_locked(const ModelRequest& request, const CallOptions& options) {
    if (!valid_.ok()) return valid_;
    detail::AnthropicWireOptions wire;
    wire.model = options_.model;
    wire.max_tokens = options_.max_tokens;
    wire.stream = options.stream;
    KEEL_ASSIGN_OR_RETURN(std::string body, detail::build_messages_request(request, wire));

    return detail::call_with_retries(options_.retry, options, [this] { return unit_(rng_); },
                                     [&](const detail::CallDeadline& deadline) {
                                       return run_attempt(body, options, deadline);
                                     });
  }

  // `body` is lent to the request for the attempt (no copy of a long conversation) and given back.
  detail::AttemptOutcome run_attempt(std::string& body, const CallOptions& options,
                                     const detail::CallDeadline& deadline) {
    detail::AnthropicReader reader(options, options.stream, url_);
    detail::HttpRequest http;
    http.url = url_;
    http.target = options_.base_url;
    http.body = std::move(body);
    http.headers = headers(options.stream);
    detail::HttpCallLimits limits;
    limits.connect_timeout_ms = options_.connect_timeout_ms;
    limits.request_timeout_ms = options_.request_timeout_ms;
    limits.stream_idle_timeout_ms = options_.stream_idle_timeout_ms;
    detail::apply_call_limits(http, limits, options, deadline);
    http.on_body = [&reader](const detail::HttpHead& head, std::string_view bytes) {
      return reader.on_body(head, bytes);
    };
    detail::HttpOutcome outcome = http_.post(http);
    body = std::move(http.body);
    return reader.finish(outcome);
  }

  std::vector<std::string> headers(bool stream) const {
    std::vector<std::string> out;
    out.emplace_back("content-type: application/json");
    out.emplace_back(stream ? "accept: text/event-stream" : "accept: application/json");
    out.push_back("anthropic-version: " + options_.anthropic_version);
    if (!options_.api_key.empty()) out.push_back("x-api-key: " + options_.api_key);
    out.emplace_back("Expect:");  // no "100-continue" round trip for large bodies
    return out;
  }

  AnthropicOptions options_;
  Status valid_;
  std::string url_;
  std::mutex mutex_;
  detail::HttpSession http_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
};

}  // namespace

Status validate_anthropic_options(const AnthropicOptions& o) {
  if (!o.base_url.starts_with("http://") && !o.base_url.starts_with("https://")) {
    return Status::InvalidArgument("anthropic base_url '" + o.base_url +
                                   "' must start with http:// or https:// (default https://api.anthropic.com)");
  }
  if (o.model.empty()) return Status::InvalidArgument("anthropic model is empty (e.g. \"claude-sonnet-4-5\")");
  if (anthropic_line_break(o.base_url) || anthropic_line_break(o.api_key) || anthropic_line_break(o.model) ||
      anthropic_line_break(o.anthropic_version)) {
    return Status::InvalidArgument("base_url, api_key, model and anthropic_version must not contain line breaks");
  }
  if (o.max_tokens <= 0) {
    return Status::InvalidArgument("anthropic max_tokens is " + std::to_string(o.max_tokens) + "; it must be > 0");
  }
  if (o.connect_timeout_ms < 0 || o.request_timeout_ms < 0 || o.stream_idle_timeout_ms < 0) {
    return Status::InvalidArgument("connect_timeout_ms, request_timeout_ms and stream_idle_timeout_ms must be >= 0");
  }
  if (o.retry.initial_delay_ms < 0 || o.retry.max_delay_ms < 0) {
    return Status::InvalidArgument("retry.initial_delay_ms and retry.max_delay_ms must be >= 0");
  }
  if (!(o.retry.multiplier >= 1.0)) return Status::InvalidArgument("retry.multiplier must be >= 1");
  return Status::Ok();
}

std::unique_ptr<LlmClient> make_anthropic_client(AnthropicOptions options) {
  return std::make_unique<AnthropicClient>(std::move(options));
}

}  // namespace keel
