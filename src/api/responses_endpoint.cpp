#include "api/responses_endpoint.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "api/client_agent.hpp"
#include "api/idempotent_replies.hpp"
#include "api/openai_reply.hpp"
#include "api/responses_archive.hpp"
#include "api/responses_reply.hpp"
#include "api/responses_request.hpp"
#include "api/responses_stream.hpp"
#include "api/structured_answer.hpp"
#include "base/clock.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace responses_endpoint_impl {

using nlohmann::json;

constexpr std::string_view kCreatePath = "/v1/responses";
constexpr std::string_view kPrefix = "/v1/responses/";

// A response whose run is going on: what retrieve, cancel and input_items see of it.
struct LiveResponse {
  std::stop_source stop;
  std::shared_ptr<ResponseRelay> relay;
  json input_items;
  std::atomic<bool> cancelled{false};
};

// What every handler shares; lives as long as the routes.
struct Endpoint {
  AgentFactory& factory;
  detail::ThreadPool& workers;
  ResponsesArchive archive;
  ApiAccess access;
  OpenAiEndpointOptions options;
  mutable std::mutex mu;
  std::map<std::string, std::shared_ptr<LiveResponse>> live;  // by response id
  bool closing = false;                                       // the routes are gone: no run goes on (under mu)
  IdempotentReplies replies;                                  // Idempotency-Key: a retry gets the first answer

  int64_t now_s() const { return options.now_s ? options.now_s() : detail::wall_now_s(); }
  std::shared_ptr<LiveResponse> find_live(const std::string& id) const {
    std::lock_guard<std::mutex> lock(mu);
    auto it = live.find(id);
    return it == live.end() ? nullptr : it->second;
  }
};

OpenAiError bad(std::string param, std::string code, std::string message, int status = 400) {
  OpenAiError e;
  e.status = status;
  e.param = std::move(param);
  e.code = std::move(code);
  e.message = std::move(message);
  return e;
}

OpenAiError server_error(const Status& status, std::string_view what) {
  OpenAiError e =
      bad("", std::string(error_code_name(status.code())), detail::concat({what, ": ", status.message()}), 500);
  e.type = "server_error";
  return e;
}

OpenAiError model_not_found(const std::string& name, const std::vector<ProfileInfo>& profiles) {
  std::string names;
  for (const ProfileInfo& p : profiles) names.append(names.empty() ? "" : ", ").append(p.name);
  return bad("model", "model_not_found",
             detail::concat({"The model '", name, "' does not exist: it names no keel profile. Profiles here: ", names,
                             " (GET /v1/models lists them)"}),
             404);
}

// The input items with the ids keel gives those the client sent without one.
json with_item_ids(json items, const std::string& response_id) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].contains("id")) continue;
    const std::string type = items[i].value("type", "message");
    const char* prefix = type == "function_call" ? "fc" : type == "function_call_output" ? "fco" : "msg";
    items[i]["id"] = item_id(prefix, response_id, 0x8000 + static_cast<int>(i));
  }
  return items;
}

// One create request, run on a worker.
struct ResponseJob {
  ResponsesRequest request;
  server::HttpHeaders headers;  // CORS headers for the answer
  int64_t created_at = 0;
  std::shared_ptr<LiveResponse> live;
  std::shared_ptr<server::HttpResponder> out;  // the client; released once a background response is answered
};

class ResponseRun {
 public:
  ResponseRun(Endpoint& endpoint, ResponseJob& job) : endpoint_(endpoint), job_(job) {}

  void run() {
    if (job_.live->stop.stop_requested()) return;  // the client left while the run was queued
    Conversation conversation;
    std::string session_id;
    if (!prepare(conversation, session_id)) return;
    ClientAgent leased = lease_client_agent(endpoint_.factory,
                                            {job_.request.model, job_.request.sampling, job_.request.client_tools,
                                             job_.request.tool_choice},
                                            endpoint_.options.approval_denied_reason);
    if (!leased.lease_error.ok()) {
      return answer_error(server_error(leased.lease_error, "the agent for this model could not be set up"));
    }
    if (!leased.tools_error.ok()) return answer_error(bad("tools", "invalid_value", leased.tools_error.message()));
    Agent& agent = *leased.lease->agent;
    Result<std::shared_ptr<StructuredAnswer>> structured = StructuredAnswer::make(job_.request.text_format);
    if (!structured.ok())
      return answer_error(bad("text.format.schema", "invalid_value", structured.status().message()));
    agent.add_hooks(*structured);
    make_relay();
    agent.add_hooks(relay_);
    std::stop_token stop = job_.live->stop.get_token();
    Result<RunOutcome> result =
        session_id.empty()
            ? agent.run_after(std::move(conversation.earlier), conversation.task, stop)
            : agent.continue_session(session_id, conversation.task, stop,
                                     RunStartOptions{.run_id = "", .added = std::move(conversation.earlier)});
    if (!result.ok()) {
      OpenAiError e = result.status().code() == ErrorCode::kInvalidArgument
                          ? bad("input", "invalid_value", result.status().message())
                          : server_error(result.status(), "the run could not start");
      return end_failed(e, nullptr);
    }
    if (!result->ok) {
      const bool cancelled = job_.live->cancelled.load() || stop.stop_requested();
      OpenAiError e = run_failed_error(*result);
      if (cancelled) e.code = "cancelled";
      return end_failed(e, &*result, cancelled ? "cancelled" : "failed");
    }
    Result<std::string> answer = (*structured)->answer(*result);
    if (!answer.ok()) {
      OpenAiError e = run_failed_error(*result);
      e.code = "invalid_answer";
      e.message = answer.status().message();
      return end_failed(e, &*result);
    }
    json response = relay_->finish(*result, *answer);
    keep(response);
    if (!job_.request.stream && !job_.request.background)
      server::respond_json(*job_.out, 200, dump(response), job_.headers);
  }

