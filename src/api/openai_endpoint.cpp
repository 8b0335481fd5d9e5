#include "api/openai_endpoint.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "api/client_agent.hpp"
#include "api/idempotent_replies.hpp"
#include "api/openai_reply.hpp"
#include "api/openai_request.hpp"
#include "api/openai_stream.hpp"
#include "api/structured_answer.hpp"
#include "base/clock.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace {

constexpr std::string_view kModelsPath = "/v1/models";
constexpr std::string_view kModelPrefix = "/v1/models/";
constexpr std::string_view kChatPath = "/v1/chat/completions";

// What every handler shares; lives as long as the routes.
struct Endpoint {
  AgentFactory& factory;
  detail::ThreadPool& workers;
  ApiAccess access;
  OpenAiEndpointOptions options;
  int64_t models_created = 0;  // the `created` of every model: when the endpoint was mounted
  std::shared_ptr<IdempotentReplies> replies = std::make_shared<IdempotentReplies>();

  int64_t now_s() const {
    if (options.now_s) return options.now_s();
    return detail::wall_now_s();
  }
};

OpenAiError model_not_found(const std::string& name, const std::vector<ProfileInfo>& profiles) {
  OpenAiError e;
  e.status = 404;
  e.param = "model";
  e.code = "model_not_found";
  e.message = detail::concat({"The model '", name, "' does not exist: it names no keel profile. Profiles here: "});
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (i > 0) e.message.append(", ");
    e.message.append(profiles[i].name);
  }
  e.message.append(" (GET /v1/models lists them)");
  return e;
}

const ProfileInfo* find_profile(const std::vector<ProfileInfo>& profiles, const std::string& name) {
  auto it = std::find_if(profiles.begin(), profiles.end(), [&](const ProfileInfo& p) { return p.name == name; });
  return it == profiles.end() ? nullptr : &*it;
}

OpenAiError server_error(const Status& status, std::string_view what) {
  OpenAiError e;
  e.status = 500;
  e.type = "server_error";
  e.code = std::string(error_code_name(status.code()));
  e.message.append(what).append(": ").append(status.message());
  return e;
}

// A run that could not start: a conversation it cannot go on from is the client's to fix (400);
// anything else is keel's (500; nothing ran, so a retry is harmless).
OpenAiError start_error(const Status& status) {
  if (status.code() != ErrorCode::kInvalidArgument) return server_error(status, "the run could not start");
  OpenAiError e;
  e.param = "messages";
  e.code = "invalid_value";
  e.message = status.message();
  return e;
}

// One chat completion, run on a worker.
struct ChatJob {
  ChatRequest request;
  CompletionIds ids;
  server::HttpHeaders headers;  // CORS headers for the answer
};

// Answers with `error`, as an event when the stream has started.
void answer_error(server::HttpResponder& out, ChatStreamRelay* relay, const ChatJob& job, const OpenAiError& error) {
  if (relay != nullptr) {
    relay->fail(error);
  } else {
    respond_openai_error(out, error, job.headers);
  }
}

void run_chat(const Endpoint& endpoint, ChatJob& job, const std::shared_ptr<server::HttpResponder>& out,
              std::stop_token stop) {
  if (stop.stop_requested()) return;  // the client left while the run was queued
  ClientAgent leased = lease_client_agent(endpoint.factory,
                                          {job.request.model, job.request.sampling, std::move(job.request.client_tools),
                                           job.request.tool_choice},
                                          endpoint.options.approval_denied_reason);
  if (!leased.lease_error.ok()) {
    answer_error(*out, nullptr, job, server_error(leased.lease_error, "the agent for this model could not be set up"));
    return;
  }
  if (!leased.tools_error.ok()) {
    OpenAiError e;
    e.param = "tools";
    e.code = "invalid_value";
    e.message = leased.tools_error.message();
    answer_error(*out, nullptr, job, e);
    return;
  }
  Agent& agent = *leased.lease->agent;
  Result<std::shared_ptr<StructuredAnswer>> structured = StructuredAnswer::make(job.request.format);
  if (!structured.ok()) {
    OpenAiError e;
    e.param = "response_format.json_schema.schema";
    e.code = "invalid_value";
    e.message = structured.status().message();
    answer_error(*out, nullptr, job, e);
    return;
  }
  agent.add_hooks(*structured);
  std::shared_ptr<ChatStreamRelay> relay;
  if (job.request.stream) {
    const bool live = job.request.format.kind == AnswerFormat::Kind::kText;  // a structured answer is checked first
    relay = std::make_shared<ChatStreamRelay>(out, job.ids, job.request.include_usage,
                                              endpoint.options.tool_progress_comments, live);
    agent.add_hooks(relay);
    relay->start(job.headers);
  }
  Result<RunOutcome> result = agent.run_after(std::move(job.request.earlier), job.request.task, stop);
  if (!result.ok()) {
    answer_error(*out, relay.get(), job, start_error(result.status()));
    return;
  }
  if (!result->ok) {
    answer_error(*out, relay.get(), job, run_failed_error(*result));
    return;
  }
  Result<std::string> answer = (*structured)->answer(*result);
  if (!answer.ok()) {
    OpenAiError e = run_failed_error(*result);
    e.code = "invalid_answer";
    e.message = answer.status().message();
    answer_error(*out, relay.get(), job, e);
    return;
  }
  if (relay) {
    relay->finish(*result, *answer);
    return;
  }
  RunOutcome shown = *result;
  shown.answer = std::move(answer).value();
  server::respond_json(*out, 200, completion_body(job.ids, shown), job.headers);
}

