// The MCP tool lock: accepted tool definitions per workspace and server.
#include "store/sql_store.hpp"

namespace keel::detail {

Result<std::vector<McpToolLock>> SqlStore::list_mcp_tool_locks(std::string_view workspace, std::string_view server) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT tool, digest, definition, accepted_ms FROM mcp_tool_locks "
                                                "WHERE workspace = ?1 AND server = ?2 ORDER BY tool"));
  stmt.bind(1, workspace).bind(2, server);
  std::vector<McpToolLock> out;
  for (;;) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return out;
    McpToolLock l;
    l.workspace = std::string(workspace);
    l.server = std::string(server);
    l.tool = stmt.text(0);
    l.digest = stmt.text(1);
    l.definition = stmt.text(2);
    l.accepted_ms = stmt.int64(3);
    out.push_back(std::move(l));
  }
}

Status SqlStore::put_mcp_tool_lock(const McpToolLock& l) {
  if (l.server.empty() || l.tool.empty() || l.digest.empty()) {
    return Status::InvalidArgument("an MCP tool lock needs the server, the tool and the definition's digest");
  }
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t accepted = or_now(l.accepted_ms);
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("INSERT INTO mcp_tool_locks (workspace, server, tool, digest, definition, "
                                                  "accepted_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                                                  "ON CONFLICT (workspace, server, tool) DO UPDATE SET "
                                                  "digest = excluded.digest, definition = excluded.definition, "
                                                  "accepted_ms = excluded.accepted_ms"));
    stmt.bind(1, l.workspace).bind(2, l.server).bind(3, l.tool).bind(4, l.digest).bind(5, l.definition).bind(6, accepted);
    return stmt.run();
  });
}

}  // namespace keel::detail
