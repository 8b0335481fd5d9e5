// `keel trace ID [--otlp]`: the spans of one run as an indented tree, or as OTLP/JSON for an
// OpenTelemetry collector. ID is a run (r_…) or a session (s_…, meaning its latest run); a run's
// trace id is its run id.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "assembly/otlp_exporter.hpp"
#include "assembly/otlp_json.hpp"
#include "cli/store_output.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

// The resource and content capture the OTEL_* variables ask for, as the exporter uses them.
assembly::OtlpEncoding env_encoding() {
  return assembly::otlp_settings_from_env([](const char* name) { return std::getenv(name); }).encoding;
}

struct TraceArgs {
  std::string id;
  bool otlp = false;
};

// "round=2 tokens=120+40 call_id=c1": the attributes worth a glance; the rest are in --otlp.
std::string key_attributes(const SpanRecord& s) {
  json a = json::parse(s.attributes.empty() ? "{}" : s.attributes, nullptr, false);
  if (!a.is_object()) return {};
  auto text = [&](const char* key) -> std::string {
    if (!a.contains(key)) return {};
    const json& v = a[key];
    return v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, json::error_handler_t::replace);
  };
  std::string out;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!out.empty()) out += " ";
    out += part;
  };
  if (a.contains("round")) add("round=" + text("round"));
  if (a.contains("rounds")) add("rounds=" + text("rounds"));
  if (a.contains("prompt_tokens") || a.contains("completion_tokens")) {
    add("tokens=" + (a.contains("prompt_tokens") ? text("prompt_tokens") : "0") + "+" +
        (a.contains("completion_tokens") ? text("completion_tokens") : "0"));
  }
  if (a.contains("tokens")) add("tokens=" + text("tokens"));
  if (a.contains("call_id")) add("call_id=" + text("call_id"));
  if (a.contains("error")) add("error=" + first_line(text("error"), 80));
  return out;
}

std::string span_line(const SpanRecord& s, int depth, bool orphan) {
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.1f ms", static_cast<double>(s.duration_us) / 1000.0);
  std::string line(static_cast<size_t>(depth) * 2, ' ');
  line += one_line(s.name, 80) + "  " + s.kind + "  " + duration + "  " + (s.status.empty() ? "-" : s.status);
  std::string attrs = key_attributes(s);
  if (!attrs.empty()) line += "  " + attrs;
  if (orphan) line += "  (parent " + s.parent_span_id + " missing)";
  return line;
}

// Prints the spans as a tree: children under their parent by start time. Spans whose parent is
// missing are roots; spans unreachable from any root (a parent cycle) are printed last, as roots.
void print_tree(const std::vector<SpanRecord>& spans) {
  std::map<std::string, size_t> by_id;
  for (size_t i = 0; i < spans.size(); ++i) by_id.emplace(spans[i].span_id, i);
  std::map<std::string, std::vector<size_t>> children;
  std::vector<size_t> roots;
  for (size_t i = 0; i < spans.size(); ++i) {
    const SpanRecord& s = spans[i];
    if (!s.parent_span_id.empty() && s.parent_span_id != s.span_id && by_id.count(s.parent_span_id) > 0) {
      children[s.parent_span_id].push_back(i);
    } else {
      roots.push_back(i);
    }
  }
  auto by_start = [&](size_t a, size_t b) {
    if (spans[a].start_us != spans[b].start_us) return spans[a].start_us < spans[b].start_us;
    return spans[a].span_id < spans[b].span_id;
  };
  std::sort(roots.begin(), roots.end(), by_start);
  for (auto& [parent, list] : children) std::sort(list.begin(), list.end(), by_start);

  std::vector<bool> printed(spans.size(), false);
  // Iterative depth-first walk: a trace may be deep, and `printed` stops any cycle.
  auto walk = [&](size_t root) {
    std::vector<std::pair<size_t, int>> stack = {{root, 0}};
    while (!stack.empty()) {
      auto [i, depth] = stack.back();
      stack.pop_back();
      if (printed[i]) continue;
      printed[i] = true;
      const SpanRecord& s = spans[i];
      const bool orphan = !s.parent_span_id.empty() && depth == 0 && by_id.count(s.parent_span_id) == 0;
      std::printf("%s\n", span_line(s, depth, orphan).c_str());
      auto it = children.find(s.span_id);
      if (it == children.end()) continue;
      for (auto c = it->second.rbegin(); c != it->second.rend(); ++c) stack.emplace_back(*c, depth + 1);
    }
  };
  for (size_t r : roots) walk(r);
  for (size_t i = 0; i < spans.size(); ++i) {
    if (!printed[i]) walk(i);
  }
}

// A skill graph run (`keel skills run`): its spans are keyed by its id alone.
int skill_run_trace(Store& store, const TraceArgs& args) {
  Result<std::vector<SpanRecord>> spans = store.list_spans(args.id);
  if (!spans.ok()) return report_store_error(spans.status());
  if (spans->empty()) return report_store_error(Status::NotFound("no skill run '" + args.id + "'"));
  if (args.otlp) {
    std::printf("%s\n", assembly::spans_to_otlp(*spans, env_encoding()).dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  std::printf("trace %s  skill run  %zu spans\n", args.id.c_str(), spans->size());
  print_tree(*spans);
  return kExitOk;
}

int trace_command(const TraceArgs& args) {
  const bool is_run = looks_like_id(args.id, "r_");
  const bool is_skill_run = looks_like_id(args.id, "sk_");
  if (!is_run && !is_skill_run && !looks_like_id(args.id, "s_")) {
    return report_usage_error("'" + args.id +
                              "' is neither a run id (r_…), a session id (s_…) nor a skill run id (sk_…)");
  }
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  if (is_skill_run) return skill_run_trace(*store, args);
  Result<RunRecord> run = is_run ? store->get_run(args.id) : store->latest_run(args.id);
  if (!run.ok()) {
    if (!is_run && run.status().code() == ErrorCode::kNotFound) {
      // Tell "no such session" apart from "a session without runs".
      Result<SessionRecord> session = store->get_session(args.id);
      if (!session.ok()) return report_store_error(session.status());
    }
    return report_store_error(run.status());
  }
  Result<std::vector<SpanRecord>> spans = store->list_spans(run->id);
  if (!spans.ok()) return report_store_error(spans.status());
  if (args.otlp) {
    std::printf("%s\n", assembly::spans_to_otlp(*spans, env_encoding()).dump(-1, ' ', false, json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  std::printf("trace %s  session %s  %s  %zu spans\n", run->id.c_str(), run->session_id.c_str(),
              std::string(run_state_name(run->state)).c_str(), spans->size());
  if (spans->empty()) {
    std::fprintf(stderr, "no spans recorded for run %s\n", run->id.c_str());
    return kExitOk;
  }
  print_tree(*spans);
  return kExitOk;
}

}  // namespace

void add_trace_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* cmd = app.add_subcommand("trace", command_summary("trace"));
  cmd->add_option("id", args->id, "Run id (r_…), or session id (s_…) for its latest run")->required();
  cmd->add_flag("--otlp", args->otlp,
                "Print an OTLP/JSON ExportTraceServiceRequest (POST it to a collector's /v1/traces)");
  cmd->footer(std::string("Each line: name  kind  duration  status  key attributes, indented under its parent.\n") +
              kStoreExitCodesHelp);
  cmd->callback([&action, args]() { action = [args]() { return trace_command(*args); }; });
}

}  // namespace keel::cli