 private:
  static std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

  // The conversation, and the stored session it continues (previous_response_id). False: answered.
  bool prepare(Conversation& conversation, std::string& session_id) {
    std::vector<ToolCall> earlier_calls;
    const std::string& previous = job_.request.previous_response_id;
    if (!previous.empty()) {
      if (endpoint_.find_live(previous) != nullptr) {
        answer_error(
            bad("previous_response_id", "response_in_progress",
                detail::concat({"Response '", previous, "' is still in progress; continue it once it has completed"})));
        return false;
      }
      Result<std::optional<StoredResponse>> stored = endpoint_.archive.find(previous);
      if (!stored.ok()) {
        answer_error(server_error(stored.status(), "the previous response could not be read"));
        return false;
      }
      if (!stored->has_value()) {
        answer_error(response_not_found(previous, "previous_response_id"));
        return false;
      }
      earlier_calls = client_calls_of((*stored)->response);
      Result<std::string> session = endpoint_.archive.session_after((*stored)->run);
      if (!session.ok()) {
        answer_error(server_error(session.status(), "the previous response's conversation could not be read"));
        return false;
      }
      session_id = *session;
    }
    ItemLookup lookup = [this](const std::string& id) { return endpoint_.archive.find_item(id); };
    std::variant<Conversation, OpenAiError> c = conversation_of(job_.request, lookup, earlier_calls);
    if (auto* e = std::get_if<OpenAiError>(&c)) {
      answer_error(*e);
      return false;
    }
    conversation = std::get<Conversation>(std::move(c));
    return true;
  }

  void make_relay() {
    ResponseRelayOptions options;
    options.stream = job_.request.stream;
    // A whole response carries the final answer; a stream the text as written (a structured
    // answer is validated first, so it comes at the end).
    options.live = job_.request.stream && job_.request.text_format.kind == AnswerFormat::Kind::kText;
    options.tool_comments = endpoint_.options.tool_progress_comments;
    options.headers = job_.headers;
    options.now_s = [this] { return endpoint_.now_s(); };
    ResponseHead head = head_of(job_.request, "", job_.created_at);
    // Only a stream writes through the relay; a responder held while the run goes on would keep
    // the server's routes (and so this endpoint's shutdown) waiting for a background run.
    std::shared_ptr<server::HttpResponder> out = job_.request.stream ? job_.out : nullptr;
    relay_ = std::make_shared<ResponseRelay>(std::move(head), std::move(out), std::move(options),
                                             [this](const std::string& id) { started(id); });
    job_.live->relay = relay_;
  }

  // The run started: the response exists (retrieve, cancel), and a background request is answered.
  void started(const std::string& id) {
    job_.live->input_items = with_item_ids(job_.request.input_items, id);
    {
      std::lock_guard<std::mutex> lock(endpoint_.mu);
      endpoint_.live[id] = job_.live;
      if (endpoint_.closing) job_.live->stop.request_stop();
    }
    registered_ = id;
    if (job_.request.background && !job_.request.stream) {
      server::respond_json(*job_.out, 200, dump(relay_->snapshot()), job_.headers);
      job_.out.reset();  // answered: the run goes on without its client
    }
  }

  // Keeps the final response (store) and ends its in-progress entry.
  void keep(const json& response) {
    if (registered_.empty()) return;
    if (job_.request.store) {
      std::optional<std::string> run_id = run_id_of_response(registered_);
      if (run_id) {
        Status saved = endpoint_.archive.save(*run_id, response, job_.live->input_items);
        (void)saved;  // the client has its answer; a response that could not be kept is not retrievable
      }
    }
    std::lock_guard<std::mutex> lock(endpoint_.mu);
    endpoint_.live.erase(registered_);
  }

