// `keel autopilot run|status|observations|retry`: the observe → plan → act loop of a workspace
// (keel/autopilot.hpp) in the foreground, and what it left in the store. Proposals it queues are
// decided with `keel skills proposals|approve|reject` or in keel serve's operator console.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "assembly/store_access.hpp"
#include "autopilot/autopilot_report.hpp"
#include "autopilot/workspace_autopilot.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/store_output.hpp"
#include "keel/assembly.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

struct AutopilotArgs {
  std::optional<std::string> workspace;
  bool json = false;
  bool once = false;
  std::string state;  // observations: filter
  int limit = 50;
  int64_t id = 0;     // retry
};

constexpr const char* kRunFooter =
    "Watches the sources of keel.yaml's autopilot section and runs each new observation through its trigger,\n"
    "every interval_ms, until interrupted. Skills whose action needs a person queue proposals:\n"
    "`keel skills proposals` lists them, `keel skills approve ID` carries one out (once).\n"
    "Exit codes: 0 stopped, 2 usage, configuration or database error, 3 (--once) an observation failed.\n";

void print_line(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  s.push_back('\n');
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

json event_json(const AutopilotEvent& e) {
  json j = {{"v", 1}, {"type", std::string(autopilot_event_name(e.kind))}, {"at_ms", e.at_ms}};
  if (!e.source.empty()) j["source"] = e.source;
  if (e.observation_id != 0) j["observation"] = e.observation_id;
  if (!e.subject.empty()) j["subject"] = e.subject;
  if (!e.state.empty()) j["state"] = e.state;
  if (!e.detail.empty() || e.kind == AutopilotEvent::Kind::kGuard) j["detail"] = e.detail;
  if (e.kind == AutopilotEvent::Kind::kCycle) {
    j["cycle"] = e.cycle.cycle;
    j["duration_ms"] = e.cycle.duration_ms;
    j["seen"] = e.cycle.seen;
    j["deduplicated"] = e.cycle.deduplicated;
    j["processed"] = e.cycle.processed;
    j["failed"] = e.cycle.failed;
    j["proposals"] = e.cycle.proposals;
  }
  return j;
}

void print_event_text(const AutopilotEvent& e) {
  std::string line = std::string(autopilot_event_name(e.kind));
  switch (e.kind) {
    case AutopilotEvent::Kind::kObserved:
      line += " #" + std::to_string(e.observation_id) + " [" + e.source + "] " + one_line(e.subject, 120);
      break;
    case AutopilotEvent::Kind::kDeduplicated:
      line += " [" + e.source + "] " + one_line(e.subject, 120) + " (seen before)";
      break;
    case AutopilotEvent::Kind::kTransition:
      line = "#" + std::to_string(e.observation_id) + " → " + e.state;
      if (!e.detail.empty()) line += ": " + one_line(e.detail, 200);
      break;
    case AutopilotEvent::Kind::kSourceError:
      line = "source " + e.source + " failed: " + one_line(e.detail, 300);
      break;
    case AutopilotEvent::Kind::kSourceOk:
      line = "source " + e.source + " works again";
      break;
    case AutopilotEvent::Kind::kGuard:
      line = e.detail.empty() ? "budget guard lifted: work resumes" : "budget guard: " + e.detail;
      break;
    case AutopilotEvent::Kind::kCycle:
      line = "cycle " + std::to_string(e.cycle.cycle) + " · " + std::to_string(e.cycle.duration_ms) + " ms · " +
             std::to_string(e.cycle.seen) + " seen, " + std::to_string(e.cycle.deduplicated) + " deduplicated, " +
             std::to_string(e.cycle.processed) + " processed, " + std::to_string(e.cycle.failed) + " failed, " +
             std::to_string(e.cycle.proposals) + " proposals";
      break;
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

int run_autopilot(const AutopilotArgs& args) {
  std::stop_token stop = install_interrupt_handler();
  Result<std::string> workspace = assembly::resolve_workspace(args.workspace);
  if (!workspace.ok()) return usage_failure(args.json, workspace.status().message());
  Result<KeelConfig> config = assembly::resolve_host_config({}, *workspace);
  if (!config.ok()) return usage_failure(args.json, config.status().message());
  Result<std::unique_ptr<Store>> store = assembly::open_default_store();
  if (!store.ok()) return usage_failure(args.json, store.status().message());
  int failures = 0;
  const bool as_json = args.json;
  auto on_event = [as_json, &failures](const AutopilotEvent& e) {
    if (e.kind == AutopilotEvent::Kind::kCycle) failures += e.cycle.failed;
    if (as_json) {
      print_line(event_json(e));
    } else {
      print_event_text(e);
    }
  };
  Result<std::unique_ptr<Autopilot>> pilot =
      autopilot::make_workspace_autopilot(*config, *workspace, store->get(), on_event);
  if (!pilot.ok()) return usage_failure(args.json, pilot.status().message());
  if (args.once) {
    Result<AutopilotCycleMetrics> m = (*pilot)->run_once(stop);
    if (!m.ok()) return usage_failure(args.json, m.status().message());
    return failures > 0 ? kExitRunFailed : kExitOk;
  }
  if (!args.json) {
    std::fprintf(stderr, "keel: autopilot watching %zu source(s) in %s; Ctrl-C stops it\n",
                 config->autopilot.sources.size(), workspace->c_str());
  }
  Status s = (*pilot)->run(stop);
  if (!s.ok()) return usage_failure(args.json, s.message());
  return kExitOk;
}

int autopilot_status(const AutopilotArgs& args) {
  std::string error;
  const std::string workspace = workspace_key(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<std::optional<std::string>> doc = store->get_daemon_status(workspace, kAutopilotStatusName);
  if (!doc.ok()) return report_store_error(doc.status());
  Result<std::vector<std::pair<ObservationState, int64_t>>> counts = store->count_observations(workspace);
  if (!counts.ok()) return report_store_error(counts.status());
  json status = doc->has_value() ? json::parse(**doc, nullptr, false) : json(nullptr);
  if (status.is_discarded()) status = nullptr;
  const json by_state = detail::observation_counts_json(*counts);
  if (args.json) {
    print_line({{"workspace", workspace}, {"status", status}, {"counts", by_state}});
    return kExitOk;
  }
  if (status.is_null()) {
    std::printf("autopilot: never ran in %s\n", workspace.c_str());
  } else {
    const bool running = status.value("running", false);
    std::printf("autopilot: %s (updated %s, pid %lld)\n", running ? "running" : "stopped",
                local_time(status.value("updated_ms", int64_t{0})).c_str(),
                static_cast<long long>(status.value("pid", int64_t{0})));
    std::printf("cycles %lld · last cycle %lld ms · seen %lld · deduplicated %lld · processed %lld · failed %lld · "
                "proposals %lld\n",
                static_cast<long long>(status.value("cycles", int64_t{0})),
                static_cast<long long>(status.value("last_cycle_duration_ms", int64_t{0})),
                static_cast<long long>(status.value("observations_seen", int64_t{0})),
                static_cast<long long>(status.value("deduplicated", int64_t{0})),
                static_cast<long long>(status.value("processed", int64_t{0})),
                static_cast<long long>(status.value("failed", int64_t{0})),
                static_cast<long long>(status.value("proposals", int64_t{0})));
    if (std::string guard = status.value("guard", std::string()); !guard.empty()) {
      std::printf("budget guard: %s\n", guard.c_str());
    }
    if (status.contains("sources") && status["sources"].is_array()) {
      for (const json& s : status["sources"]) {
        const std::string err = s.value("error", std::string());
        std::printf("  source %-16s %-9s %s\n", s.value("name", std::string()).c_str(),
                    s.value("kind", std::string()).c_str(), err.empty() ? "ok" : ("error: " + one_line(err, 200)).c_str());
      }
    }
  }
  std::printf("observations:");
  for (const char* state : {"pending", "processing", "done", "dismissed", "stalled"}) {  // in lifecycle order
    std::printf(" %s %lld", state, static_cast<long long>(by_state[state].get<int64_t>()));
  }
  std::printf("\n");
  return kExitOk;
}

int autopilot_observations(const AutopilotArgs& args) {
  std::string error;
  const std::string workspace = workspace_key(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  ObservationQuery q;
  q.limit = args.limit;
  if (!args.state.empty()) {
    q.state = parse_observation_state(args.state);
    if (!q.state) return report_usage_error("--state must be pending, processing, done, dismissed or stalled");
  }
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<std::vector<Observation>> list = store->list_observations(workspace, q);
  if (!list.ok()) return report_store_error(list.status());
  if (args.json) {
    json out = json::array();
    for (const Observation& o : *list) out.push_back(json(detail::observation_json(o, true)));
    print_line(out);
    return kExitOk;
  }
  if (list->empty()) std::printf("no observations in %s\n", workspace.c_str());
  for (const Observation& o : *list) {
    std::printf("%6lld  %-16s  %-10s  %-10s  %s\n", static_cast<long long>(o.id), local_time(o.updated_ms).c_str(),
                std::string(observation_state_name(o.state)).c_str(), o.source.c_str(), one_line(o.subject, 80).c_str());
    if (!o.last_error.empty() && o.state != ObservationState::kDone) {
      std::printf("        %d failure(s): %s\n", o.failures, one_line(o.last_error, 200).c_str());
    }
    if (!o.result.empty()) std::printf("        %s\n", one_line(o.result, 200).c_str());
  }
  return kExitOk;
}

int autopilot_retry(const AutopilotArgs& args) {
  std::string error;
  const std::string workspace = workspace_key(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<Observation> o = store->get_observation(args.id);
  if (!o.ok() || o->workspace != workspace) {
    return report_store_error(Status::NotFound("no observation " + std::to_string(args.id) + " in " + workspace));
  }
  if (o->state != ObservationState::kStalled && o->state != ObservationState::kDismissed) {
    return report_usage_error("observation " + std::to_string(args.id) + " is " +
                              std::string(observation_state_name(o->state)) + "; only stalled or dismissed ones are retried");
  }
  Status s = store->move_observation(o->id, o->state, ObservationMove{ObservationState::kPending, 0, "", "", 0});
  if (!s.ok()) return report_store_error(s);
  std::printf("observation %lld is pending again\n", static_cast<long long>(o->id));
  return kExitOk;
}

}  // namespace

void add_autopilot_commands(CLI::App& app, CommandAction& action) {
  CLI::App* pilot = app.add_subcommand("autopilot", command_summary("autopilot"));
  pilot->require_subcommand(1);
  auto args = std::make_shared<AutopilotArgs>();

  CLI::App* run = pilot->add_subcommand("run", "Run the autopilot of a workspace in the foreground");
  run->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  run->add_flag("--once", args->once, "Run one cycle, wait for what it started, and exit");
  run->add_flag("--json", args->json,
                "Print JSON Lines: observed, deduplicated, transition, source_error, source_ok, guard, cycle");
  run->footer(kRunFooter);
  run->callback([&action, args]() { action = [args]() { return run_autopilot(*args); }; });

  CLI::App* status = pilot->add_subcommand("status", "Show the autopilot's last status and its observations by state");
  status->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  status->add_flag("--json", args->json, "Print {workspace, status, counts} as JSON");
  status->footer(kStoreExitCodesHelp);
  status->callback([&action, args]() { action = [args]() { return autopilot_status(*args); }; });

  CLI::App* list = pilot->add_subcommand("observations", "List the workspace's observations, newest first");
  list->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  list->add_option("--state", args->state, "Only those in this state: pending, processing, done, dismissed, stalled");
  list->add_option("--limit,-n", args->limit, "At most this many (default 50; 0: all)");
  list->add_flag("--json", args->json, "Print a JSON array");
  list->footer(kStoreExitCodesHelp);
  list->callback([&action, args]() { action = [args]() { return autopilot_observations(*args); }; });

  CLI::App* retry = pilot->add_subcommand("retry", "Make a stalled or dismissed observation pending again");
  retry->add_option("id", args->id, "The observation's id")->required();
  retry->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  retry->footer(kStoreExitCodesHelp);
  retry->callback([&action, args]() { action = [args]() { return autopilot_retry(*args); }; });
}

}  // namespace keel::cli
