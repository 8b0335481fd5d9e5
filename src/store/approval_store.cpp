// Approvals: the audit log of decisions, and the standing allow/deny rules per workspace.
#include "store/sql_store.hpp"

namespace keel::detail {
namespace {

Result<ApprovalVerdict> parse_verdict(std::string_view name) {
  for (ApprovalVerdict v : {ApprovalVerdict::kAllow, ApprovalVerdict::kAllowAlways, ApprovalVerdict::kDeny}) {
    if (approval_verdict_name(v) == name) return v;
  }
  return Status::FailedPrecondition("stored approval verdict '" + std::string(name) + "' is unknown");
}

}  // namespace

Result<int64_t> SqlStore::record_approval(const ApprovalRecord& r) {
  if (r.tool.empty()) return Status::InvalidArgument("an approval record needs the tool's name");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t id = 0;
  int64_t decided = or_now(r.decided_ms);
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        id, insert_with_id(
                *db_,
                "INSERT INTO approvals (run_id, session_id, workspace, tool, arguments, verdict, reason, decided_ms) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                [&](Stmt& stmt) {
                  stmt.bind_or_null(1, r.run_id).bind_or_null(2, r.session_id);
                  stmt.bind(3, r.workspace).bind(4, r.tool).bind(5, r.arguments);
                  stmt.bind(6, approval_verdict_name(r.verdict)).bind(7, r.reason);
                  stmt.bind(8, decided);
                }));
    return Status::Ok();
  }));
  return id;
}

Result<std::vector<ApprovalRecord>> SqlStore::list_approvals(const ApprovalFilter& filter) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->prepare(
          "SELECT id, run_id, session_id, workspace, tool, arguments, verdict, reason, decided_ms FROM approvals "
          "WHERE (?1 = '' OR run_id = ?1) AND (?2 = '' OR session_id = ?2) "
          "ORDER BY decided_ms DESC, id DESC LIMIT ?3"));
  stmt.bind(1, filter.run_id).bind(2, filter.session_id).bind(3, sql_limit(filter.limit));
  std::vector<ApprovalRecord> out;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return out;
    ApprovalRecord r;
    r.id = stmt.int64(0);
    r.run_id = stmt.text(1);
    r.session_id = stmt.text(2);
    r.workspace = stmt.text(3);
    r.tool = stmt.text(4);
    r.arguments = stmt.text(5);
    KEEL_ASSIGN_OR_RETURN(r.verdict, parse_verdict(stmt.text(6)));
    r.reason = stmt.text(7);
    r.decided_ms = stmt.int64(8);
    out.push_back(std::move(r));
  }
}

Status SqlStore::add_approval_rule(const ApprovalRule& rule) {
  if (rule.verdict != ApprovalVerdict::kAllow && rule.verdict != ApprovalVerdict::kDeny) {
    return Status::InvalidArgument("an approval rule's verdict must be allow or deny, not " +
                                   std::string(approval_verdict_name(rule.verdict)));
  }
  if (rule.tool.empty()) return Status::InvalidArgument("an approval rule needs the tool's name");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t created = or_now(rule.created_ms);
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->prepare(
            "INSERT INTO approval_rules (workspace, tool, pattern, verdict, created_ms) VALUES (?1, ?2, ?3, ?4, ?5) "
            "ON CONFLICT (workspace, tool, pattern) DO UPDATE SET verdict = excluded.verdict, "
            "created_ms = excluded.created_ms"));
    stmt.bind(1, rule.workspace).bind(2, rule.tool).bind(3, rule.pattern);
    stmt.bind(4, approval_verdict_name(rule.verdict)).bind(5, created);
    return stmt.run();
  });
}

Result<std::vector<ApprovalRule>> SqlStore::list_approval_rules(std::string_view workspace) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->prepare("SELECT workspace, tool, pattern, verdict, created_ms FROM approval_rules WHERE workspace = ?1 "
                   "ORDER BY tool, pattern"));
  stmt.bind(1, workspace);
  std::vector<ApprovalRule> out;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return out;
    ApprovalRule rule;
    rule.workspace = stmt.text(0);
    rule.tool = stmt.text(1);
    rule.pattern = stmt.text(2);
    KEEL_ASSIGN_OR_RETURN(rule.verdict, parse_verdict(stmt.text(3)));
    rule.created_ms = stmt.int64(4);
    out.push_back(std::move(rule));
  }
}

Status SqlStore::remove_approval_rule(std::string_view workspace, std::string_view tool, std::string_view pattern) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        Stmt stmt, db_->prepare("DELETE FROM approval_rules WHERE workspace = ?1 AND tool = ?2 AND pattern = ?3"));
    stmt.bind(1, workspace).bind(2, tool).bind(3, pattern);
    KEEL_TRY(stmt.run());
    if (db_->changes() > 0) return Status::Ok();
    return Status::NotFound("no approval rule for tool '" + std::string(tool) + "' with pattern '" +
                            std::string(pattern) + "' in workspace '" + std::string(workspace) + "'");
  });
}

}  // namespace keel::detail
