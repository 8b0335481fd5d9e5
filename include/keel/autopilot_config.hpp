// keel/autopilot_config.hpp — keel.yaml's `autopilot:` section: what `keel autopilot` (and `keel
// serve` when it is enabled) watches, what each observation sets off, and the bounds it keeps.
//
//   autopilot:
//     interval_ms: 1500            # one cycle: collect, take due observations, record status
//     concurrency: 2               # observations processed at once
//     max_failures: 3              # consecutive failures before an observation is stalled
//     backoff_ms: 2000             # first retry delay after a failure; doubles up to max_backoff_ms
//     max_backoff_ms: 300000
//     budget: {max_tokens_per_hour: 200000, max_cost_per_hour: 2.0, max_tokens_per_run: 20000, max_cost_per_run: 0.2}
//     sources:
//       - {name: inbox, files: inbox, glob: ["*.txt", "*.md"]}        # new or changed files (inotify)
//       - {name: nightly, schedule: "0 3 * * *"}                       # cron, local time
//       - {name: news, http: "https://example.com/feed.xml", every_ms: 300000}   # RSS/Atom items, or the page
//       - {name: repo, git: ".", every_ms: 10000}                       # new commits on HEAD
//       - {name: docs, mcp: docs-server, uri: "file:///notes.md", every_ms: 5000} # an MCP resource
//     triggers:
//       - {source: inbox, skills: [triage]}                  # executable skills, the observation as input
//       - {source: "*", task: "Summarise {{subject}}"}     # or an agent task
//
// A source entry that cannot be read keeps its error (AutopilotSourceConfig::error) instead of
// failing the whole file: that source reports the error and the others run.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace keel {

// One observation source as configured.
struct AutopilotSourceConfig {
  std::string name = {};                  // unique within the section; observations keep it
  std::string kind = {};                  // "files", "schedule", "http", "git" or "mcp"
  std::string path = {};                  // files: the folder; git: the repository (relative to the workspace)
  std::vector<std::string> globs = {};    // files: file names to watch (default "*"); hidden files never
  std::string cron = {};                  // schedule: 5-field cron expression
  std::string url = {};                   // http: the URL polled (with ETag / Last-Modified)
  std::string server = {};                // mcp: the server's name in .mcp.json / mcpServers
  std::string uri = {};                   // mcp: the resource watched
  int64_t every_ms = 0;                   // http, git, mcp: poll interval (0: the kind's default)
  int64_t timeout_ms = 10000;             // one poll (request, subprocess)
  std::string error = {};                 // non-empty: the entry is broken and why; it does not run
};

// What an observation sets off: executable skills (with their dependencies) on the observation as
// input, or one agent task whose text has {{source}}, {{kind}}, {{subject}} and {{payload}} replaced.
struct AutopilotTriggerConfig {
  std::string source = "*";                     // a source's name, or "*" for every source
  std::vector<std::string> skills = {};         // skill ids
  std::vector<std::string> skill_triggers = {}; // and the skills declaring any of these triggers
  std::string task = {};                        // an agent task instead of skills
};

struct AutopilotConfig {
  bool configured = false;        // the section exists
  bool enabled = true;            // `enabled: false` keeps `keel serve` from starting it
  int64_t interval_ms = 1500;
  int concurrency = 2;
  int max_failures = 3;
  int64_t backoff_ms = 2000;
  int64_t max_backoff_ms = 300000;
  int64_t max_tokens_per_hour = 0;  // 0: no cap
  double max_cost_per_hour = 0;
  int64_t max_tokens_per_run = 0;
  double max_cost_per_run = 0;
  std::vector<AutopilotSourceConfig> sources = {};
  std::vector<AutopilotTriggerConfig> triggers = {};
  std::string source_file = {};  // the file the section came from, for messages
};

}  // namespace keel
