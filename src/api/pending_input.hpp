// api/pending_input.hpp — what parked runs wait for from a person: approvals of tool calls and
// answers to ask_user questions, with the answers given so far.
//
// A run that needs a decision registers what it asks and parks (it holds no thread). The person
// answers through the API; once every item a run waits for is answered, `on_ready(run_id)` is
// called so the host resumes the run, which then finds its answers here (consumed once).
// Approval ids are "RUN_ID:CALL_ID" and question ids "RUN_ID:CALL_ID" too: a run resumed after
// a restart asks again under the same ids. Run ids carry 128 random bits, so an item id cannot be
// guessed; the API also checks that an item's session belongs to the server's workspace.
//
// Thread-safety: every member may be called from any thread; on_ready is called without locks
// held.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/ask_user.hpp"
#include "keel/core/decision.hpp"
#include "keel/core/event.hpp"
#include "keel/result.hpp"

namespace keel::api {

struct PendingApproval {
  std::string id;
  std::string run_id;
  std::string session_id;
  ApprovalRequest request;
};

struct PendingQuestion {
  std::string id;
  std::string run_id;
  std::string session_id;
  UserQuestion question;
};

class PendingInput {
 public:
  explicit PendingInput(std::function<void(const std::string& run_id)> on_ready = {});
  void set_on_ready(std::function<void(const std::string& run_id)> on_ready);

  static std::string item_id(const std::string& run_id, const std::string& call_id) { return run_id + ":" + call_id; }

  // The decisions for `requests` when every one has been given (they are consumed); otherwise
  // the undecided ones are registered as pending and nullopt is returned.
  std::optional<std::vector<ApprovalDecision>> take_decisions(const std::string& run_id, const std::string& session_id,
                                                              const std::vector<ApprovalRequest>& requests);
  // Registers `request` of `run_id` as pending (nothing when it is already), so it can be decided
  // before its run asks for the decisions.
  void expect_approval(const std::string& run_id, const std::string& session_id, const ApprovalRequest& request);
  // take_decisions for a run whose thread waits (it is not parked): blocks until every one of
  // `requests` is decided, `stop` is requested or `timeout` passes. On a stop or a timeout the
  // run's undecided items are dropped and nullopt is returned.
  std::optional<std::vector<ApprovalDecision>> wait_decisions(const std::string& run_id, const std::string& session_id,
                                                              const std::vector<ApprovalRequest>& requests,
                                                              std::stop_token stop, std::chrono::milliseconds timeout);
  // take_answer for a run whose thread waits: blocks until the question is answered, `stop` is
  // requested or `timeout` passes; then (no answer) the question is dropped and nullopt returned.
  std::optional<UserAnswer> wait_answer(const UserQuestion& question, std::stop_token stop,
                                        std::chrono::milliseconds timeout);
  // The answer to the question asked by `question.call_id` when given (consumed); otherwise it
  // is registered as pending and nullopt is returned.
  std::optional<UserAnswer> take_answer(const UserQuestion& question);

  std::vector<PendingApproval> approvals() const;
  std::vector<PendingQuestion> questions() const;
  // Records a decision. NotFound for an id nobody waits for; FailedPrecondition when it was
  // already decided.
  Status decide(const std::string& approval_id, ApprovalVerdict verdict, std::string reason);
  // Records an answer; InvalidArgument for an option index out of range or a free text where only
  // options are allowed. `recorded` (may be null) gets the answer's text as recorded: the chosen
  // option's when it names one.
  Status answer(const std::string& question_id, UserAnswer answer, std::string* recorded = nullptr);
  // The session of the approval or question `item_id` (pending or decided, not yet consumed);
  // nullopt when there is none. Routes check it against the server's workspace before deciding.
  std::optional<std::string> session_of(const std::string& item_id) const;
  // True when `run_id` has pending items nobody has answered yet.
  bool waiting(const std::string& run_id) const;
  // Drops everything of a run (aborted, ended).
  void forget_run(const std::string& run_id);

 private:
  bool ready_locked(const std::string& run_id) const;
  struct Approval {
    PendingApproval item;
    std::optional<ApprovalDecision> decision;
  };
  struct Question {
    PendingQuestion item;
    std::optional<UserAnswer> answer;
  };
  mutable std::mutex mu_;
  std::condition_variable_any decided_;  // a decision or an answer was recorded
  std::vector<Approval> approvals_;
  std::vector<Question> questions_;
  std::function<void(const std::string&)> on_ready_;
};

}  // namespace keel::api
