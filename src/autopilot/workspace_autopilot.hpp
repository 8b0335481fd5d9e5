// The autopilot of one workspace as hosts start it (`keel autopilot run`, `keel serve`): its
// configuration from keel.yaml, observations carried out by workspace_work, MCP resources read
// through the workspace's MCP servers, cycle spans exported as OTEL_* says.
//
// Thread-safety: as keel/autopilot.hpp.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "keel/autopilot.hpp"
#include "keel/config.hpp"
#include "keel/store/store.hpp"

namespace keel::autopilot {

// `config` is the workspace's resolved configuration; `store` must outlive the autopilot.
// FailedPrecondition (worded for the user) when keel.yaml has no autopilot section, or when it
// has no sources or triggers.
Result<std::unique_ptr<Autopilot>> make_workspace_autopilot(const KeelConfig& config, const std::string& workspace,
                                                            Store* store,
                                                            std::function<void(const AutopilotEvent&)> on_event);

}  // namespace keel::autopilot
