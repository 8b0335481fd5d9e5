// The two readings of a provider's reply agree: most streamed chunks and completions are read in
// place from their text, the rest through a JSON document (the reference). Every recorded
// OpenAI-compatible reply of the corpus (test/llm/recorded_streams, real provider traffic) and a set
// of unusual shapes are read both ways; callbacks, statuses and replies must match.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm/openai_wire.hpp"
#include "llm/stream_assembler.hpp"
#include "net/sse_parser.hpp"
#include "recorded_stream_corpus.hpp"

namespace keel::detail {
namespace {

// What an assembler did with a sequence of events, in a form two readings can be compared by.
struct Reading {
  std::vector<std::string> seen;  // callbacks and statuses, in order
  ModelReply reply;
  bool done = false;
  bool finished = false;
  bool delivered = false;
  long error_status = 0;
};

Reading read_events(const std::vector<std::string>& events, bool documents_only) {
  Reading r;
  CallOptions options;
  options.on_text = [&](std::string_view t) { r.seen.push_back("text:" + std::string(t)); };
  options.on_reasoning = [&](std::string_view t) { r.seen.push_back("reasoning:" + std::string(t)); };
  StreamAssembler a(options, documents_only);
  for (const std::string& data : events) {
    const Status s = a.on_data(data);
    r.seen.push_back("status:" + s.to_string());
    if (!s.ok()) break;
  }
  r.done = a.done();
  r.finished = a.finished();
  r.delivered = a.delivered();
  r.error_status = a.error_http_status();
  r.reply = a.take_reply();
  return r;
}

void expect_same_reply(const ModelReply& view, const ModelReply& document) {
  EXPECT_EQ(view.text, document.text);
  EXPECT_EQ(view.reasoning, document.reasoning);
  EXPECT_EQ(view.model, document.model);
  EXPECT_EQ(view.finish_reason, document.finish_reason);
  EXPECT_EQ(view.usage.prompt_tokens, document.usage.prompt_tokens);
  EXPECT_EQ(view.usage.completion_tokens, document.usage.completion_tokens);
  EXPECT_EQ(view.usage.cached_prompt_tokens, document.usage.cached_prompt_tokens);
  ASSERT_EQ(view.tool_calls.size(), document.tool_calls.size());
  for (size_t i = 0; i < view.tool_calls.size(); ++i) {
    EXPECT_EQ(view.tool_calls[i].id, document.tool_calls[i].id) << i;
    EXPECT_EQ(view.tool_calls[i].name, document.tool_calls[i].name) << i;
    EXPECT_EQ(view.tool_calls[i].arguments, document.tool_calls[i].arguments) << i;
  }
}

void expect_same(const Reading& view, const Reading& document, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(view.seen, document.seen);
  expect_same_reply(view.reply, document.reply);
  EXPECT_EQ(view.done, document.done);
  EXPECT_EQ(view.finished, document.finished);
  EXPECT_EQ(view.delivered, document.delivered);
  EXPECT_EQ(view.error_status, document.error_status);
}

void expect_same_completion(const std::string& body) {
  SCOPED_TRACE(body.substr(0, 300));
  const Result<ModelReply> view = parse_chat_completion(body);
  const Result<ModelReply> document = parse_chat_completion_document(body);
  ASSERT_EQ(view.ok(), document.ok()) << (view.ok() ? document.status() : view.status()).to_string();
  if (!view.ok()) {
    EXPECT_EQ(view.status().to_string(), document.status().to_string());
    return;
  }
  expect_same_reply(*view, *document);
}

TEST(InPlaceReadingTest, EveryRecordedOpenAiStreamReadsTheSameBothWays) {
  int streams = 0;
  for (const testing::RecordedStream& r : testing::load_recorded_streams()) {
    if (r.sidecar.is_null() || r.anthropic() || !r.stream()) continue;
    std::vector<std::string> events;
    SseParser parser;
    std::string body;
    for (const std::string& chunk : testing::recorded_sse_chunks(r)) body += chunk;
    auto keep = [&](const SseEvent& e) {
      events.push_back(e.data);
      return true;
    };
    parser.feed(body, keep);
    parser.finish(keep);
    ASSERT_FALSE(events.empty()) << r.id;
    expect_same(read_events(events, false), read_events(events, true), r.id);
    ++streams;
  }
  EXPECT_GE(streams, 20);  // the corpus's OpenAI-compatible streams were all found
}

// Shapes at the edge of what the in-place reading takes, each after an ordinary opening chunk and
// before ordinary tool-call chunks, so state carried between chunks is compared too.
TEST(InPlaceReadingTest, UnusualChunksReadTheSameBothWays) {
  const std::string open =
      R"({"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})";
  const std::string call =
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1","function":{"name":"f","arguments":"{\"a\":"}}]}}]})";
  const std::string more = R"({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]})";
  const std::vector<std::string> shapes = {
      R"({"choices":[{"index":0,"delta":{"content":"caf\u00e9 \"q\" \ud83d\ude00 \/ \n"}}]})",
      R"({"choices":[{"index":0,"delta":{"content":null,"refusal":"I can't"}}]})",
      R"({"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"}]}}]})",
      R"({"choices":[{"index":0,"delta":{"reasoning_content":"r1","reasoning":"r2"}}]})",
      R"({"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"r2"}}]})",
      R"({"choices":[{"index":1,"delta":{"content":"second choice"}}]})",
      R"({"choices":[{"index":0.0,"delta":{"content":"fractional index"}}]})",
      R"({"choices":[{"index":"1","delta":{"content":"string index"}}]})",
      R"({"choices":[{"index":0,"delta":{"content":"dup"},"delta":{"content":"last wins"}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1.0,"id":"t2","function":{"name":"g"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":"2","id":"t3","function":{"name":"h"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"t4","function":{"name":"i","arguments":{"k":[1,2]}}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":null}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":99999999999999999999,"function":{"name":"big"}}]}}]})",
      R"({"choices":[{"index":0,"delta":{"tool_calls":[null,7,{"index":-1,"id":"neg"}]}}]})",
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null})",
      R"({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":3}}})",
      R"({"choices":[],"usage":{"prompt_tokens":9.5,"completion_tokens":"4","prompt_tokens_details":{"cached_tokens":2.0}}})",
      R"({"choices":[],"usage":{"completion_tokens":-3,"prompt_tokens_details":null}})",
      R"({"choices":[],"usage":{"prompt_tokens_details":{"cached_tokens":18446744073709551615}}})",
      R"({"choices":[],"usage":"not an object","x_groq":{"usage":{"prompt_tokens":1}}})",
      R"({"choices":[],"x_groq":{"usage":{"prompt_tokens":5,"completion_tokens":2}}})",
      R"({"choices":[{"index":1e300,"delta":{"content":"huge index"}}],"usage":{"prompt_tokens":1e300}})",
      R"({"choices":[{"index":18446744073709551615,"delta":{"content":"unsigned index"}}]})",
      R"({"choices":[{"index":0,"delta":{"content":"x"}}],"error":null})",
      R"({"error":{"message":"overloaded","code":529}})",
      R"({"error":"plain text error","status_code":400})",
      R"({"choices":"not an array","model":"late"})",
      R"({"choices":[{"delta":"not an object","finish_reason":7}]})",
      R"([1,2,3])",
      R"("just a string")",
      R"({"choices":[{"index":0,"delta":{"content":"unterminated)",
      "  [DONE]  ",
      "",
  };
  for (const std::string& shape : shapes) {
    const std::vector<std::string> events = {open, shape, call, more, shape};
    expect_same(read_events(events, false), read_events(events, true), shape);
  }
}

