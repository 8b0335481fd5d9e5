// What the autopilot does with an observation in a workspace: run the trigger's executable
// skills on the observation's payload (skills whose action needs a person queue proposals), or
// run the trigger's agent task, unattended: calls the policy would ask about are refused.
// Model usage is metered per attempt; the per-run caps stop an attempt that goes over them.
//
// Thread-safety: the returned function may be called from several threads at once; each call
// builds its own backend, tools and runner.
#pragma once

#include <string>

#include "keel/autopilot.hpp"
#include "keel/autopilot_config.hpp"
#include "keel/store/store.hpp"

namespace keel::autopilot {

// `workspace` is absolute; `store` must outlive the function. Each attempt is capped by `config`'s
// per-run caps; the workspace's skills, model and prices are read again for each observation, so
// edits to them apply to the next one.
ObservationWork make_workspace_work(const std::string& workspace, Store* store, const AutopilotConfig& config);

// The text of a task trigger with {{source}}, {{kind}}, {{subject}} and {{payload}} replaced.
std::string fill_task_template(const std::string& task, const Observation& observation);

}  // namespace keel::autopilot
