// The skill runner: a selection of executable skills run level by level, each level's skills in
// parallel on the runner's pool, with a watchdog for each skill's timeout; outcomes, provided
// values, actions, spans and events are handled on the caller's thread, in plan order, so a run's
// effects do not depend on which worker finished first.
#include "keel/skill_runner.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "skills/compiled_skill.hpp"
#include "skills/skill_action.hpp"
#include "skills/skill_call.hpp"
#include "skills/skill_prompt.hpp"
#include "core/text/text_util.hpp"
#include "skills/skill_trace.hpp"
#include "base/thread_pool.hpp"

namespace keel {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using detail::CompiledSkill;
using detail::concat;
using detail::SkillCall;

std::string new_run_id() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  static const char* kHex = "0123456789abcdef";
  std::string id = "sk_";
  uint64_t v = gen();
  for (int i = 0; i < 16; ++i) id.push_back(kHex[(v >> (i * 4)) & 0xF]);
  return id;
}

int64_t ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

// One skill of the level being run. The worker writes `done` and `outcome` under LevelSync::mu;
// everything else belongs to the thread that runs the graph.
struct Running {
  std::string id;
  std::shared_ptr<SkillCall> call;
  std::stop_source stop;
  detail::ThreadPool::TaskId task = 0;
  Clock::time_point started;
  Clock::time_point stop_at;  // when the watchdog asked it to stop
  int64_t start_us = 0;
  bool stopping = false, timed_out = false, abandoned = false;
  bool done = false;
  SkillOutcome outcome;
};

struct LevelSync {
  std::mutex mu;
  std::condition_variable cv;
};

// What one graph run accumulates.
struct GraphRun {
  const SkillRunRequest* request = nullptr;
  const json* input = nullptr;
  SkillGraphResult result;
  json context;                                  // input members + provided values
  std::map<std::string, json> outputs;           // accepted outputs by skill id
  std::map<std::string, SkillOutcome> outcomes;  // by skill id
  std::map<std::string, int64_t> start_us;       // by skill id
};

}  // namespace

class SkillRunner::Impl {
 public:
  Impl(LlmClient& client, SkillRunnerOptions options)
      : client_(client), options_(std::move(options)) {}

