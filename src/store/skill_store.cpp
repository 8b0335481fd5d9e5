// Skills in the store: per-workspace settings (enabled, auto-run) and the proposals that
// executable skills queue for a person's decision. Every lookup is scoped by id or workspace.
#include <nlohmann/json.hpp>

#include "store/sql_store.hpp"

namespace keel {

std::string_view proposal_status_name(ProposalStatus status) {
  switch (status) {
    case ProposalStatus::kPending: return "pending";
    case ProposalStatus::kApproved: return "approved";
    case ProposalStatus::kRejected: return "rejected";
    case ProposalStatus::kExecuted: return "executed";
    case ProposalStatus::kFailed: return "failed";
  }
  return "pending";
}

}  // namespace keel

namespace keel::detail {
namespace {

#define KEEL_PROPOSAL_COLUMNS \
  "id, workspace, skill, run_id, tool, arguments, output, summary, status, result, created_ms, decided_ms, public_id"

SkillProposal read_proposal(const Stmt& stmt) {
  SkillProposal p;
  p.id = stmt.int64(0);
  p.workspace = stmt.text(1);
  p.skill = stmt.text(2);
  p.run_id = stmt.text(3);
  p.tool = stmt.text(4);
  p.arguments = stmt.text(5);
  p.output = stmt.text(6);
  p.summary = stmt.text(7);
  p.status = static_cast<ProposalStatus>(stmt.int64(8));
  p.result = stmt.text(9);
  p.created_ms = stmt.int64(10);
  if (!stmt.is_null(11)) p.decided_ms = stmt.int64(11);
  p.public_id = stmt.text(12);
  return p;
}

std::optional<bool> read_flag(const Stmt& stmt, int col) {
  if (stmt.is_null(col)) return std::nullopt;
  return stmt.int64(col) != 0;
}

void bind_flag(Stmt& stmt, int i, std::optional<bool> flag) {
  if (flag) {
    stmt.bind(i, static_cast<int64_t>(*flag ? 1 : 0));
  } else {
    stmt.bind_null(i);
  }
}

bool allowed_move(ProposalStatus from, ProposalStatus to) {
  if (from == ProposalStatus::kPending) return to == ProposalStatus::kApproved || to == ProposalStatus::kRejected;
  if (from == ProposalStatus::kApproved) return to == ProposalStatus::kExecuted || to == ProposalStatus::kFailed;
  return false;
}

}  // namespace

Status SqlStore::set_skill_setting(const SkillSetting& setting) {
  if (setting.skill.empty()) return Status::InvalidArgument("a skill setting needs the skill's name");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t now = now_ms();
  return db_->write([&]() -> Status {
    // Unset fields keep what is stored: COALESCE with the existing row's value.
    KEEL_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->prepare("INSERT INTO skill_settings (workspace, skill, enabled, auto_run, updated_ms) "
                     "VALUES (?1, ?2, ?3, ?4, ?5) "
                     "ON CONFLICT (workspace, skill) DO UPDATE SET "
                     "enabled = COALESCE(excluded.enabled, skill_settings.enabled), "
                     "auto_run = COALESCE(excluded.auto_run, skill_settings.auto_run), updated_ms = excluded.updated_ms"));
    stmt.bind(1, setting.workspace).bind(2, setting.skill);
    bind_flag(stmt, 3, setting.enabled);
    bind_flag(stmt, 4, setting.auto_run);
    stmt.bind(5, now);
    return stmt.run();
  });
}

Result<std::vector<SkillSetting>> SqlStore::list_skill_settings(std::string_view workspace) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT workspace, skill, enabled, auto_run, updated_ms "
                                                "FROM skill_settings WHERE workspace = ?1 ORDER BY skill"));
  stmt.bind(1, workspace);
  std::vector<SkillSetting> out;
  for (;;) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) break;
    SkillSetting s;
    s.workspace = stmt.text(0);
    s.skill = stmt.text(1);
    s.enabled = read_flag(stmt, 2);
    s.auto_run = read_flag(stmt, 3);
    s.updated_ms = stmt.int64(4);
    out.push_back(std::move(s));
  }
  return out;
}

