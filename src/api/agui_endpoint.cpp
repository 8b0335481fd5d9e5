#include "api/agui_endpoint.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "api/agui_request.hpp"
#include "api/agui_stream.hpp"
#include "api/agui_threads.hpp"
#include "api/client_agent.hpp"
#include "api/request_hooks.hpp"
#include "api/waiting_input.hpp"
#include "api/workspace_scope.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace agui_endpoint_impl {

constexpr std::string_view kPath = "/agui";

// What every handler shares; lives as long as the routes.
struct Endpoint {
  AgentFactory& factory;
  detail::ThreadPool& workers;
  Store& store;
  ApiAccess access;
  AguiEndpointOptions options;
  AguiThreads threads;
};

// One run, handed to a worker.
struct AguiJob {
  AguiRequest request;
  server::HttpHeaders headers;       // CORS headers for the answer
  std::shared_ptr<AguiRelay> relay;  // set once the run is set up
};

void answer(server::HttpResponder& out, const AguiJob& job, int status, std::string_view code,
            std::string_view message) {
  respond_api_error(out, status, code, message, job.headers);
}

// The turn to run on the thread: from the client's messages alone (a new thread), or what follows
// the stored conversation. False: answered (the thread released first, so the client may go on).
bool agui_turn(Endpoint& endpoint, AguiJob& job, const std::string& session_id, server::HttpResponder& out,
               AguiTurn& turn, const std::function<void()>& release_thread) {
  std::variant<AguiTurn, AguiError> t;
  if (session_id.empty()) {
    t = new_thread_turn(job.request.messages);
  } else {
    Result<std::vector<StoredMessage>> stored = endpoint.store.load_messages(session_id);
    if (!stored.ok()) {
      release_thread();
      answer(out, job, 500, error_code_name(stored.status().code()),
             detail::concat({"the thread's stored conversation could not be read: ", stored.status().message()}));
      return false;
    }
    std::vector<Message> conversation;
    conversation.reserve(stored->size());
    for (StoredMessage& m : *stored) conversation.push_back(std::move(m.message));
    t = stored_thread_turn(job.request.messages, unanswered_calls(conversation));
  }
  if (const auto* e = std::get_if<AguiError>(&t)) {
    release_thread();
    answer(out, job, e->status, e->code, e->message);
    return false;
  }
  turn = std::get<AguiTurn>(std::move(t));
  return true;
}

void run_agui(Endpoint& endpoint, AguiJob& job, const std::shared_ptr<server::HttpResponder>& out,
              std::stop_token stop) {
  if (stop.stop_requested()) return;  // the client left while the run was queued
  Result<std::unique_ptr<AguiThreadLease>> claimed = endpoint.threads.claim(job.request.thread_id, stop);
  if (!claimed.ok()) {
    if (claimed.status().code() == ErrorCode::kCancelled) return;  // the client left
    return answer(*out, job, 409, "thread_busy", claimed.status().message());
  }
  std::shared_ptr<AguiThreadLease> thread = std::move(claimed).value();
  const std::string session_id = thread->session_id();
  AguiTurn turn;
  if (!agui_turn(endpoint, job, session_id, *out, turn, [&thread] { thread.reset(); })) return;
  ClientAgent leased = lease_client_agent(endpoint.factory, {job.request.profile, {}, job.request.client_tools, ""},
                                          endpoint.options.approval_denied_reason);
  if (!leased.lease_error.ok()) {
    thread.reset();
    return answer(*out, job, 500, error_code_name(leased.lease_error.code()),
                  detail::concat({"the agent could not be set up: ", leased.lease_error.message()}));
  }
  if (!leased.tools_error.ok()) {
    thread.reset();
    return answer(*out, job, 400, "invalid_tools", leased.tools_error.message());
  }
  Agent& agent = *leased.lease->agent;
  if (!job.request.context.empty()) agent.add_hooks(std::make_shared<ClientContext>(job.request.context));
  // Waiting input registers each approval before the relay tells the client of it: its hooks go first.
  std::shared_ptr<WaitingInput> input;
  if (endpoint.options.pending != nullptr) {
    input = std::make_shared<WaitingInput>(
        *endpoint.options.pending, endpoint.options.asker, endpoint.options.approval_timeout,
        [&job](const std::string& id, const UserQuestion& q) {
          if (job.relay != nullptr) job.relay->question_asked(id, q);
        });
    agent.add_hooks(input);
    agent.set_approver(input->approver());
  }
  job.relay = std::make_shared<AguiRelay>(out, AguiRunIds{job.request.thread_id, job.request.run_id},
                                          std::move(job.request.state), job.headers,
                                          [held = std::weak_ptr<AguiThreadLease>(thread)](const std::string& session) {
                                            if (auto t = held.lock()) t->bind(session);
                                          });
  agent.add_hooks(job.relay);
  if (input != nullptr) job.relay->ask_approvals();
  Result<RunOutcome> result =
      session_id.empty() ? agent.run_after(std::move(turn.earlier), turn.task, stop)
                         : agent.continue_session(session_id, turn.task, stop,
                                                  RunStartOptions{.run_id = "", .added = std::move(turn.added)});
  // The run is stored: the thread is free before the client reads the end of this one, so a next
  // run sent as soon as it has is not refused as busy.
  thread.reset();
  if (!result.ok()) {
    const Status& s = result.status();
    if (job.relay->started()) return job.relay->fail(error_code_name(s.code()), s.message());
    if (s.code() == ErrorCode::kInvalidArgument) return answer(*out, job, 400, "invalid_value", s.message());
    return answer(*out, job, 500, error_code_name(s.code()),
                  detail::concat({"the run could not start: ", s.message()}));
  }
  if (!result->ok) {
    const std::string message = result->error.empty() ? "the run failed without a message" : result->error;
    const std::string_view code = failure_kind_name(result->failure);
    if (job.relay->started()) return job.relay->fail(code, message);
    return answer(*out, job, 500, code, message);
  }
  if (!job.relay->started()) {  // a run ends after it starts; this guards a hook that kept it from starting
    return answer(*out, job, 500, "internal", "the run ended without starting");
  }
  job.relay->finish(*result);
}

