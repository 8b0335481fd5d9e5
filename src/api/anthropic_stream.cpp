#include "api/anthropic_stream.hpp"

#include <algorithm>
#include <utility>

namespace keel::api {

MessagesStreamRelay::MessagesStreamRelay(std::shared_ptr<server::HttpResponder> out, MessageIds ids, bool tool_pings)
    : out_(std::move(out)), ids_(std::move(ids)), tool_pings_(tool_pings) {}

void MessagesStreamRelay::start(server::HttpHeaders headers) {
  headers.emplace_back("Content-Type", "text/event-stream");
  headers.emplace_back("Cache-Control", "no-cache");
  headers.emplace_back("X-Accel-Buffering", "no");  // proxies: pass events on as they come
  out_->start_stream(200, std::move(headers));
  out_->write(sse_event("message_start", {{"type", "message_start"}, {"message", message_start_json(ids_)}}));
}

void MessagesStreamRelay::finish(const RunOutcome& outcome, std::string_view stop_reason) {
  if (!any_text_ && !outcome.answer.empty()) send_text(outcome.answer);  // nothing was streamed
  close_text();
  std::string events;
  for (const ToolCall& call : outcome.client_calls) {
    const int index = next_index_++;
    nlohmann::json block = tool_use_json(call);
    std::string arguments = block["input"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    block["input"] = nlohmann::json::object();
    events.append(sse_event("content_block_start", {{"type", "content_block_start"}, {"index", index}, {"content_block", block}}));
    events.append(sse_event("content_block_delta",
                            {{"type", "content_block_delta"},
                             {"index", index},
                             {"delta", {{"type", "input_json_delta"}, {"partial_json", std::move(arguments)}}}}));
    events.append(sse_event("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
  }
  events.append(sse_event("message_delta", {{"type", "message_delta"},
                                            {"delta", {{"stop_reason", stop_reason}, {"stop_sequence", nullptr}}},
                                            {"usage", anthropic_usage_json(outcome.usage)}}));
  events.append(sse_event("message_stop", {{"type", "message_stop"}}));
  out_->write(std::move(events));
  out_->end();
}

void MessagesStreamRelay::fail(const AnthropicError& error) {
  out_->write(anthropic_error_event(error));
  out_->end();
}

void MessagesStreamRelay::on_process_prompts(RunContext&, ModelRequest&) {
  new_round_ = true;
  round_text_.clear();
  replaying_ = false;
}

void MessagesStreamRelay::on_model_delta(RunContext&, std::string_view text) {
  if (replaying_) {  // skip what the first attempt already sent
    const std::string_view before = std::string_view(round_text_).substr(replayed_);
    size_t same = 0;
    while (same < text.size() && same < before.size() && text[same] == before[same]) ++same;
    replayed_ += same;
    text.remove_prefix(same);
    if (text.empty()) return;
    replaying_ = false;  // past the old text, or away from it: from here on it is new
    round_text_.resize(replayed_);
  }
  round_text_.append(text);
  send_text(text);
}

void MessagesStreamRelay::on_model_retry(RunContext&, int, const Status&, int64_t) {
  replaying_ = true;
  replayed_ = 0;
}

void MessagesStreamRelay::on_tool_call(RunContext&, const ToolCall&) {
  if (tool_pings_) out_->write(sse_event("ping", {{"type", "ping"}}));
}

void MessagesStreamRelay::send_text(std::string_view text) {
  if (text.empty()) return;
  std::string events;
  if (!text_open_) {
    text_open_ = true;
    events.append(sse_event("content_block_start", {{"type", "content_block_start"},
                                                    {"index", next_index_},
                                                    {"content_block", {{"type", "text"}, {"text", ""}}}}));
  }
  std::string piece;
  if (new_round_ && any_text_) piece = "\n\n";
  piece.append(text);
  new_round_ = false;
  any_text_ = true;
  events.append(sse_event("content_block_delta", {{"type", "content_block_delta"},
                                                  {"index", next_index_},
                                                  {"delta", {{"type", "text_delta"}, {"text", std::move(piece)}}}}));
  out_->write(std::move(events));
}

void MessagesStreamRelay::close_text() {
  if (!text_open_) return;
  text_open_ = false;
  out_->write(sse_event("content_block_stop", {{"type", "content_block_stop"}, {"index", next_index_}}));
  ++next_index_;
}

}  // namespace keel::api
