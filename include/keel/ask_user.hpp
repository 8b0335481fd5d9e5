// keel/ask_user.hpp — letting an agent ask the person running it a question.
//
// The host supplies a UserAsker (the CLI asks on the terminal: src/cli/tty_asker.hpp; a server
// would forward the question to its UI). register_ask_user_tool() adds the tool
//   ask_user {question, options?, allow_free_text?}
//     → {"answer":"staging","option_index":1}   (option_index, 0-based, when an option was chosen)
// Not concurrency-safe (one question at a time), risk low, a 10-minute timeout; the stop token
// given to ask() is requested on timeout or abort. With no asker (nullptr) every call is a tool
// error telling the model that no one can answer and to decide on its own, stating the
// assumption.
//
//   auto asker = std::make_shared<MyAsker>();
//   KEEL_TRY(keel::register_ask_user_tool(tools, asker));
//
// Thread-safety: ask() may be called from any thread; the tool never calls it concurrently with
// itself, but an asker shared by several registries must serialise its own questions.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

struct UserQuestion {
  std::string question;
  std::vector<std::string> options;  // choices to offer, in order; may be empty
  bool allow_free_text = true;       // false: the answer must be one of the options
  // Who asks, set by the tool: a host serving several runs (keel serve) routes the question by
  // them, and a run resumed after the answer asks again with the same ids.
  std::string run_id;
  std::string session_id;
  std::string call_id;
};

struct UserAnswer {
  std::string text;                   // the answer (an option's text when one was chosen)
  std::optional<size_t> option_index;  // 0-based index into UserQuestion::options, when chosen
};

// A host capability: puts a question to the person and waits for the answer.
class UserAsker {
 public:
  virtual ~UserAsker() = default;
  // Returns the answer, or an error: Cancelled when `stop` was requested (the asker must return
  // promptly then), FailedPrecondition when the person gave no answer (empty input, end of
  // input) or cannot be reached.
  virtual Result<UserAnswer> ask(const UserQuestion& question, std::stop_token stop) = 0;
};

// Adds ask_user to `tools`. `asker` may be nullptr (no one to ask in this run). Errors from
// ToolRegistry::add are returned as is.
Status register_ask_user_tool(ToolRegistry& tools, std::shared_ptr<UserAsker> asker);

}  // namespace keel
