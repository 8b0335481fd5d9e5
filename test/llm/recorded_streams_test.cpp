// Real provider traffic replayed through keel's clients: every recording under
// test/llm/recorded_streams is served by the mock server, read by the client its sidecar names
// (OpenAI-compatible or Anthropic), and the reply must be exactly the one the sidecar expects:
// visible text, reasoning, tool calls, finish reason and token usage, or a failure naming the
// provider's error. Streams are read streamed; a whole JSON body is read both plain and as the
// answer to a streaming request (a server that ignored "stream"), and the two readings must agree.
// A stream is also replayed cut into pieces that ignore event boundaries.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "keel/anthropic_client.hpp"
#include "keel/openai_client.hpp"
#include "llm/anthropic_test_support.hpp"
#include "llm/client_test_support.hpp"
#include "llm/recorded_stream_corpus.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

const std::vector<RecordedStream>& corpus() {
  static const std::vector<RecordedStream> all = load_recorded_streams();
  return all;
}

std::vector<std::string> corpus_ids() {
  std::vector<std::string> ids;
  for (const RecordedStream& r : corpus()) ids.push_back(r.id);
  return ids;
}

const RecordedStream& recording(const std::string& id) {
  for (const RecordedStream& r : corpus()) {
    if (r.id == id) return r;
  }
  static const RecordedStream none;
  return none;
}

// One call of the recording's client against a server that replays it once; the text and
// reasoning its callbacks received are returned too.
struct Replayed {
  Result<ModelReply> reply = Status::Internal("not run");
  std::string streamed_text;
  std::string streamed_reasoning;
};

Replayed replay(const RecordedStream& r, bool stream, size_t cut_bytes = 0) {
  MockLlmServer server;
  server.push(recorded_response(r, cut_bytes));
  Replayed out;
  CallOptions options;
  options.stream = stream;
  options.on_text = [&](std::string_view t) { out.streamed_text += t; };
  options.on_reasoning = [&](std::string_view t) { out.streamed_reasoning += t; };
  if (r.anthropic()) {
    AnthropicOptions o = anthropic_fast_options(server);
    o.retry.max_attempts = 1;
    out.reply = make_anthropic_client(o)->complete(Conversation().request(), options);
  } else {
    OpenAiOptions o = fast_options(server);
    o.retry.max_attempts = 1;
    out.reply = make_openai_client(o)->complete(Conversation().request(), options);
  }
  return out;
}

void expect_reply(const RecordedStream& r, const Replayed& got, bool stream) {
  const json& want = r.expect();
  if (r.expects_error()) {
    ASSERT_FALSE(got.reply.ok()) << "a failure naming: " << want["error"].get<std::string>();
    EXPECT_NE(got.reply.status().message().find(want["error"].get<std::string>()), std::string::npos)
        << got.reply.status().to_string();
    return;
  }
  ASSERT_TRUE(got.reply.ok()) << got.reply.status().to_string();
  const ModelReply& reply = *got.reply;
  EXPECT_EQ(reply.text, want.value("text", ""));
  EXPECT_EQ(reply.reasoning, want.value("reasoning", ""));
  EXPECT_EQ(reply.finish_reason, want.value("finish_reason", ""));
  const json calls = want.value("calls", json::array());
  ASSERT_EQ(reply.tool_calls.size(), calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(reply.tool_calls[i].name, calls[i].value("name", "")) << "call " << i;
    EXPECT_EQ(reply.tool_calls[i].arguments, calls[i].value("arguments", "")) << "call " << i;
  }
  if (want.contains("usage")) {
    EXPECT_EQ(reply.usage.prompt_tokens, want["usage"].value("prompt_tokens", int64_t{0}));
    EXPECT_EQ(reply.usage.completion_tokens, want["usage"].value("completion_tokens", int64_t{0}));
  }
  if (stream) {
    // What the caller saw while it arrived is the answer, no more and no less.
    EXPECT_EQ(got.streamed_text, reply.text);
    EXPECT_EQ(got.streamed_reasoning, reply.reasoning);
  }
}

class RecordedStreams : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedStreams, ReadExactly) {
  const RecordedStream& r = recording(GetParam());
  ASSERT_FALSE(r.sidecar.is_discarded()) << r.id << ".json is not JSON";
  ASSERT_TRUE(r.sidecar.is_object() && r.sidecar.contains("expect")) << r.id << ".json has no expect";
  ASSERT_FALSE(r.body.empty()) << r.id << ".txt is missing or empty";
  ASSERT_FALSE(r.sidecar.value("cite", "").empty()) << r.id << " cites no source";
  {
    SCOPED_TRACE("streamed request");
    expect_reply(r, replay(r, /*stream=*/true), /*stream=*/true);
  }
  if (!r.stream()) {
    SCOPED_TRACE("plain request");
    expect_reply(r, replay(r, /*stream=*/false), /*stream=*/false);
  } else {
    SCOPED_TRACE("stream cut every 61 bytes");
    expect_reply(r, replay(r, /*stream=*/true, /*cut_bytes=*/61), /*stream=*/true);
  }
}

INSTANTIATE_TEST_SUITE_P(Recorded, RecordedStreams, ::testing::ValuesIn(corpus_ids()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return recorded_test_name(info.param);
                         });

TEST(RecordedStreamsCorpus, CoversTheProviders) {
  std::vector<std::string> providers;
  for (const RecordedStream& r : corpus()) {
    const std::string provider = r.id.substr(0, r.id.find('/'));
    if (providers.empty() || providers.back() != provider) providers.push_back(provider);
  }
  for (const char* want : {"anthropic", "openai", "mistral", "groq", "deepseek", "xai", "openrouter", "gemini"}) {
    EXPECT_NE(std::find(providers.begin(), providers.end(), want), providers.end()) << want;
  }
  EXPECT_GE(corpus().size(), 30u);
}

}  // namespace
}  // namespace keel::testing
