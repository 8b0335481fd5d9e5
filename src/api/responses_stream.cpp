#include "api/responses_stream.hpp"

#include <utility>

#include "api/openai_reply.hpp"

namespace keel::api {

using nlohmann::json;

ResponseRelay::ResponseRelay(ResponseHead head, std::shared_ptr<server::HttpResponder> out,
                             ResponseRelayOptions options, std::function<void(const std::string&)> on_started)
    : head_(std::move(head)), out_(std::move(out)), options_(std::move(options)), on_started_(std::move(on_started)) {}

bool ResponseRelay::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

json ResponseRelay::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return response_json(head_, body_);
}

void ResponseRelay::on_run_started(RunContext& ctx) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    head_.id = response_id_for_run(ctx.run_id);
    body_.keel = {{"session_id", ctx.session_id}, {"run_id", ctx.run_id}, {"rounds", 0}, {"tool_calls", 0}};
  }
  if (on_started_) on_started_(head_.id);
  std::lock_guard<std::mutex> lock(mu_);
  started_ = true;
  if (!options_.stream) return;
  server::HttpHeaders headers = options_.headers;
  headers.emplace_back("Content-Type", "text/event-stream");
  headers.emplace_back("Cache-Control", "no-cache");
  headers.emplace_back("X-Accel-Buffering", "no");  // proxies: pass events on as they come
  out_->start_stream(200, std::move(headers));
  send({{"type", "response.created"}, {"response", response_json(head_, body_)}});
  send({{"type", "response.in_progress"}, {"response", response_json(head_, body_)}});
}

void ResponseRelay::on_model_delta(RunContext&, std::string_view text) {
  if (!options_.live || text.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (new_round_ && sent_text_) {
    std::string joined = "\n\n";
    joined.append(text);
    append_text(joined);
  } else {
    append_text(text);
  }
  new_round_ = false;
}

void ResponseRelay::on_tool_call(RunContext&, const ToolCall& call) {
  std::lock_guard<std::mutex> lock(mu_);
  new_round_ = true;
  if (!options_.stream || !options_.tool_comments) return;
  std::string line = ": keel tool ";
  for (char c : call.name) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  line.append("\n\n");
  out_->write(std::move(line));
}

// A further round the run adds after an answer (steering, a structured answer's correction).
void ResponseRelay::on_user_message(RunContext&, const Message&) {
  std::lock_guard<std::mutex> lock(mu_);
  new_round_ = true;
}

json ResponseRelay::finish(const RunOutcome& outcome, const std::string& answer) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!sent_text_ && !answer.empty()) append_text(answer);
  if (!sent_text_ && outcome.client_calls.empty()) open_message();  // an empty answer is still a message
  close_message();
  for (const ToolCall& call : outcome.client_calls) add_call(call);
  body_.status = "completed";
  body_.usage = outcome.usage;
  body_.keel = keel_json(outcome);
  body_.completed_at = options_.now_s ? options_.now_s() : head_.created_at;
  json response = response_json(head_, body_);
  send({{"type", "response.completed"}, {"response", response}});
  lock.unlock();
  end_stream();
  return response;
}

json ResponseRelay::fail(std::string_view status, const std::string& code, const std::string& message,
                         const RunOutcome* outcome) {
  std::unique_lock<std::mutex> lock(mu_);
  body_.status = std::string(status);
  body_.error = {{"code", code}, {"message", message}};
  if (outcome != nullptr) {
    body_.usage = outcome->usage;
    body_.keel = keel_json(*outcome);
  }
  json response = response_json(head_, body_);
  send({{"type", "response.failed"}, {"response", response}});
  lock.unlock();
  end_stream();
  return response;
}

void ResponseRelay::send(json event) {
  if (!options_.stream || !started_) return;
  event["sequence_number"] = sequence_++;
  out_->write(sse_event(event));
}

void ResponseRelay::open_message() {
  if (message_index_ >= 0) return;
  message_id_ = item_id("msg", head_.id, next_item_++);
  message_index_ = static_cast<int>(body_.output.size());
  json item = message_item(message_id_, "", "in_progress");
  item["content"] = json::array();
  body_.output.push_back(item);
  send({{"type", "response.output_item.added"}, {"output_index", message_index_}, {"item", item}});
  body_.output[message_index_]["content"].push_back(output_text_part(""));
  send({{"type", "response.content_part.added"},
        {"item_id", message_id_},
        {"output_index", message_index_},
        {"content_index", 0},
        {"part", output_text_part("")}});
}

void ResponseRelay::append_text(std::string_view text) {
  if (text.empty()) return;
  open_message();
  sent_text_ = true;
  text_.append(text);
  body_.output[message_index_]["content"][0]["text"] = text_;
  send({{"type", "response.output_text.delta"},
        {"item_id", message_id_},
        {"output_index", message_index_},
        {"content_index", 0},
        {"delta", std::string(text)},
        {"logprobs", json::array()}});
}

void ResponseRelay::close_message() {
  if (message_index_ < 0) return;
  send({{"type", "response.output_text.done"},
        {"item_id", message_id_},
        {"output_index", message_index_},
        {"content_index", 0},
        {"text", text_},
        {"logprobs", json::array()}});
  send({{"type", "response.content_part.done"},
        {"item_id", message_id_},
        {"output_index", message_index_},
        {"content_index", 0},
        {"part", output_text_part(text_)}});
  body_.output[message_index_] = message_item(message_id_, text_, "completed");
  send({{"type", "response.output_item.done"},
        {"output_index", message_index_},
        {"item", body_.output[message_index_]}});
  message_index_ = -1;
}

void ResponseRelay::add_call(const ToolCall& call) {
  const std::string id = item_id("fc", head_.id, next_item_++);
  const int index = static_cast<int>(body_.output.size());
  json item = function_call_item(id, call, "in_progress");
  item["arguments"] = "";
  body_.output.push_back(item);
  send({{"type", "response.output_item.added"}, {"output_index", index}, {"item", item}});
  send({{"type", "response.function_call_arguments.delta"},
        {"item_id", id},
        {"output_index", index},
        {"delta", call.arguments}});
  send({{"type", "response.function_call_arguments.done"},
        {"item_id", id},
        {"output_index", index},
        {"name", call.name},
        {"arguments", call.arguments}});
  body_.output[index] = function_call_item(id, call, "completed");
  send({{"type", "response.output_item.done"}, {"output_index", index}, {"item", body_.output[index]}});
}

void ResponseRelay::end_stream() {
  if (options_.stream && started()) out_->end();
}

}  // namespace keel::api