void handle_models(const Endpoint& endpoint, const server::HttpRequest& request, server::HttpResponder& out) {
  server::HttpHeaders headers = cors_headers(request, endpoint.access);
  server::respond_json(out, 200, models_body(endpoint.factory.profiles(), endpoint.models_created), std::move(headers));
}

void handle_model(const Endpoint& endpoint, const server::HttpRequest& request, server::HttpResponder& out) {
  server::HttpHeaders headers = cors_headers(request, endpoint.access);
  const std::string name = request.path.substr(std::min(request.path.size(), kModelPrefix.size()));
  const std::vector<ProfileInfo> profiles = endpoint.factory.profiles();
  const ProfileInfo* profile = find_profile(profiles, name);
  if (profile == nullptr) {
    respond_openai_error(out, model_not_found(name, profiles), std::move(headers));
    return;
  }
  server::respond_json(out, 200, model_json(*profile, endpoint.models_created).dump(), std::move(headers));
}

// Checks the request on the io thread (cheap) and hands the run to a worker.
void handle_chat(const std::shared_ptr<const Endpoint>& endpoint, const server::HttpRequest& request,
                 std::shared_ptr<server::HttpResponder> out) {
  out = endpoint->replies->claim(request, std::move(out));
  if (!out) return;  // a retry answered with the first run's answer
  auto job = std::make_shared<ChatJob>();
  job->headers = cors_headers(request, endpoint->access);
  std::variant<ChatRequest, OpenAiError> parsed = parse_chat_request(request.body);
  if (const auto* error = std::get_if<OpenAiError>(&parsed)) {
    respond_openai_error(*out, *error, job->headers);
    return;
  }
  job->request = std::get<ChatRequest>(std::move(parsed));
  const std::vector<ProfileInfo> profiles = endpoint->factory.profiles();
  if (find_profile(profiles, job->request.model) == nullptr) {
    respond_openai_error(*out, model_not_found(job->request.model, profiles), job->headers);
    return;
  }
  job->ids.id = new_completion_id();
  job->ids.created = endpoint->now_s();
  job->ids.model = job->request.model;
  // The callback holds the stop state only, not the responder (which holds the callback).
  std::stop_source stop;
  out->on_close([stop]() mutable { stop.request_stop(); });
  endpoint->workers.submit([endpoint, job, out = std::move(out), stop] {
    try {
      run_chat(*endpoint, *job, out, stop.get_token());
    } catch (const std::exception& e) {  // nothing below should throw; a client still gets an answer
      OpenAiError error;
      error.status = 500;
      error.type = "server_error";
      error.code = "internal";
      error.message = detail::concat({"the run failed unexpectedly: ", e.what()});
      respond_openai_error(*out, error, job->headers);
    }
  });
}

}  // namespace

Status mount_openai_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers,
                             const ApiAccess& access, OpenAiEndpointOptions options) {
  if (http.port() != 0) {
    return Status::FailedPrecondition(
        "the OpenAI-compatible endpoint must be mounted before the server starts; call mount_openai_endpoint "
        "before HttpServer::start()");
  }
  auto endpoint = std::make_shared<Endpoint>(Endpoint{factory, workers, access, std::move(options), 0});
  endpoint->models_created = endpoint->now_s();
  std::shared_ptr<const Endpoint> shared = endpoint;
  http.route("GET", std::string(kModelsPath),
             [shared](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
               handle_models(*shared, request, *out);
             });
  std::string model_pattern(kModelPrefix);
  model_pattern.push_back('*');
  http.route("GET", model_pattern,
             [shared](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
               handle_model(*shared, request, *out);
             });
  http.route("POST", std::string(kChatPath),
             [shared](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
               handle_chat(shared, request, std::move(out));
             });
  // The exact paths win over a "/v1/*" preflight route, so each gets its own.
  mount_preflight(http, std::string(kModelsPath), access);
  mount_preflight(http, model_pattern, access);
  mount_preflight(http, std::string(kChatPath), access);
  return Status::Ok();
}

}  // namespace keel::api
