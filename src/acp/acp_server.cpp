#include "acp/acp_server.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>

#include "acp/editor_files.hpp"
#include "acp/json_rpc_peer.hpp"
#include "acp/permission_approver.hpp"
#include "acp/prompt_content.hpp"
#include "acp/session_updates.hpp"

namespace keel::acp {
namespace {

using nlohmann::json;

// ACP's protocol version this agent speaks.
constexpr int kProtocolVersion = 1;

// One ACP session: a keel session in the store with the agent built for its folder.
struct Session {
  std::string id;
  std::unique_ptr<assembly::AssembledAgent> agent;
  std::shared_ptr<SessionUpdates> updates;
  std::mutex mu;          // busy, stop, worker
  bool busy = false;      // a turn is running
  std::stop_source stop;  // the running turn's
  std::thread worker;
};

// The stop reason ACP knows for an outcome; empty for a failure that is answered as an error.
std::string stop_reason(const RunOutcome& outcome) {
  if (outcome.ok) return "end_turn";
  if (outcome.failure == FailureKind::kAborted) return "cancelled";
  if (outcome.failure == FailureKind::kGuardrail) return "max_turn_requests";
  return "";
}

class AgentServer final : public RpcHandler {
 public:
  AgentServer(const AcpServerOptions& options, JsonRpcPeer& peer) : options_(options), peer_(peer) {}

  ~AgentServer() override { stop_all(); }

  // Cancels every turn in flight and waits for them.
  void stop_all() {
    std::map<std::string, std::shared_ptr<Session>> sessions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      sessions.swap(sessions_);
    }
    for (auto& [id, s] : sessions) retire(s);
  }

  void on_request(const json& id, const std::string& method, const json& params) override {
    if (!params.is_object()) return peer_.respond_error(id, kInvalidParams, "params must be an object");
    if (method == "initialize") return initialize(id, params);
    if (method == "authenticate")
      return peer_.respond_error(id, kInvalidParams, "keel offers no authentication methods (authMethods is empty)");
    if (method == "session/new") return open_session(id, params, false);
    if (method == "session/load") return open_session(id, params, true);
    if (method == "session/prompt") return prompt(id, params);
    peer_.respond_error(id, kMethodNotFound, "keel does not offer '" + method + "'");
  }

  void on_notification(const std::string& method, const json& params) override {
    if (method != "session/cancel" || !params.is_object() || !params.value("sessionId", json()).is_string()) return;
    if (std::shared_ptr<Session> s = find(params["sessionId"].get<std::string>())) {
      std::lock_guard<std::mutex> lock(s->mu);
      s->stop.request_stop();
    }
  }

 private:
  void initialize(const json& id, const json& params) {
    if (!params.value("protocolVersion", json()).is_number_integer())
      return peer_.respond_error(id, kInvalidParams, "initialize needs an integer protocolVersion");
    // The editor's file system, when it offers it, serves fs_read and fs_write.
    const json fs = params.value("clientCapabilities", json::object()).value("fs", json::object());
    editor_reads_ = fs.is_object() && fs.value("readTextFile", false) == true;
    editor_writes_ = fs.is_object() && fs.value("writeTextFile", false) == true;
    json result = {
        {"protocolVersion", kProtocolVersion},
        {"agentCapabilities",
         {{"loadSession", true},
          {"promptCapabilities", {{"image", false}, {"audio", false}, {"embeddedContext", true}}},
          {"mcpCapabilities", {{"http", false}, {"sse", false}}}}},
        {"authMethods", json::array()},
        {"agentInfo", {{"name", "keel"}, {"version", KEEL_VERSION}}},
    };
    peer_.respond(id, std::move(result));
  }

  std::shared_ptr<Session> find(const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(session_id);
    return it == sessions_.end() ? nullptr : it->second;
  }