Result<int64_t> SqlStore::add_skill_proposal(const SkillProposal& proposal) {
  if (proposal.skill.empty()) return Status::InvalidArgument("a skill proposal needs the skill's id");
  const std::string arguments = proposal.arguments.empty() ? "{}" : proposal.arguments;
  const std::string output = proposal.output.empty() ? "null" : proposal.output;
  if (!nlohmann::json::accept(arguments)) {
    return Status::InvalidArgument("skill proposal arguments are not JSON: " + arguments.substr(0, 80));
  }
  if (!nlohmann::json::accept(output)) {
    return Status::InvalidArgument("skill proposal output is not JSON: " + output.substr(0, 80));
  }
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t id = 0;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        id,
        insert_with_id(
            *db_,
            "INSERT INTO skill_proposals (workspace, skill, run_id, tool, arguments, output, summary, status, result, "
            "created_ms, public_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            [&](Stmt& stmt) {
              stmt.bind(1, proposal.workspace).bind(2, proposal.skill);
              stmt.bind(3, proposal.run_id).bind(4, proposal.tool);
              stmt.bind(5, arguments).bind(6, output).bind(7, proposal.summary);
              stmt.bind(8, static_cast<int64_t>(proposal.status));
              stmt.bind(9, proposal.result).bind(10, or_now(proposal.created_ms));
              stmt.bind(11, random_id("sp_"));
            }));
    return Status::Ok();
  }));
  return id;
}

Result<SkillProposal> SqlStore::get_skill_proposal(int64_t id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT " KEEL_PROPOSAL_COLUMNS " FROM skill_proposals WHERE id = ?1"));
  stmt.bind(1, id);
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  if (!row) return Status::NotFound("no skill proposal " + std::to_string(id) + " (`keel skills proposals` lists them)");
  return read_proposal(stmt);
}

Result<SkillProposal> SqlStore::find_skill_proposal(std::string_view workspace, std::string_view public_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT " KEEL_PROPOSAL_COLUMNS
                                                " FROM skill_proposals WHERE public_id = ?1 AND workspace = ?2"));
  stmt.bind(1, public_id).bind(2, workspace);
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  if (!row) return Status::NotFound("no skill proposal '" + std::string(public_id) + "' in this workspace");
  return read_proposal(stmt);
}

Result<std::vector<SkillProposal>> SqlStore::list_skill_proposals(std::string_view workspace,
                                                                     std::optional<ProposalStatus> status) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT " KEEL_PROPOSAL_COLUMNS " FROM skill_proposals "
                                                "WHERE workspace = ?1 AND (?2 < 0 OR status = ?2) ORDER BY id DESC"));
  stmt.bind(1, workspace).bind(2, status ? static_cast<int64_t>(*status) : int64_t{-1});
  std::vector<SkillProposal> out;
  for (;;) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) break;
    out.push_back(read_proposal(stmt));
  }
  return out;
}

Status SqlStore::decide_skill_proposal(int64_t id, ProposalStatus status, std::string_view result) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t now = now_ms();
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt get, db_->prepare("SELECT status FROM skill_proposals WHERE id = ?1"));
    get.bind(1, id);
    KEEL_ASSIGN_OR_RETURN(bool row, get.step());
    if (!row) return Status::NotFound("no skill proposal " + std::to_string(id) + " (`keel skills proposals` lists them)");
    const auto from = static_cast<ProposalStatus>(get.int64(0));
    if (!allowed_move(from, status)) {
      return Status::FailedPrecondition("skill proposal " + std::to_string(id) + " is " +
                                        std::string(proposal_status_name(from)) + "; it cannot become " +
                                        std::string(proposal_status_name(status)));
    }
    // Conditional on the status just read: a decision made meanwhile on another connection wins.
    KEEL_ASSIGN_OR_RETURN(Stmt set, db_->prepare("UPDATE skill_proposals SET status = ?2, result = ?3, decided_ms = ?4 "
                                                 "WHERE id = ?1 AND status = ?5"));
    set.bind(1, id).bind(2, static_cast<int64_t>(status)).bind(3, result).bind(4, now);
    set.bind(5, static_cast<int64_t>(from));
    KEEL_TRY(set.run());
    if (db_->changes() == 0) {
      return Status::FailedPrecondition("skill proposal " + std::to_string(id) + " was decided meanwhile; it cannot become " +
                                        std::string(proposal_status_name(status)));
    }
    return Status::Ok();
  });
}

}  // namespace keel::detail
