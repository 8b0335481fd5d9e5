#include "support/api_harness.hpp"

#include <fstream>
#include <stdexcept>
#include <thread>

namespace keel::testing {

ApiHarness::ApiHarness(ApiHarnessOptions options) : options_(std::move(options)) {
  workspace_ = dir_.path() / "ws";
  std::filesystem::create_directories(workspace_);
  for (const auto& [path, content] : options_.workspace_files) {
    std::filesystem::path file = workspace_ / path;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
  }
  StoreOptions so;
  so.path = dir_.path() / "keel.db";
  auto store = open_sqlite_store(so);
  if (!store.ok()) throw std::runtime_error(store.status().message());
  store_ = std::move(*store);
  start();
}

ApiHarness::~ApiHarness() { stop(); }

void ApiHarness::start() {
  asker_ = std::make_shared<api::ForwardingAsker>();
  std::string workspace = workspace_.string();
  api::SkillsAccess skills;
  if (options_.serve_factory) {
    api::ServeAgentFlags flags;
    flags.workspace = workspace;
    flags.model = "openai/mock-model";
    flags.base_url = model_.base_url();
    auto serve = api::ServeAgentFactory::create(flags, *store_, asker_, [](const std::string&) {});
    if (!serve.ok()) throw std::runtime_error("ServeAgentFactory: " + serve.status().message());
    workspace = (*serve)->workspace();  // canonical, as sessions record it
    skills = (*serve)->skills_access();
    factory_ = std::move(*serve);
  } else {
    TestAgentFactoryOptions fo;
    fo.base_url = model_.base_url();
    fo.workspace = workspace;
    fo.store = store_.get();
    fo.profiles = options_.profiles;
    fo.asker = asker_;
    fo.approvals = options_.approvals;
    fo.stream = true;
    factory_ = std::make_unique<TestAgentFactory>(fo);
  }
  events_ = std::make_unique<api::EventLog>(*store_);
  pending_ = std::make_unique<api::PendingInput>();
  api::RunServiceOptions ro;
  ro.workers = options_.workers;
  ro.workspace = workspace;
  ro.shutdown_grace_ms = 5000;
  runs_ = std::make_unique<api::RunService>(*store_, *factory_, *events_, *pending_, asker_, ro);
  server::HttpServerOptions ho;
  ho.max_body_bytes = options_.max_body_bytes;
  ho.max_connections = options_.max_connections;
  ho.io_threads = 2;
  http_ = std::make_unique<server::HttpServer>(ho);
  api::ApiServerOptions ao;
  ao.access.token = options_.token;
  ao.access.cors_origins = options_.cors_origins;
  ao.version = "test";
  ao.ping_interval_ms = options_.ping_interval_ms;
  ao.access.throttle = options_.throttle;
  api::install_access_guard(*http_, ao.access);
  ao.skills = std::move(skills);
  ctx_ = api::mount_api(*http_, *store_, *factory_, *runs_, *events_, *pending_, ao);
  auto recovered = runs_->recover();
  if (!recovered.ok()) throw std::runtime_error(recovered.status().message());
  Status started = http_->start();
  if (!started.ok()) throw std::runtime_error(started.message());
}

void ApiHarness::stop() {
  if (runs_) runs_->shutdown();
  if (http_) http_->stop();
  ctx_.reset();
  http_.reset();
  runs_.reset();
  pending_.reset();
  events_.reset();
  factory_.reset();
  asker_.reset();
}

void ApiHarness::restart() {
  stop();
  start();
}

RawHttpResponse ApiHarness::call(const std::string& method, const std::string& target, const std::string& body,
                                 const std::string& extra_headers) {
  std::string extra = extra_headers;
  if (!options_.token.empty() && extra.find("Authorization") == std::string::npos) {
    extra += "Authorization: Bearer " + options_.token + "\r\n";
  }
  if (!body.empty()) extra += "Content-Type: application/json\r\n";
  auto r = raw_http(port(), method, target, extra, body);
  if (!r) throw std::runtime_error("no answer to " + method + " " + target);
  return *r;
}

nlohmann::json ApiHarness::call_json(const std::string& method, const std::string& target, const std::string& body,
                                     int expect_status) {
  RawHttpResponse r = call(method, target, body);
  if (r.status != expect_status) {
    throw std::runtime_error(method + " " + target + " answered " + std::to_string(r.status) + ": " + r.body);
  }
  return r.body.empty() ? nlohmann::json() : nlohmann::json::parse(r.body);
}

std::string ApiHarness::new_session() {
  return call_json("POST", "/api/sessions", R"({"title":"test"})", 201)["id"].get<std::string>();
}

std::string ApiHarness::run_state(const std::string& run_id) {
  auto run = store_->get_run(run_id);
  return run.ok() ? std::string(run_state_name(run->state)) : "";
}

SseReader::SseReader(uint16_t port, const std::string& target, const std::string& extra_headers) : client_(port) {
  std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n" +
                        extra_headers + "\r\n";
  client_.send(request);
  auto head = client_.read_head();
  status_ = head ? head->status : 0;
}

void SseReader::parse() {
  size_t end;
  while ((end = buffer_.find("\n\n")) != std::string::npos) {
    std::string frame = buffer_.substr(0, end);
    buffer_.erase(0, end + 2);
    SseEvent e;
    bool has_data = false;
    size_t pos = 0;
    while (pos <= frame.size()) {
      size_t nl = frame.find('\n', pos);
      std::string line = frame.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      if (line.rfind("id: ", 0) == 0) e.id = std::stoll(line.substr(4));
      if (line.rfind("event: ", 0) == 0) e.type = line.substr(7);
      if (line.rfind("data: ", 0) == 0) {
        e.data = nlohmann::json::parse(line.substr(6));
        has_data = true;
      }
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
    if (has_data) events_.push_back(std::move(e));
  }
}

std::optional<SseEvent> SseReader::wait_for(const std::string& type, int timeout_ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    for (; seen_ < events_.size(); ++seen_) {
      if (events_[seen_].type == type) return events_[seen_++];
    }
    if (ended_) return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    std::optional<std::string> chunk = client_.read_chunk(static_cast<int>(left));
    if (!chunk) return std::nullopt;
    if (chunk->empty()) {
      ended_ = true;
      continue;
    }
    buffer_ += *chunk;
    parse();
  }
}

}  // namespace keel::testing