  // Answers `error` before any event went out (a stream or background run not started yet).
  void answer_error(const OpenAiError& error) {
    if (job_.out) respond_openai_error(*job_.out, error, job_.headers);
  }

  void end_failed(const OpenAiError& error, const RunOutcome* outcome, std::string_view status = "failed") {
    if (relay_ == nullptr || !relay_->started()) return answer_error(error);
    json response = relay_->fail(status, error.code, error.message, outcome);
    keep(response);
    if (!job_.request.stream && !job_.request.background) answer_error(error);
  }

  Endpoint& endpoint_;
  ResponseJob& job_;
  std::shared_ptr<ResponseRelay> relay_;
  std::string registered_;  // the id under Endpoint::live; empty: not started
};

// Checks the request on the io thread (cheap) and hands the run to a worker.
void handle_create(const std::shared_ptr<Endpoint>& endpoint, const server::HttpRequest& request,
                   std::shared_ptr<server::HttpResponder> out) {
  out = endpoint->replies.claim(request, std::move(out));
  if (!out) return;  // a retry answered with the first run's answer
  auto job = std::make_shared<ResponseJob>();
  job->headers = cors_headers(request, endpoint->access);
  std::variant<ResponsesRequest, OpenAiError> parsed = parse_responses_request(request.body);
  if (const auto* error = std::get_if<OpenAiError>(&parsed)) return respond_openai_error(*out, *error, job->headers);
  job->request = std::get<ResponsesRequest>(std::move(parsed));
  const std::vector<ProfileInfo> profiles = endpoint->factory.profiles();
  if (std::none_of(profiles.begin(), profiles.end(),
                   [&](const ProfileInfo& p) { return p.name == job->request.model; })) {
    return respond_openai_error(*out, model_not_found(job->request.model, profiles), job->headers);
  }
  job->created_at = endpoint->now_s();
  job->live = std::make_shared<LiveResponse>();
  if (!job->request.background) {
    // The callback holds the stop state only, not the responder (which holds the callback).
    out->on_close([live = std::weak_ptr<LiveResponse>(job->live)] {
      if (auto l = live.lock()) l->stop.request_stop();
    });
  }
  job->out = std::move(out);
  endpoint->workers.submit([endpoint, job] {
    try {
      ResponseRun(*endpoint, *job).run();
    } catch (const std::exception& e) {  // nothing below should throw; a client still gets an answer
      OpenAiError error = bad("", "internal", detail::concat({"the run failed unexpectedly: ", e.what()}), 500);
      error.type = "server_error";
      if (job->out) respond_openai_error(*job->out, error, job->headers);
    }
    std::lock_guard<std::mutex> lock(endpoint->mu);  // a run that threw leaves no entry behind
    std::erase_if(endpoint->live, [&](const auto& entry) { return entry.second == job->live; });
  });
}

// The list of GET …/input_items: newest first unless order=asc; limit 1..100 (20); after an id.
json input_items_page(const json& items, const server::HttpRequest& request, OpenAiError& error) {
  int limit = 20;
  if (auto it = request.query.find("limit"); it != request.query.end()) {
    try {
      limit = std::stoi(it->second);
    } catch (...) {
      limit = 0;
    }
    if (limit < 1 || limit > 100) error = bad("limit", "invalid_value", "'limit' must be an integer from 1 to 100");
  }
  std::string order = "desc";
  if (auto it = request.query.find("order"); it != request.query.end()) order = it->second;
  if (order != "asc" && order != "desc") error = bad("order", "invalid_value", "'order' must be asc or desc");
  std::vector<json> ordered(items.begin(), items.end());
  if (order == "desc") std::reverse(ordered.begin(), ordered.end());
  size_t begin = 0;
  if (auto it = request.query.find("after"); it != request.query.end()) {
    auto found =
        std::find_if(ordered.begin(), ordered.end(), [&](const json& i) { return i.value("id", "") == it->second; });
    if (found == ordered.end())
      error = bad("after", "invalid_value", detail::concat({"no input item '", it->second, "'"}));
    else
      begin = static_cast<size_t>(found - ordered.begin()) + 1;
  }
  json data = json::array();
  for (size_t i = begin; i < ordered.size() && data.size() < static_cast<size_t>(limit); ++i)
    data.push_back(ordered[i]);
  const bool more = begin + data.size() < ordered.size();
  return {{"object", "list"},
          {"data", data},
          {"first_id", data.empty() ? json(nullptr) : data.front()["id"]},
          {"last_id", data.empty() ? json(nullptr) : data.back()["id"]},
          {"has_more", more}};
}

