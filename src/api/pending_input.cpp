#include "api/pending_input.hpp"

#include <algorithm>

namespace keel::api {

PendingInput::PendingInput(std::function<void(const std::string& run_id)> on_ready) : on_ready_(std::move(on_ready)) {}

void PendingInput::set_on_ready(std::function<void(const std::string& run_id)> on_ready) {
  std::lock_guard lock(mu_);
  on_ready_ = std::move(on_ready);
}

std::optional<std::vector<ApprovalDecision>> PendingInput::take_decisions(const std::string& run_id,
                                                                          const std::string& session_id,
                                                                          const std::vector<ApprovalRequest>& requests) {
  std::lock_guard lock(mu_);
  bool all = true;
  for (const ApprovalRequest& r : requests) {
    std::string id = item_id(run_id, r.call.id);
    auto it = std::find_if(approvals_.begin(), approvals_.end(), [&](const Approval& a) { return a.item.id == id; });
    if (it == approvals_.end()) {
      approvals_.push_back(Approval{{std::move(id), run_id, session_id, r}, std::nullopt});
      all = false;
    } else if (!it->decision) {
      all = false;
    }
  }
  if (!all) return std::nullopt;
  std::vector<ApprovalDecision> out;
  for (const ApprovalRequest& r : requests) {
    std::string id = item_id(run_id, r.call.id);
    auto it = std::find_if(approvals_.begin(), approvals_.end(), [&](const Approval& a) { return a.item.id == id; });
    out.push_back(*it->decision);
    approvals_.erase(it);
  }
  return out;
}

void PendingInput::expect_approval(const std::string& run_id, const std::string& session_id,
                                   const ApprovalRequest& request) {
  std::lock_guard lock(mu_);
  std::string id = item_id(run_id, request.call.id);
  if (std::any_of(approvals_.begin(), approvals_.end(), [&](const Approval& a) { return a.item.id == id; })) return;
  approvals_.push_back(Approval{{std::move(id), run_id, session_id, request}, std::nullopt});
}

std::optional<std::vector<ApprovalDecision>> PendingInput::wait_decisions(const std::string& run_id,
                                                                          const std::string& session_id,
                                                                          const std::vector<ApprovalRequest>& requests,
                                                                          std::stop_token stop,
                                                                          std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (auto decided = take_decisions(run_id, session_id, requests)) return decided;
    std::unique_lock lock(mu_);
    const bool ready = decided_.wait_until(lock, stop, deadline, [&] { return ready_locked(run_id); });
    if (!ready) break;  // stopped or timed out
  }
  forget_run(run_id);
  return std::nullopt;
}

std::optional<UserAnswer> PendingInput::wait_answer(const UserQuestion& question, std::stop_token stop,
                                                    std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const std::string id = item_id(question.run_id, question.call_id);
  for (;;) {
    if (auto answer = take_answer(question)) return answer;
    std::unique_lock lock(mu_);
    const bool answered = decided_.wait_until(lock, stop, deadline, [&] {
      return std::any_of(questions_.begin(), questions_.end(), [&](const Question& q) { return q.item.id == id && q.answer; });
    });
    if (!answered) break;
  }
  std::lock_guard lock(mu_);
  std::erase_if(questions_, [&](const Question& q) { return q.item.id == id; });
  return std::nullopt;
}

std::optional<UserAnswer> PendingInput::take_answer(const UserQuestion& q) {
  std::lock_guard lock(mu_);
  std::string id = item_id(q.run_id, q.call_id);
  auto it = std::find_if(questions_.begin(), questions_.end(), [&](const Question& x) { return x.item.id == id; });
  if (it == questions_.end()) {
    Question x;
    x.item.id = id;
    x.item.run_id = q.run_id;
    x.item.session_id = q.session_id;
    x.item.question = q;
    questions_.push_back(std::move(x));
    return std::nullopt;
  }
  if (!it->answer) return std::nullopt;
  UserAnswer a = std::move(*it->answer);
  questions_.erase(it);
  return a;
}