  Status init(std::vector<ExecutableSkill> skills) {
    for (ExecutableSkill& s : skills) {
      SkillNode n;
      n.id = s.manifest.id;
      n.depends = s.manifest.depends;
      n.triggers = s.manifest.triggers;
      KEEL_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledSkill> c, detail::compile_skill(std::move(s)));
      if (!skills_.emplace(n.id, std::move(c)).second) {
        return Status::InvalidArgument(concat({"skill '", n.id, "' is given twice"}));
      }
      nodes_.push_back(std::move(n));
    }
    KEEL_TRY(plan_skill_graph(nodes_));
    if (options_.tools != nullptr) {
      ToolExecutorOptions o;
      o.threads = 1;
      o.workspace_root = options_.workspace;
      o.redactor = options_.redactor;
      executor_ = std::make_unique<ToolExecutor>(*options_.tools, o);
    }
    return Status::Ok();
  }

  std::vector<std::string> ids() const {
    std::vector<std::string> out;
    for (const auto& [id, skill] : skills_) out.push_back(id);
    return out;
  }

  Result<std::vector<std::string>> select(std::span<const std::string> ids,
                                          std::span<const std::string> triggers) const {
    KEEL_ASSIGN_OR_RETURN(std::vector<std::string> chosen, select_skill_closure(nodes_, ids, triggers));
    KEEL_ASSIGN_OR_RETURN(SkillPlan plan, plan_subset(chosen));
    return plan.order;
  }

  Status validate_input(std::span<const std::string> selected, const json& input) const {
    if (!input.is_object()) {
      return Status::InvalidArgument(concat({"the input must be a JSON object, got ", input.type_name()}));
    }
    for (const std::string& id : selected) {
      auto it = skills_.find(id);
      if (it == skills_.end()) return Status::NotFound(concat({"no executable skill '", id, "'"}));
      if (!it->second->input_schema) continue;
      const std::string label = concat({"skill ", id, " input"});
      Status s = it->second->input_schema->validate(input, label);
      if (!s.ok()) {
        std::string details = s.message();
        const std::string prefix = concat({"invalid arguments for ", label, ": "});
        if (details.rfind(prefix, 0) == 0) details.erase(0, prefix.size());
        return Status::InvalidArgument(
            concat({"the input does not match the inputSchema of skill '", id, "': ", details}));
      }
    }
    return Status::Ok();
  }

  Result<SkillGraphResult> run(const SkillRunRequest& request, const json& input) {
    KEEL_ASSIGN_OR_RETURN(std::vector<std::string> chosen, select_skill_closure(nodes_, request.ids, request.triggers));
    KEEL_ASSIGN_OR_RETURN(SkillPlan plan, plan_subset(chosen));
    KEEL_TRY(validate_input(plan.order, input));
    const auto t0 = Clock::now();
    const int64_t t0_us = detail::wall_now_us();
    GraphRun g;
    g.request = &request;
    g.input = &input;
    g.context = input;
    g.result.run_id = new_run_id();
    for (const std::vector<std::string>& level : plan.levels) run_level(level, g);
    for (const std::string& id : plan.order) g.result.skills.push_back(std::move(g.outcomes[id]));
    g.result.context = g.context.dump(-1, ' ', false, json::error_handler_t::replace);
    g.result.duration_ms = ms_between(t0, Clock::now());
    if (options_.store != nullptr) detail::record_graph_span(*options_.store, g.result, t0_us, g.result.warnings);
    return std::move(g.result);
  }

 private:
  // The pool starts with the first skill that runs: an agent that offers run_skill but never calls
  // it starts no threads.
  detail::ThreadPool& pool() {
    std::lock_guard lock(pool_mu_);
    if (!pool_) pool_ = std::make_unique<detail::ThreadPool>(pool_options(options_.threads));
    return *pool_;
  }

  static detail::ThreadPool::Options pool_options(int threads) {
    detail::ThreadPool::Options o;
    o.threads = static_cast<size_t>(std::max(1, threads));
    o.max_threads = o.threads * 2 + 4;
    return o;
  }

  Result<SkillPlan> plan_subset(const std::vector<std::string>& ids) const {
    std::vector<SkillNode> subset;
    for (const SkillNode& n : nodes_) {
      if (std::binary_search(ids.begin(), ids.end(), n.id)) subset.push_back(n);
    }
    return plan_skill_graph(subset);
  }

  void emit(const GraphRun& g, SkillEvent::Kind kind, const std::string& id, const SkillOutcome* outcome) const {
    if (!g.request->on_event) return;
    SkillEvent e;
    e.kind = kind;
    e.run_id = g.result.run_id;
    e.skill = id;
    e.outcome = outcome;
    try {
      g.request->on_event(e);
    } catch (...) {
      // A host's callback must not break the run.
    }
  }

  // The values the skills `id` depends on (transitively) provided, by name.
  json provided_for(const std::string& id, const GraphRun& g) const {
    json provided = json::object();
    std::set<std::string> seen;
    std::vector<std::string> pending = skills_.at(id)->manifest().depends;
    while (!pending.empty()) {
      std::string dep = std::move(pending.back());
      pending.pop_back();
      if (!seen.insert(dep).second) continue;
      const CompiledSkill& d = *skills_.at(dep);
      for (const std::string& p : d.manifest().depends) pending.push_back(p);
      auto out = g.outputs.find(dep);
      if (out == g.outputs.end()) continue;
      for (const std::string& name : d.manifest().provides) {
        if (out->second.contains(name)) provided[name] = out->second[name];
      }
    }
    return provided;
  }

  // Blocked, skipped or cancelled before it starts; nullopt when the skill should run.
  std::optional<SkillOutcome> settle_before_start(const CompiledSkill& skill, const GraphRun& g) const {
    SkillOutcome o;
    o.id = skill.id();
    for (const std::string& dep : skill.manifest().depends) {
      const SkillOutcome& d = g.outcomes.at(dep);
      if (d.status == SkillStatus::kFailed || d.status == SkillStatus::kBlocked) {
        o.status = SkillStatus::kBlocked;
        o.reason = d.status == SkillStatus::kFailed ? concat({"dependency '", dep, "' failed"})
                                                    : concat({"dependency '", dep, "' was blocked: ", d.reason});
        return o;
      }
    }
    if (std::optional<std::string> why = skip_reason(skill.skip_when, g.context)) {
      o.status = SkillStatus::kSkipped;
      o.skipped = true;
      o.reason = std::move(*why);
      return o;
    }
    if (g.request->stop.stop_requested()) {
      o.status = SkillStatus::kFailed;
      o.error_code = ErrorCode::kCancelled;
      o.reason = concat({"the run was stopped before skill '", skill.id(), "' started"});
      return o;
    }
    return std::nullopt;
  }

  std::shared_ptr<SkillCall> prepare(const std::shared_ptr<const CompiledSkill>& skill, const GraphRun& g) const {
    auto call = std::make_shared<SkillCall>();
    call->skill = skill;
    call->input = *g.input;
    call->run_stop = g.request->stop;
    const std::string& model = skill->manifest().model;
    if (model.empty()) {
      call->client = &client_;
      call->rules = options_.rules_model;
    } else if (model == "rules") {
      call->rules = true;
    } else if (!options_.model_factory) {
      call->client = &client_;
    } else {
      Result<std::unique_ptr<LlmClient>> made = options_.model_factory(model);
      if (made.ok() && *made) {
        call->owned_client = std::move(made).value();
        call->client = call->owned_client.get();
      } else {
        Status why = made.ok() ? Status::Internal("the model factory returned no client") : made.status();
        call->client_error = Status(why.code(), concat({"model '", model, "' cannot be used: ", why.message()}));
      }
    }
    call->messages = detail::skill_messages(*skill, *g.input, provided_for(skill->id(), g), g.request->knowledge);
    call->deadline = detail::deadline_after_ms(skill->manifest().timeout_ms);
    return call;
  }

  void run_level(const std::vector<std::string>& level, GraphRun& g) {
    auto sync = std::make_shared<LevelSync>();
    std::vector<std::shared_ptr<Running>> running;
    for (const std::string& id : level) {
      const std::shared_ptr<const CompiledSkill>& skill = skills_.at(id);
      g.start_us[id] = detail::wall_now_us();
      if (std::optional<SkillOutcome> settled = settle_before_start(*skill, g)) {
        g.outcomes[id] = std::move(*settled);
        continue;
      }
      auto r = std::make_shared<Running>();
      r->id = id;
      r->call = prepare(skill, g);
      r->call->stop = r->stop.get_token();
      r->started = Clock::now();
      emit(g, SkillEvent::Kind::kStarted, id, nullptr);
      r->task = pool().submit([r, sync] {
        SkillOutcome o = detail::run_skill_call(*r->call);
        std::lock_guard lock(sync->mu);
        r->outcome = std::move(o);
        r->done = true;
        sync->cv.notify_all();
      });
      running.push_back(std::move(r));
    }
    wait_for(running, *sync, g);
    for (const std::string& id : level) finish(id, g);
  }

  // Waits until every skill of the level finished or was abandoned: a skill past its deadline
  // (or any skill once the run is stopped) is asked to stop, and abandoned if it has not returned
  // abandon_grace_ms later.
  void wait_for(std::vector<std::shared_ptr<Running>>& running, LevelSync& sync, GraphRun& g) {
    std::stop_callback wake(g.request->stop, [&sync] {
      std::lock_guard lock(sync.mu);
      sync.cv.notify_all();
    });
    const auto grace = std::chrono::milliseconds(std::max<int64_t>(0, options_.abandon_grace_ms));
    std::unique_lock lock(sync.mu);
    for (;;) {
      const auto now = Clock::now();
      auto next = now + std::chrono::hours(1);
      bool all_done = true;
      for (auto& r : running) {
        if (r->done || r->abandoned) continue;
        if (!r->stopping && (now >= r->call->deadline || g.request->stop.stop_requested())) {
          r->stopping = true;
          r->timed_out = now >= r->call->deadline;
          r->stop_at = now;
          r->stop.request_stop();
        }
        if (r->stopping && now >= r->stop_at + grace) {
          r->abandoned = true;
          pool().abandon(r->task);
          continue;
        }
        all_done = false;
        next = std::min(next, r->stopping ? r->stop_at + grace : r->call->deadline);
      }
      if (all_done) break;
      sync.cv.wait_until(lock, next);
    }
    for (auto& r : running) g.outcomes[r->id] = settle_running(*r);
  }

  // The outcome of a skill that was started; requires LevelSync::mu held.
  static SkillOutcome settle_running(Running& r) {
    if (r.done && (!r.stopping || r.outcome.status == SkillStatus::kSucceeded)) return std::move(r.outcome);
    SkillOutcome o = r.done ? std::move(r.outcome) : SkillOutcome{};
    o.id = r.id;
    o.status = SkillStatus::kFailed;
    if (!r.done) {
      o.duration_ms = ms_between(r.started, Clock::now());
      if (r.call->client != nullptr) o.backend = r.call->client->describe();
    }
    if (r.timed_out) {
      o.error_code = ErrorCode::kDeadlineExceeded;
      o.reason = detail::skill_timeout_message(r.call->skill->manifest());
      o.backend_failed = true;
    } else {
      o.error_code = ErrorCode::kCancelled;
      o.reason = concat({"skill '", r.id, "' was stopped"});
      o.backend_failed = false;
    }
    return o;
  }

  // Provided values, the action, the span and the finished event of skill `id`.
  void finish(const std::string& id, GraphRun& g) {
    SkillOutcome& o = g.outcomes[id];
    const CompiledSkill& skill = *skills_.at(id);
    if (o.status == SkillStatus::kSucceeded) {
      json out = json::parse(o.output, nullptr, false);
      for (const std::string& name : skill.manifest().provides) {
        if (out.is_object() && out.contains(name)) g.context[name] = out[name];
      }
      detail::ActionEnv env;
      env.store = options_.store;
      env.tools = options_.tools;
      env.executor = executor_.get();
      env.approvals = &options_.approvals;
      env.workspace = options_.workspace;
      env.stop = g.request->stop;
      o.action = detail::handle_skill_action(env, skill, out, g.result.run_id);
      g.outputs[id] = std::move(out);
    }
    if (options_.store != nullptr) {
      detail::record_skill_span(*options_.store, g.result.run_id, o, g.start_us[id], g.result.warnings);
    }
    emit(g, SkillEvent::Kind::kFinished, id, &o);
  }

  LlmClient& client_;
  SkillRunnerOptions options_;
  std::map<std::string, std::shared_ptr<const CompiledSkill>> skills_;
  std::vector<SkillNode> nodes_;
  std::unique_ptr<ToolExecutor> executor_;
  std::mutex pool_mu_;
  std::unique_ptr<detail::ThreadPool> pool_;  // last: its workers stop before the members above go away
};

SkillRunner::SkillRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SkillRunner::~SkillRunner() = default;

Result<std::unique_ptr<SkillRunner>> SkillRunner::create(std::vector<ExecutableSkill> skills, LlmClient& client,
                                                         SkillRunnerOptions options) {
  auto impl = std::make_unique<Impl>(client, std::move(options));
  KEEL_TRY(impl->init(std::move(skills)));
  return std::unique_ptr<SkillRunner>(new SkillRunner(std::move(impl)));
}

std::vector<std::string> SkillRunner::ids() const {
  return impl_->ids();
}

Result<std::vector<std::string>> SkillRunner::select(std::span<const std::string> ids,
                                                     std::span<const std::string> triggers) const {
  return impl_->select(ids, triggers);
}

Status SkillRunner::validate_input(std::span<const std::string> selected, const nlohmann::json& input) const {
  return impl_->validate_input(selected, input);
}

Result<SkillGraphResult> SkillRunner::run(const SkillRunRequest& request, const nlohmann::json& input) {
  try {
    return impl_->run(request, input);
  } catch (const std::exception& e) {
    return Status::Internal(concat({"the skill run failed: ", e.what()}));
  }
}

}  // namespace keel
