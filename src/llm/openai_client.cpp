// The OpenAI-compatible LlmClient: request building, the retry loop and the HTTP session; see
// keel/openai_client.hpp.
#include "keel/openai_client.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <limits>
#include <mutex>
#include <random>
#include <utility>

#include "llm/http_call.hpp"
#include "net/http_transport.hpp"
#include "llm/openai_wire.hpp"
#include "llm/reply_reader.hpp"
#include "llm/retry_policy.hpp"

namespace keel {
namespace {

constexpr std::string_view kEndpoint = "/chat/completions";

bool has_line_break(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

std::string strip_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// Thread-safety: complete() is serialised by mutex_; describe() reads immutable state.
class OpenAiClient final : public LlmClient {
 public:
  explicit OpenAiClient(OpenAiOptions options)
      : options_(std::move(options)),
        valid_(validate_openai_options(options_)),
        url_(chat_url(options_.base_url)),
        http_(url_) {
    options_.base_url = strip_trailing_slashes(options_.base_url);
    rng_.seed(std::random_device{}());
  }

  // The chat completions endpoint under `base_url`, or `base_url` when it already names it.
  static std::string chat_url(const std::string& base_url) {
    std::string base = strip_trailing_slashes(base_url);
    return base.ends_with(kEndpoint) ? base : base + std::string(kEndpoint);
  }

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    try {
      std::lock_guard lock(mutex_);
      return complete_locked(request, options);
    } catch (const std::exception& e) {
      return Status::Internal(std::string("openai client: unexpected exception: ") + e.what());
    } catch (...) {
      return Status::Internal("openai client: unexpected non-standard exception");
    }
  }

  std::string describe() const override {
    return "openai-compatible " + options_.base_url + " (" + options_.model + ")";
  }

 private:
  Result<ModelReply> complete_locked(const ModelRequest& request, const CallOptions& options) {
    if (!valid_.ok()) return valid_;
    detail::WireOptions wire{options_.model, options.stream, options_.stream_usage};
    KEEL_ASSIGN_OR_RETURN(std::string body, detail::build_chat_request(request, wire, &rendered_));

    return detail::call_with_retries(options_.retry, options, [this] { return unit_(rng_); },
                                     [&](const detail::CallDeadline& deadline) {
                                       return run_attempt(body, options, deadline);
                                     });
  }

  // `body` is lent to the request for the attempt (no copy of a long conversation) and given back.
  detail::AttemptOutcome run_attempt(std::string& body, const CallOptions& options,
                                     const detail::CallDeadline& deadline) {
    detail::ReplyReader reader(options, options.stream, url_);
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
    auto overridden = [this](std::string_view name) {
      return std::any_of(options_.extra_headers.begin(), options_.extra_headers.end(), [&](const auto& kv) {
        return std::equal(kv.first.begin(), kv.first.end(), name.begin(), name.end(),
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) ==
                                                      std::tolower(static_cast<unsigned char>(b)); });
      });
    };
    if (!overridden("content-type")) out.emplace_back("Content-Type: application/json");
    if (!overridden("accept")) out.emplace_back(stream ? "Accept: text/event-stream" : "Accept: application/json");
    if (!options_.api_key.empty() && !overridden("authorization")) {
      out.push_back("Authorization: Bearer " + options_.api_key);
    }
    out.emplace_back("Expect:");  // no "100-continue" round trip for large bodies
    for (const auto& [name, value] : options_.extra_headers) {
      // libcurl sends "Name;" as a header with an empty value ("Name:" would remove it).
      out.push_back(value.empty() ? name + ";" : name + ": " + value);
    }
    return out;
  }

  OpenAiOptions options_;
  Status valid_;
  std::string url_;
  std::mutex mutex_;
  detail::RenderCache rendered_;  // what the last request rendered (under mutex_)
  detail::HttpSession http_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
};

}  // namespace

Status validate_openai_options(const OpenAiOptions& o) {
  if (o.base_url.empty()) return Status::InvalidArgument("base_url is empty (e.g. \"http://127.0.0.1:11434/v1\")");
  if (!o.base_url.starts_with("http://") && !o.base_url.starts_with("https://")) {
    return Status::InvalidArgument("base_url '" + o.base_url + "' must start with http:// or https://");
  }
  if (has_line_break(o.base_url) || has_line_break(o.api_key) || has_line_break(o.model)) {
    return Status::InvalidArgument("base_url, api_key and model must not contain line breaks");
  }
  if (o.connect_timeout_ms < 0 || o.request_timeout_ms < 0 || o.stream_idle_timeout_ms < 0) {
    return Status::InvalidArgument("connect_timeout_ms, request_timeout_ms and stream_idle_timeout_ms must be >= 0");
  }
  if (o.retry.initial_delay_ms < 0 || o.retry.max_delay_ms < 0) {
    return Status::InvalidArgument("retry.initial_delay_ms and retry.max_delay_ms must be >= 0");
  }
  if (!(o.retry.multiplier >= 1.0)) return Status::InvalidArgument("retry.multiplier must be >= 1");
  for (const auto& [name, value] : o.extra_headers) {
    if (name.empty() || name.find_first_of(":\r\n \t") != std::string::npos || has_line_break(value)) {
      return Status::InvalidArgument("extra header '" + name +
                                     "' is invalid: names must be non-empty tokens, values single-line");
    }
  }
  return Status::Ok();
}

std::unique_ptr<LlmClient> make_openai_client(OpenAiOptions options) {
  return std::make_unique<OpenAiClient>(std::move(options));
}

}  // namespace keel
