#include "skills/skill_call.hpp"

#include <algorithm>

#include "base/clock.hpp"
#include "skills/skill_output.hpp"
#include "skills/skill_prompt.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

using Clock = std::chrono::steady_clock;

void fail(SkillOutcome& o, const Status& why, bool backend) {
  o.status = SkillStatus::kFailed;
  o.error_code = why.code();
  o.reason = why.message();
  o.backend_failed = backend;
}

// The heuristic's output, validated like a model's. `why` (may be empty) says why it was used.
void use_heuristic(const SkillCall& call, SkillOutcome& o, std::string_view why) {
  const CompiledSkill& skill = *call.skill;
  o.backend = "heuristic";
  Result<nlohmann::json> out = Status::Internal("no heuristic");
  try {
    out = skill.skill.heuristic(call.input);
  } catch (const std::exception& e) {
    out = Status::Internal(e.what());
  }
  if (!out.ok()) {
    fail(o,
         Status(out.status().code(),
                concat({"skill '", skill.id(), "': its heuristic failed: ", out.status().message()})),
         false);
    return;
  }
  o.raw_output = out->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Status valid = validate_skill_output(skill, *out, call.input);
  if (!valid.ok()) {
    fail(o,
         Status(valid.code(),
                concat({"skill '", skill.id(), "': its heuristic's output was rejected: ", valid.message()})),
         false);
    return;
  }
  o.status = SkillStatus::kSucceeded;
  o.output = o.raw_output;
  o.reason = std::string(why);
}

// The backend failed (or no client could be made): the heuristic where there is one.
void backend_failed(const SkillCall& call, SkillOutcome& o, const Status& why) {
  const CompiledSkill& skill = *call.skill;
  bool timed_out = why.code() == ErrorCode::kDeadlineExceeded && Clock::now() >= call.deadline;
  std::string message = timed_out ? skill_timeout_message(skill.manifest())
                                  : concat({"skill '", skill.id(), "': the backend failed: ", why.message()});
  if (skill.skill.heuristic) {
    use_heuristic(call, o, concat({message, "; the heuristic answered instead"}));
    return;
  }
  fail(o, Status(why.code(), std::move(message)), true);
}

void attempt_model(const SkillCall& call, SkillOutcome& o) {
  const CompiledSkill& skill = *call.skill;
  std::vector<Message> messages = call.messages;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(call.deadline - Clock::now()).count();
    if (left <= 0) {
      backend_failed(call, o, Status::DeadlineExceeded("timed out"));
      return;
    }
    ModelRequest request;
    request.history = messages;
    request.tools_enabled = false;
    request.round = attempt;
    request.sampling.max_tokens = skill.manifest().max_tokens;
    request.response_schema = skill.manifest().output_schema;
    CallOptions options;
    options.stream = false;
    options.stop = call.stop;
    options.timeout_ms = left;
    Result<ModelReply> reply = call.client->complete(request, options);
    if (call.run_stop.stop_requested()) {
      fail(o, Status::Cancelled(concat({"skill '", skill.id(), "' was stopped"})), false);
      return;
    }
    if (!reply.ok()) {
      backend_failed(call, o, reply.status());
      return;
    }
    o.raw_output = reply->text;
    Result<ParsedReply> parsed = parse_skill_reply(reply->text);
    Status valid = parsed.ok() ? validate_skill_output(skill, parsed->value, call.input) : parsed.status();
    if (valid.ok()) {
      o.status = SkillStatus::kSucceeded;
      o.output = parsed->value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      o.repairs = std::move(parsed->repairs);
      return;
    }
    if (attempt == 2) {
      fail(o,
           Status(valid.code(), concat({"skill '", skill.id(), "': the output was rejected twice: ", valid.message()})),
           false);
      return;
    }
    o.retries = 1;
    append_retry(messages, reply->text, valid.message());
  }
}

}  // namespace

std::string skill_timeout_message(const SkillManifest& manifest) {
  return concat(
      {"skill '", manifest.id, "' timed out after ", std::to_string(manifest.timeout_ms), " ms (its timeoutMs)"});
}

SkillOutcome run_skill_call(const SkillCall& call) {
  const auto start = Clock::now();
  SkillOutcome o;
  o.id = call.skill->id();
  if (call.client != nullptr) o.backend = call.client->describe();
  if (call.rules) {
    if (call.skill->skill.heuristic) {
      use_heuristic(call, o, "");
    } else {
      fail(o,
           Status::FailedPrecondition(concat({"skill '", o.id,
                                              "' needs a model: the rules model cannot write its output and the skill "
                                              "has no heuristic; choose a model with --model or KEEL_MODEL"})),
           false);
    }
  } else if (call.client == nullptr) {
    backend_failed(call, o, call.client_error);
  } else {
    attempt_model(call, o);
  }
  o.duration_ms = ms_since(start);
  return o;
}

}  // namespace keel::detail