// Checks the request on the io thread (cheap) and hands the run to a worker.
void handle_run(const std::shared_ptr<Endpoint>& endpoint, const server::HttpRequest& request,
                std::shared_ptr<server::HttpResponder> out) {
  auto job = std::make_shared<AguiJob>();
  job->headers = cors_headers(request, endpoint->access);
  std::variant<AguiRequest, AguiError> parsed = parse_agui_request(request.body);
  if (const auto* e = std::get_if<AguiError>(&parsed)) return answer(*out, *job, e->status, e->code, e->message);
  job->request = std::get<AguiRequest>(std::move(parsed));
  if (!job->request.profile.empty()) {
    const std::vector<ProfileInfo> profiles = endpoint->factory.profiles();
    if (std::none_of(profiles.begin(), profiles.end(),
                     [&](const ProfileInfo& p) { return p.name == job->request.profile; })) {
      std::string names;
      for (const ProfileInfo& p : profiles) names.append(names.empty() ? "" : ", ").append(p.name);
      return answer(*out, *job, 400, "unknown_profile",
                    detail::concat({"forwardedProps.profile '", job->request.profile,
                                    "' names no keel profile; profiles here: ", names}));
    }
  }
  // The callback holds the stop state only, not the responder (which holds the callback).
  std::stop_source stop;
  out->on_close([stop]() mutable { stop.request_stop(); });
  endpoint->workers.submit([endpoint, job, out = std::move(out), stop] {
    try {
      run_agui(*endpoint, *job, out, stop.get_token());
    } catch (const std::exception& e) {  // nothing below should throw; a client still gets an answer
      const std::string message = detail::concat({"the run failed unexpectedly: ", e.what()});
      if (job->relay != nullptr && job->relay->started()) {
        job->relay->fail("internal", message);
      } else {
        answer(*out, *job, 500, "internal", message);
      }
    }
  });
}

}  // namespace agui_endpoint_impl

Status mount_agui_endpoint(server::HttpServer& http, AgentFactory& factory, detail::ThreadPool& workers, Store& store,
                           const ApiAccess& access, AguiEndpointOptions options) {
  using agui_endpoint_impl::Endpoint;
  if (http.port() != 0) {
    return Status::FailedPrecondition(
        "the AG-UI endpoint must be mounted before the server starts; call mount_agui_endpoint before "
        "HttpServer::start()");
  }
  WorkspaceScope scope(options.workspaces);
  auto endpoint = std::shared_ptr<Endpoint>(
      new Endpoint{factory, workers, store, access, std::move(options), AguiThreads(store, std::move(scope))});
  http.route("POST", std::string(agui_endpoint_impl::kPath),
             [endpoint](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
               agui_endpoint_impl::handle_run(endpoint, request, std::move(out));
             });
  mount_preflight(http, std::string(agui_endpoint_impl::kPath), access);
  return Status::Ok();
}

}  // namespace keel::api