  // session/new and session/load: the agent for the folder, and the session in the store.
  void open_session(const json& id, const json& params, bool load) {
    if (!params.value("cwd", json()).is_string())
      return peer_.respond_error(id, kInvalidParams, "'cwd' must be a string (an absolute path)");
    const std::string cwd = params["cwd"].get<std::string>();
    std::error_code ec;
    if (!std::filesystem::path(cwd).is_absolute() || !std::filesystem::is_directory(cwd, ec))
      return peer_.respond_error(id, kInvalidParams, "'cwd' must be an absolute path to a folder: " + cwd);
    const json servers = params.value("mcpServers", json::array());
    if (!servers.is_array()) return peer_.respond_error(id, kInvalidParams, "'mcpServers' must be an array");
    std::string session_id;
    if (load) {
      if (!params.value("sessionId", json()).is_string())
        return peer_.respond_error(id, kInvalidParams, "'sessionId' must be a string");
      session_id = params["sessionId"].get<std::string>();
      if (std::shared_ptr<Session> open = find(session_id)) {
        std::lock_guard<std::mutex> lock(open->mu);
        if (open->busy) return peer_.respond_error(id, kInvalidRequest, "session " + session_id + " is running a turn");
      }
    }
    if (!servers.empty() && options_.notice) {
      options_.notice("the editor's MCP servers are not started; keel uses the workspace's .mcp.json and keel.yaml");
    }
    assembly::HostInputs in = options_.inputs;
    in.workspace = cwd;
    assembly::HostOptions host;
    host.store = true;
    host.notice = options_.notice;
    std::shared_ptr<EditorFiles> files;
    if (editor_reads_ || editor_writes_) {
      // Within the tools' own 30-second limit, so the tool reports the editor's silence itself.
      files = std::make_shared<EditorFiles>(peer_, editor_reads_, editor_writes_, std::chrono::seconds(25));
      host.text_files = files;
    }
    Result<std::unique_ptr<assembly::AssembledAgent>> built = assembly::AssembledAgent::create(in, host);
    if (!built.ok()) return peer_.respond_error(id, kInternalError, built.status().message());
    auto session = std::make_shared<Session>();
    session->agent = std::move(*built);
    Store* store = session->agent->store();
    if (store == nullptr) return peer_.respond_error(id, kInternalError, "keel's database is not open");
    std::vector<StoredMessage> history;
    if (load) {
      Result<SessionRecord> record = store->get_session(session_id);
      if (!record.ok()) return peer_.respond_error(id, kResourceNotFound, record.status().message());
      Result<std::vector<StoredMessage>> messages = store->load_messages(session_id);
      if (!messages.ok()) return peer_.respond_error(id, kInternalError, messages.status().message());
      history = std::move(*messages);
    } else {
      SessionInfo info;
      info.title = "editor session";
      info.workspace = session->agent->workspace();
      Result<std::string> created = store->create_session(info);
      if (!created.ok()) return peer_.respond_error(id, kInternalError, created.status().message());
      session_id = *created;
    }
    session->id = session_id;
    if (files) files->set_session(session_id);
    session->updates = std::make_shared<SessionUpdates>(peer_, session_id);
    session->agent->agent().add_hooks(session->updates);
    Status approver = session->agent->set_approver(make_permission_approver(peer_, session_id, options_.permission_timeout));
    if (!approver.ok()) return peer_.respond_error(id, kInternalError, approver.message());
    std::shared_ptr<Session> replaced;
    {
      std::lock_guard<std::mutex> lock(mu_);
      replaced = std::exchange(sessions_[session_id], session);
    }
    if (replaced) retire(replaced);
    if (load) {
      replay_messages(*session->updates, history);  // before the answer, as ACP asks
      return peer_.respond(id, json::object());
    }
    peer_.respond(id, {{"sessionId", session_id}});
  }

  // Stops a session's turn, if one runs, and joins its thread (shutdown, or a load of the same id).
  static void retire(const std::shared_ptr<Session>& s) {
    std::thread worker;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      s->stop.request_stop();
      worker = std::move(s->worker);
    }
    if (worker.joinable()) worker.join();
  }

  void prompt(const json& id, const json& params) {
    if (!params.value("sessionId", json()).is_string())
      return peer_.respond_error(id, kInvalidParams, "'sessionId' must be a string");
    std::shared_ptr<Session> s = find(params["sessionId"].get<std::string>());
    if (!s) return peer_.respond_error(id, kResourceNotFound, "no open session " + params["sessionId"].get<std::string>() +
                                                                  " (session/new or session/load opens one)");
    Result<std::string> text = prompt_text(params.value("prompt", json()));
    if (!text.ok()) return peer_.respond_error(id, kInvalidParams, text.status().message());
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->busy) return peer_.respond_error(id, kInvalidRequest, "session " + s->id + " is already running a turn");
    if (s->worker.joinable()) s->worker.join();  // the last turn's thread, already finished
    s->busy = true;
    s->stop = std::stop_source();
    s->worker = std::thread([this, s, id, task = std::move(*text), stop = s->stop.get_token()] {
      run_turn(*s, id, task, stop);
    });
  }

  void run_turn(Session& s, const json& id, const std::string& task, std::stop_token stop) {
    Result<RunOutcome> outcome = s.agent->agent().continue_session(s.id, task, stop);
    {
      std::lock_guard<std::mutex> lock(s.mu);
      s.busy = false;
    }
    if (!outcome.ok()) return peer_.respond_error(id, kInternalError, outcome.status().message());
    const std::string reason = stop_reason(*outcome);
    if (reason.empty()) return peer_.respond_error(id, kInternalError, outcome->error);
    if (reason == "max_turn_requests") s.updates->send("agent_message_chunk", {{"content", text_block(outcome->error)}});
    peer_.respond(id, {{"stopReason", reason}});
  }

  const AcpServerOptions& options_;
  JsonRpcPeer& peer_;
  std::mutex mu_;  // sessions_
  std::map<std::string, std::shared_ptr<Session>> sessions_;
  bool editor_reads_ = false;   // the editor offered fs/read_text_file (set by initialize)
  bool editor_writes_ = false;  // and fs/write_text_file
};

}  // namespace

Status serve_acp(const AcpServerOptions& options, int in_fd, int out_fd) {
  JsonRpcPeer peer(in_fd, out_fd);
  AgentServer server(options, peer);
  Status served = peer.serve(server);
  server.stop_all();
  return served;
}

}  // namespace keel::acp
