// WorkspaceScope: every session lookup of keel serve's API goes through here, so that the answer
// for another workspace's session is the same 404 as for a missing one.
#include "api/workspace_scope.hpp"

#include <algorithm>

namespace keel::api {

WorkspaceScope::WorkspaceScope(std::vector<std::string> workspaces) : workspaces_(std::move(workspaces)) {
  std::sort(workspaces_.begin(), workspaces_.end());
  workspaces_.erase(std::unique(workspaces_.begin(), workspaces_.end()), workspaces_.end());
}

bool WorkspaceScope::contains(std::string_view workspace) const {
  return std::find(workspaces_.begin(), workspaces_.end(), workspace) != workspaces_.end();
}

Result<SessionRecord> WorkspaceScope::session(Store& store, const std::string& id) const {
  Result<SessionRecord> found = store.get_session(id);
  if (found.ok() && contains(found->workspace)) return found;
  if (!found.ok() && found.status().code() != ErrorCode::kNotFound) return found.status();
  return Status::NotFound("no session '" + id + "'");
}

Result<RunRecord> WorkspaceScope::run(Store& store, const std::string& id) const {
  Result<RunRecord> found = store.get_run(id);
  if (found.ok() && owns_session(store, found->session_id)) return found;
  if (!found.ok() && found.status().code() != ErrorCode::kNotFound) return found.status();
  return Status::NotFound("no run '" + id + "'");
}

Result<std::vector<SessionRecord>> WorkspaceScope::list(Store& store, SessionFilter filter) const {
  std::vector<SessionRecord> out;
  for (const std::string& workspace : workspaces_) {
    filter.workspace = workspace;
    KEEL_ASSIGN_OR_RETURN(std::vector<SessionRecord> some, store.list_sessions(filter));
    out.insert(out.end(), std::make_move_iterator(some.begin()), std::make_move_iterator(some.end()));
  }
  if (workspaces_.size() > 1) {
    std::stable_sort(out.begin(), out.end(),
                     [](const SessionRecord& a, const SessionRecord& b) { return a.updated_ms > b.updated_ms; });
    if (filter.limit > 0 && out.size() > static_cast<size_t>(filter.limit)) out.resize(static_cast<size_t>(filter.limit));
  }
  return out;
}

}  // namespace keel::api