TEST(InPlaceReadingTest, EveryRecordedOpenAiCompletionReadsTheSameBothWays) {
  int bodies = 0;
  for (const testing::RecordedStream& r : testing::load_recorded_streams()) {
    if (r.sidecar.is_null() || r.anthropic() || r.stream()) continue;
    expect_same_completion(r.body);
    ++bodies;
  }
  EXPECT_GE(bodies, 3);  // the corpus's non-streamed OpenAI-compatible replies were all found
}

TEST(InPlaceReadingTest, UnusualCompletionsReadTheSameBothWays) {
  const std::string usual =
      R"({"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant",)"
      R"("content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},)"
      R"("finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}})";
  const std::vector<std::string> bodies = {
      usual,
      R"({"model":"m","choices":[{"message":{"content":"caf\u00e9 \ud83d\ude00 \/","reasoning_content":"r"},"finish_reason":"stop"}]})",
      R"({"choices":[{"message":{"content":"","refusal":"I can't help with that"}}]})",
      R"({"choices":[{"message":{"content":null,"refusal":null,"reasoning":"only reasoning"}}]})",
      R"({"choices":[{"message":{"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"x"}]}}]})",
      R"({"choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":{"k":[1,2]}}}]}}]})",
      R"({"choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f","arguments":""}},null,7,)"
      R"({"id":"d","function":{"name":"g"}},{"id":"e"},{"id":"h","function":"no"}]}}]})",
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1.9,"completion_tokens":"2"}})",
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":99999999999999999999}})",
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-1e300,"completion_tokens":18446744073709551615}})",
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens_details":{"cached_tokens":2.0}}})",
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens_details":{"cached_tokens":3}}})",
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens_details":{"cached_tokens":18446744073709551615}}})",
      R"({"choices":[{"message":{"content":"x"}}],"usage":"not an object","error":null})",
      R"({"choices":[{"message":{"content":"dup"},"message":{"content":"last wins"}}]})",
      R"({"error":{"message":"rate limited","code":429}})",
      R"({"error":"plain"})",
      R"({"choices":[]})",
      R"({"choices":[7]})",
      R"({"choices":[{"finish_reason":"stop"}]})",
      R"({"choices":{"message":{}}})",
      R"([{"choices":[]}])",
      R"({"choices":[{"message":{"content":"cut)",
      "",
  };
  for (const std::string& body : bodies) expect_same_completion(body);
}

}  // namespace
}  // namespace keel::detail
