// api/structured_answer.hpp — makes a run's final answer one JSON value of the shape a client
// asked for (response_format json_object / json_schema, text.format), or an explicit failure.
//
//   auto structured = StructuredAnswer::make(request.format);   // 400 when the schema is invalid
//   agent.add_hooks(*structured);
//   ... run ...
//   Result<std::string> json = (*structured)->answer(outcome);  // compact JSON, or why not
//
// Every model call is told the shape (and a local model gets the schema as its grammar, through
// ModelRequest::response_schema). A final answer is read as JSON (a ```json fence around it is
// accepted) and validated; an invalid one gets one corrective round that says what was wrong; a
// second invalid answer is an error, never an invalid object handed to the client.
//
// Thread-safety: one object per run; the run calls the hooks one at a time.
#pragma once

#include <memory>
#include <string>

#include "api/answer_format.hpp"
#include "keel/hooks.hpp"
#include "keel/result.hpp"

namespace keel::detail {
class CompiledSchema;
}

namespace keel::api {

class StructuredAnswer final : public Hooks {
 public:
  // InvalidArgument when the format's schema is not one keel can validate against.
  static Result<std::shared_ptr<StructuredAnswer>> make(const AnswerFormat& format);

  void on_process_prompts(RunContext&, ModelRequest& request) override;
  void on_response_complete(RunContext&, const std::string& answer, ResponseActions& actions) override;

  // After a successful run: its answer as compact JSON text; InvalidArgument saying why the
  // answer still did not fit after the corrective round.
  Result<std::string> answer(const RunOutcome& outcome) const;

 private:
  explicit StructuredAnswer(AnswerFormat format) : format_(std::move(format)) {}
  // The answer as JSON, or why it is not the asked-for shape.
  Result<std::string> check(const std::string& answer) const;

  AnswerFormat format_;
  std::shared_ptr<const detail::CompiledSchema> schema_;
  std::string instruction_;
  bool corrected_ = false;  // the corrective round was used
  Result<std::string> verdict_ = Status::FailedPrecondition("the run gave no answer");
};

}  // namespace keel::api
