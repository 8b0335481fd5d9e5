// ask_user — puts a structured question to the person through the host's UserAsker and returns
// the answer as {"answer": ..., "option_index"?: n}. The answer is checked against the question:
// an option index out of range, or free text where only options are allowed, is an error rather
// than a guess. An answer typed as the exact text of an option counts as that option.
#include <nlohmann/json.hpp>

#include "keel/ask_user.hpp"

namespace keel {
namespace {

using nlohmann::json;

constexpr int kTimeoutMs = 10 * 60 * 1000;  // people take their time
constexpr size_t kMaxOptions = 20;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "question": {"type": "string", "minLength": 1, "description": "The question, self-contained: say what you need to know and why"},
    "options": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 20, "description": "Choices to offer, if any"},
    "allow_free_text": {"type": "boolean", "description": "Whether an answer other than the options is accepted; default true"}
  },
  "required": ["question"],
  "additionalProperties": false
})json";

constexpr const char* kNoOneToAsk =
    "no one can answer questions in this run; decide with your best judgement and state the assumption in your "
    "answer";

Result<UserQuestion> question_from(const json& args) {
  UserQuestion q;
  auto text = args.find("question");
  if (text == args.end() || !text->is_string() || text->get<std::string>().empty()) {
    return Status::InvalidArgument("ask_user needs \"question\": the question to ask");
  }
  q.question = text->get<std::string>();
  if (auto opts = args.find("options"); opts != args.end() && opts->is_array()) {
    for (const json& o : *opts) {
      if (o.is_string()) q.options.push_back(o.get<std::string>());
    }
  }
  if (q.options.size() > kMaxOptions) return Status::InvalidArgument("ask_user takes at most 20 options");
  if (auto f = args.find("allow_free_text"); f != args.end() && f->is_boolean()) q.allow_free_text = f->get<bool>();
  if (q.options.empty() && !q.allow_free_text) {
    return Status::InvalidArgument("ask_user with allow_free_text=false needs options to choose from");
  }
  return q;
}

Result<std::string> ask(UserAsker* asker, const json& args, const ToolContext& ctx) {
  KEEL_ASSIGN_OR_RETURN(UserQuestion q, question_from(args));
  if (asker == nullptr) return Status::FailedPrecondition(kNoOneToAsk);
  q.run_id = ctx.run_id;
  q.session_id = ctx.session_id;
  q.call_id = ctx.call_id;
  Result<UserAnswer> answer = asker->ask(q, ctx.stop);
  if (!answer.ok()) {
    if (answer.status().code() == ErrorCode::kCancelled) return answer.status();
    return Status(answer.status().code(), "the user did not answer (" + answer.status().message() +
                                              "); decide with your best judgement and state the assumption");
  }
  std::optional<size_t> index = answer->option_index;
  if (index && *index >= q.options.size()) {
    return Status::Internal("the answer picked option " + std::to_string(*index) + " of " +
                            std::to_string(q.options.size()));
  }
  if (!index) {
    for (size_t i = 0; i < q.options.size(); ++i) {
      if (q.options[i] == answer->text) index = i;
    }
  }
  if (!index && !q.allow_free_text) {
    return Status::FailedPrecondition("the user's answer \"" + answer->text +
                                      "\" is none of the options; ask again or decide with your best judgement");
  }
  json out;
  out["answer"] = index ? q.options[*index] : answer->text;
  if (index) out["option_index"] = *index;
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

Status register_ask_user_tool(ToolRegistry& tools, std::shared_ptr<UserAsker> asker) {
  ToolSpec spec;
  spec.name = "ask_user";
  spec.description =
      "Ask the user a question (optionally with options to choose from) when you cannot proceed without their "
      "decision; returns {\"answer\", \"option_index\"?} (0-based).";
  spec.parameters_schema = kSchema;
  // Asking changes nothing outside keel, so a call interrupted by a crash may be asked again.
  spec.read_only = true;
  spec.concurrency_safe = false;  // one question on the screen at a time
  spec.risk = Risk::kLow;
  spec.timeout_ms = kTimeoutMs;
  spec.cacheable = false;
  spec.output_schema =
      R"({"type":"object","properties":{"answer":{"type":"string"},"option_index":{"type":"integer","minimum":0,)"
      R"("description":"0-based index of the chosen option, when one was chosen"}},"required":["answer"],"additionalProperties":false})";
  return tools.add(make_tool(std::move(spec), [asker = std::move(asker)](const json& args, const ToolContext& ctx) {
    return ask(asker.get(), args, ctx);
  }));
}

}  // namespace keel
