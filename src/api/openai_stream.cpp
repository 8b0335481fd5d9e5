#include "api/openai_stream.hpp"

#include <algorithm>
#include <utility>

namespace keel::api {

using nlohmann::json;

ChatStreamRelay::ChatStreamRelay(std::shared_ptr<server::HttpResponder> out, CompletionIds ids, bool include_usage,
                                 bool tool_comments, bool live)
    : out_(std::move(out)), ids_(std::move(ids)), include_usage_(include_usage), tool_comments_(tool_comments),
      live_(live) {}

void ChatStreamRelay::start(server::HttpHeaders headers) {
  headers.emplace_back("Content-Type", "text/event-stream");
  headers.emplace_back("Cache-Control", "no-cache");
  headers.emplace_back("X-Accel-Buffering", "no");  // proxies: pass events on as they come
  out_->start_stream(200, std::move(headers));
  out_->write(chunk_event(ids_, {{"role", "assistant"}, {"content", ""}}, nullptr, include_usage_));
}

void ChatStreamRelay::finish(const RunOutcome& outcome, const std::string& answer) {
  if (!live_) send_content(answer);
  std::string last;
  if (!outcome.client_calls.empty()) last = tool_calls_event(ids_, outcome.client_calls, include_usage_);
  last.append(stop_event(ids_, outcome, include_usage_));
  if (include_usage_) last.append(usage_event(ids_, outcome.usage));
  close_stream(std::move(last));
}

void ChatStreamRelay::fail(const OpenAiError& error) { close_stream(error_event(error)); }

void ChatStreamRelay::close_stream(std::string last_events) {
  last_events.append(done_event());
  out_->write(std::move(last_events));
  out_->end();
}

void ChatStreamRelay::on_model_delta(RunContext&, std::string_view text) {
  if (!live_ || text.empty()) return;
  if (new_round_ && sent_text_) {
    std::string joined = "\n\n";
    joined.append(text);
    send_content(joined);
  } else {
    send_content(text);
  }
  new_round_ = false;
}

void ChatStreamRelay::on_tool_call(RunContext&, const ToolCall& call) {
  new_round_ = true;
  if (!tool_comments_) return;
  std::string line = ": keel tool ";
  for (char c : call.name) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  line.append("\n\n");
  out_->write(std::move(line));
}

// A further round the run adds after an answer (steering, a structured answer's correction).
void ChatStreamRelay::on_user_message(RunContext&, const Message&) { new_round_ = true; }

void ChatStreamRelay::send_content(std::string_view text) {
  if (text.empty()) return;
  sent_text_ = true;
  out_->write(chunk_event(ids_, {{"content", std::string(text)}}, nullptr, include_usage_));
}

}  // namespace keel::api