// GET, POST …/cancel and DELETE on /v1/responses/{id}[/…].
void handle_one(Endpoint& endpoint, const server::HttpRequest& request, server::HttpResponder& out) {
  server::HttpHeaders headers = cors_headers(request, endpoint.access);
  std::string rest = request.path.substr(std::min(request.path.size(), kPrefix.size()));
  std::string action;
  if (size_t slash = rest.find('/'); slash != std::string::npos) {
    action = rest.substr(slash + 1);
    rest.resize(slash);
  }
  const std::string& id = rest;
  const bool get = request.method == "GET";
  const bool known_action = (get && (action.empty() || action == "input_items")) ||
                            (request.method == "POST" && action == "cancel") ||
                            (request.method == "DELETE" && action.empty());
  if (!known_action) {
    return respond_openai_error(
        out, bad("", "not_found", detail::concat({"no route ", request.method, " ", request.path}), 404), headers);
  }
  auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  if (std::shared_ptr<LiveResponse> live = endpoint.find_live(id); live != nullptr && live->relay != nullptr) {
    if (request.method == "DELETE") {
      return respond_openai_error(out, bad("", "response_in_progress", "the response is in progress; cancel it first"),
                                  headers);
    }
    if (action == "input_items") {
      OpenAiError error;
      json page = input_items_page(live->input_items, request, error);
      if (!error.message.empty()) return respond_openai_error(out, error, headers);
      return server::respond_json(out, 200, dump(page), std::move(headers));
    }
    json snapshot = live->relay->snapshot();
    if (action == "cancel") {
      live->cancelled = true;
      live->stop.request_stop();
      snapshot["status"] = "cancelled";
    }
    return server::respond_json(out, 200, dump(snapshot), std::move(headers));
  }
  Result<std::optional<StoredResponse>> stored = endpoint.archive.find(id);
  if (!stored.ok())
    return respond_openai_error(out, server_error(stored.status(), "the response could not be read"), headers);
  if (!stored->has_value()) return respond_openai_error(out, response_not_found(id, "response_id"), headers);
  StoredResponse& found = **stored;
  if (action == "cancel") {
    return respond_openai_error(out,
                                bad("", "invalid_request",
                                    detail::concat({"Cannot cancel a completed response (status '",
                                                    found.response.value("status", ""), "')."})),
                                headers);
  }
  if (action == "input_items") {
    OpenAiError error;
    json page = input_items_page(found.input_items, request, error);
    if (!error.message.empty()) return respond_openai_error(out, error, headers);
    return server::respond_json(out, 200, dump(page), std::move(headers));
  }
  if (request.method == "DELETE") {
    if (Status forgot = endpoint.archive.forget(found.run.id); !forgot.ok()) {
      return respond_openai_error(out, server_error(forgot, "the response could not be deleted"), headers);
    }
    return server::respond_json(out, 200, dump(json{{"id", id}, {"object", "response.deleted"}, {"deleted", true}}),
                                std::move(headers));
  }
  server::respond_json(out, 200, dump(found.response), std::move(headers));
}

Status mount(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers, Store& store,
             const ApiAccess& access, OpenAiEndpointOptions options) {
  if (http.port() != 0) {
    return Status::FailedPrecondition(
        "the Responses endpoint must be mounted before the server starts; call mount_responses_endpoint before "
        "HttpServer::start()");
  }
  auto endpoint = std::shared_ptr<Endpoint>(
      new Endpoint{factory, workers, ResponsesArchive(store), access, std::move(options), {}, {}, false, {}});
  // When the server drops its routes (it is going away), runs that go on without a client (in
  // the background) stop too, so the worker pool can wind down.
  auto routes = std::shared_ptr<Endpoint>(endpoint.get(), [endpoint](Endpoint*) {
    std::lock_guard<std::mutex> lock(endpoint->mu);
    endpoint->closing = true;
    for (auto& [id, live] : endpoint->live) live->stop.request_stop();
  });
  http.route("POST", std::string(kCreatePath),
             [routes, endpoint](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
               handle_create(endpoint, request, std::move(out));
             });
  std::string one(kPrefix);
  one.push_back('*');
  for (const char* method : {"GET", "POST", "DELETE"}) {
    http.route(method, one, [routes](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
      handle_one(*routes, request, *out);
    });
  }
  mount_preflight(http, std::string(kCreatePath), access);
  mount_preflight(http, one, access);
  return Status::Ok();
}

}  // namespace responses_endpoint_impl

Status mount_responses_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers,
                                Store& store, const ApiAccess& access, OpenAiEndpointOptions options) {
  return responses_endpoint_impl::mount(http, factory, workers, store, access, std::move(options));
}

}  // namespace keel::api
