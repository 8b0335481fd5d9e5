#include "api/openai_stream.hpp"

#include <algorithm>
#include <utility>

namespace keel::api {

using nlohmann::json;

ChatStreamRelay::ChatStreamRelay(std::shared_ptr<server::HttpResponder> out, CompletionIds ids, bool include_usage,
                                 bool tool_comments)
    : out_(std::move(out)), ids_(std::move(ids)), include_usage_(include_usage), tool_comments_(tool_comments) {}

void ChatStreamRelay::start(server::HttpHeaders headers) {
  headers.emplace_back("Content-Type", "text/event-stream");
  headers.emplace_back("Cache-Control", "no-cache");
  headers.emplace_back("X-Accel-Buffering", "no");  // proxies: pass events on as they come
  out_->start_stream(200, std::move(headers));
  out_->write(chunk_event(ids_, {{"role", "assistant"}, {"content", ""}}, nullptr, include_usage_));
}

void ChatStreamRelay::finish(const RunOutcome& outcome) {
  std::string last = stop_event(ids_, outcome, include_usage_);
  if (include_usage_) last.append(usage_event(ids_, outcome.usage));
  close_stream(std::move(last));
}

void ChatStreamRelay::fail(const OpenAiError& error) { close_stream(error_event(error)); }

void ChatStreamRelay::close_stream(std::string last_events) {
  last_events.append(done_event());
  out_->write(std::move(last_events));
  out_->end();
}

void ChatStreamRelay::on_process_prompts(RunContext&, ModelRequest&) { pieces_.clear(); }

void ChatStreamRelay::on_model_delta(RunContext&, std::string_view text) { pieces_.emplace_back(text); }

// A retried call streams its reply again from the start.
void ChatStreamRelay::on_model_retry(RunContext&, int, const Status&, int64_t) { pieces_.clear(); }

void ChatStreamRelay::on_tool_call(RunContext&, const ToolCall& call) {
  pieces_.clear();
  if (!tool_comments_) return;
  std::string line = ": keel tool ";
  for (char c : call.name) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  line.append("\n\n");
  out_->write(std::move(line));
}

// The answer is the round's text as keel keeps it (trimmed, tool-call markup removed). When it
// lies within the streamed text, the streamed pieces are sent, cut to it; otherwise the answer
// goes as one piece.
void ChatStreamRelay::on_response_complete(RunContext&, const std::string& answer, ResponseActions&) {
  std::string streamed;
  for (const std::string& p : pieces_) streamed.append(p);
  const size_t begin = answer.empty() ? std::string::npos : streamed.find(answer);
  if (begin == std::string::npos) {
    send_content(answer);
  } else {
    const size_t end = begin + answer.size();
    size_t offset = 0;
    for (const std::string& p : pieces_) {
      const size_t from = std::max(offset, begin);
      const size_t to = std::min(offset + p.size(), end);
      if (from < to) send_content(std::string_view(p).substr(from - offset, to - from));
      offset += p.size();
    }
  }
  pieces_.clear();
}

void ChatStreamRelay::send_content(std::string_view text) {
  if (text.empty()) return;
  out_->write(chunk_event(ids_, {{"content", std::string(text)}}, nullptr, include_usage_));
}

}  // namespace keel::api