std::vector<PendingApproval> PendingInput::approvals() const {
  std::lock_guard lock(mu_);
  std::vector<PendingApproval> out;
  for (const Approval& a : approvals_) {
    if (!a.decision) out.push_back(a.item);
  }
  return out;
}

std::vector<PendingQuestion> PendingInput::questions() const {
  std::lock_guard lock(mu_);
  std::vector<PendingQuestion> out;
  for (const Question& q : questions_) {
    if (!q.answer) out.push_back(q.item);
  }
  return out;
}

bool PendingInput::ready_locked(const std::string& run_id) const {
  bool any_open = std::any_of(approvals_.begin(), approvals_.end(),
                              [&](const Approval& a) { return a.item.run_id == run_id && !a.decision; }) ||
                  std::any_of(questions_.begin(), questions_.end(),
                              [&](const Question& q) { return q.item.run_id == run_id && !q.answer; });
  return !any_open;
}

Status PendingInput::decide(const std::string& approval_id, ApprovalVerdict verdict, std::string reason) {
  std::function<void(const std::string&)> notify;
  std::string run_id;
  {
    std::lock_guard lock(mu_);
    auto it = std::find_if(approvals_.begin(), approvals_.end(), [&](const Approval& a) { return a.item.id == approval_id; });
    if (it == approvals_.end()) return Status::NotFound("no approval '" + approval_id + "' is pending");
    if (it->decision) return Status::FailedPrecondition("approval '" + approval_id + "' was already decided");
    it->decision = ApprovalDecision{it->item.request.call.id, verdict, std::move(reason)};
    run_id = it->item.run_id;
    if (ready_locked(run_id)) notify = on_ready_;
  }
  decided_.notify_all();
  if (notify) notify(run_id);
  return Status::Ok();
}

Status PendingInput::answer(const std::string& question_id, UserAnswer answer, std::string* recorded) {
  std::function<void(const std::string&)> notify;
  std::string run_id;
  {
    std::lock_guard lock(mu_);
    auto it = std::find_if(questions_.begin(), questions_.end(), [&](const Question& q) { return q.item.id == question_id; });
    if (it == questions_.end()) return Status::NotFound("no question '" + question_id + "' is pending");
    if (it->answer) return Status::FailedPrecondition("question '" + question_id + "' was already answered");
    const UserQuestion& q = it->item.question;
    if (answer.option_index) {
      if (*answer.option_index >= q.options.size()) {
        return Status::InvalidArgument("option_index " + std::to_string(*answer.option_index) + " is out of range: the question has " +
                                       std::to_string(q.options.size()) + " options");
      }
      answer.text = q.options[*answer.option_index];
    } else if (!q.allow_free_text && std::find(q.options.begin(), q.options.end(), answer.text) == q.options.end()) {
      return Status::InvalidArgument("this question takes one of its options, not free text");
    } else if (answer.text.empty()) {
      return Status::InvalidArgument("the answer is empty");
    }
    if (recorded != nullptr) *recorded = answer.text;
    it->answer = std::move(answer);
    run_id = it->item.run_id;
    if (ready_locked(run_id)) notify = on_ready_;
  }
  decided_.notify_all();
  if (notify) notify(run_id);
  return Status::Ok();
}

std::optional<std::string> PendingInput::session_of(const std::string& item_id) const {
  std::lock_guard lock(mu_);
  for (const Approval& a : approvals_) {
    if (a.item.id == item_id) return a.item.session_id;
  }
  for (const Question& q : questions_) {
    if (q.item.id == item_id) return q.item.session_id;
  }
  return std::nullopt;
}

bool PendingInput::waiting(const std::string& run_id) const {
  std::lock_guard lock(mu_);
  return !ready_locked(run_id);
}

void PendingInput::forget_run(const std::string& run_id) {
  std::lock_guard lock(mu_);
  std::erase_if(approvals_, [&](const Approval& a) { return a.item.run_id == run_id; });
  std::erase_if(questions_, [&](const Question& q) { return q.item.run_id == run_id; });
}

}  // namespace keel::api
