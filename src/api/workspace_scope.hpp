// api/workspace_scope.hpp — which stored sessions a keel serve instance may show and change: only
// those of its own workspace(s). Several servers (and `keel run`) may share one database, and a
// client of `keel serve -w A` must not read, continue, fork or delete the sessions of workspace B.
//
// A session (or a run, approval or question of one) outside the scope is NotFound with the same
// message as one that does not exist, so a client cannot learn that it exists.
//
//   WorkspaceScope scope({"/home/me/project"});
//   KEEL_ASSIGN_OR_RETURN(SessionRecord s, scope.session(store, id));  // NotFound for another workspace's
//
// Thread-safety: immutable after construction; the Store is thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/records.hpp"
#include "keel/store/store.hpp"

namespace keel::api {

class WorkspaceScope {
 public:
  // `workspaces`: the workspace paths whose sessions are visible, exactly as sessions record them.
  explicit WorkspaceScope(std::vector<std::string> workspaces);

  bool contains(std::string_view workspace) const;
  const std::vector<std::string>& workspaces() const { return workspaces_; }

  // The session `id` when it exists and belongs to the scope; NotFound "no session 'ID'" otherwise.
  Result<SessionRecord> session(Store& store, const std::string& id) const;
  // The run `id` when its session belongs to the scope; NotFound "no run 'ID'" otherwise.
  Result<RunRecord> run(Store& store, const std::string& id) const;
  // True when session `id` exists and belongs to the scope.
  bool owns_session(Store& store, const std::string& id) const { return session(store, id).ok(); }
  // The scope's sessions as `filter` selects them (its workspace is replaced by each of the
  // scope's), most recently updated first, at most filter.limit (<= 0: all).
  Result<std::vector<SessionRecord>> list(Store& store, SessionFilter filter) const;

 private:
  std::vector<std::string> workspaces_;
};

}  // namespace keel::api
