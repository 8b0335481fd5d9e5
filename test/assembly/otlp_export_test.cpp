// OpenTelemetry export: the OTEL_* variables, spans named and attributed per the GenAI semantic
// conventions, and whole `keel run` processes sending a multi-round run with a tool call to a
// collector stand-in (an HTTP server on 127.0.0.1 that records what it receives) — and not being
// slowed or failed by a collector that is down or never answers.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "assembly/otlp_exporter.hpp"
#include "assembly/otlp_json.hpp"
#include "runtime/genai_names.hpp"
#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/static_http_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using Env = std::map<std::string, std::string>;

assembly::OtlpExportSettings settings_of(const Env& env) {
  return assembly::otlp_settings_from_env([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(OtlpSettingsTest, EndpointsHeadersTimeoutAndResourceFollowTheVariables) {
  assembly::OtlpExportSettings s = settings_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318/"},
                                                {"OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=a%20b, tenant = t1,broken"},
                                                {"OTEL_EXPORTER_OTLP_TIMEOUT", "2500"},
                                                {"OTEL_SERVICE_NAME", "my-agent"},
                                                {"OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test,team=x"}});
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.traces_url, "http://127.0.0.1:4318/v1/traces");
  EXPECT_EQ(s.headers, (std::vector<std::string>{"x-api-key: a b", "tenant: t1"}));
  EXPECT_EQ(s.timeout_ms, 2500);
  EXPECT_EQ(s.encoding.resource.service_name, "my-agent");
  ASSERT_EQ(s.encoding.resource.attributes.size(), 2u);
  EXPECT_EQ(s.encoding.resource.attributes[0].first, "deployment.environment");
  EXPECT_FALSE(s.encoding.capture_content);
  EXPECT_TRUE(s.warnings.empty());

  // The traces variables win, and the traces endpoint is used as it is.
  s = settings_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"},
                   {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:9999/custom"},
                   {"OTEL_EXPORTER_OTLP_TIMEOUT", "100"},
                   {"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "200"},
                   {"OTEL_EXPORTER_OTLP_HEADERS", "Tenant=general,x-other=1"},
                   {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "tenant=traces"}});
  EXPECT_EQ(s.traces_url, "http://b:9999/custom");
  EXPECT_EQ(s.timeout_ms, 200);
  EXPECT_EQ(s.headers, (std::vector<std::string>{"tenant: traces", "x-other: 1"}));
}

TEST(OtlpSettingsTest, DisabledNoneGrpcAndNothingSet) {
  EXPECT_FALSE(settings_of({}).enabled);
  EXPECT_FALSE(settings_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318"}, {"OTEL_SDK_DISABLED", "true"}}).enabled);
  EXPECT_FALSE(settings_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4318"}, {"OTEL_TRACES_EXPORTER", "none"}}).enabled);
  assembly::OtlpExportSettings grpc =
      settings_of({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://x:4317"}, {"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}});
  EXPECT_FALSE(grpc.enabled);
  ASSERT_EQ(grpc.warnings.size(), 1u);
  EXPECT_NE(grpc.warnings[0].find("gRPC is not supported"), std::string::npos);
  assembly::OtlpExportSettings file = settings_of({{"KEEL_OTLP_FILE", "/tmp/t.jsonl"}});
  EXPECT_TRUE(file.enabled);
  EXPECT_TRUE(file.traces_url.empty());
  EXPECT_TRUE(settings_of({{"OTEL_TRACES_EXPORTER", "console"}}).console);
}

TEST(GenAiNamesTest, BackendsAreNamedAsTheConventionsSay) {
  json openai = detail::backend_attributes("openai-compatible https://api.openai.com/v1 (gpt-4o)");
  EXPECT_EQ(openai, json::parse(R"({"gen_ai.provider.name":"openai","gen_ai.request.model":"gpt-4o",
                                    "server.address":"api.openai.com","server.port":443})"));
  json local = detail::backend_attributes("openai-compatible http://127.0.0.1:11434/v1 (qwen2.5:7b)");
  EXPECT_EQ(local["gen_ai.provider.name"], "openai_compatible");
  EXPECT_EQ(local["server.port"], 11434);
  EXPECT_EQ(local["gen_ai.request.model"], "qwen2.5:7b");
  EXPECT_EQ(detail::backend_attributes("openai-compatible https://api.groq.com/openai/v1 (llama)")["gen_ai.provider.name"],
            "groq");
  EXPECT_EQ(detail::backend_attributes("rules (deterministic, no model)")["gen_ai.provider.name"], "keel.rules");
  EXPECT_EQ(detail::chat_span_name("gpt-4o"), "chat gpt-4o");
  EXPECT_EQ(detail::tool_span_name("fs_read"), "execute_tool fs_read");
}

// Stored span records as a run leaves them, exported.
TEST(OtlpJsonTest, SpansCarryTheGenAiNamesKindsAndAttributes) {
  std::vector<SpanRecord> spans = {
      {"r1", "run-r1", "", "s1", "r1", "run", "invoke_agent keel", 0, 900, "ok",
       R"({"rounds":1,"prompt_tokens":30,"completion_tokens":9})"},
      {"r1", "model-1", "run-r1", "s1", "r1", "model", "chat gpt-4o", 10, 100, "ok",
       R"({"gen_ai.provider.name":"openai","gen_ai.request.model":"gpt-4o","round":1,"prompt_tokens":30,
           "completion_tokens":9,"finish_reason":"tool_calls","gen_ai.output.messages":"[secret]"})"},
      {"r1", "tool-2", "run-r1", "s1", "r1", "tool", "execute_tool fs_read", 200, 5, "error",
       R"({"call_id":"c1","bytes":3,"gen_ai.tool.call.arguments":"{\"path\":\"x\"}"})"},
  };
  auto attributes = [](const json& span) {
    std::map<std::string, json> out;
    for (const auto& a : span["attributes"]) out[a["key"]] = a["value"];
    return out;
  };
  json body = assembly::spans_to_otlp(spans);
  const json& out = body["resourceSpans"][0]["scopeSpans"][0]["spans"];
  ASSERT_EQ(out.size(), 3u);
  auto run = attributes(out[0]), chat = attributes(out[1]), tool = attributes(out[2]);
  EXPECT_EQ(out[0]["kind"], 1);
  EXPECT_EQ(out[1]["kind"], 3);  // CLIENT
  EXPECT_EQ(out[1]["parentSpanId"], out[0]["spanId"]);
  EXPECT_EQ(run["gen_ai.operation.name"]["stringValue"], "invoke_agent");
  EXPECT_EQ(run["gen_ai.agent.name"]["stringValue"], "keel");
  EXPECT_EQ(run["gen_ai.conversation.id"]["stringValue"], "s1");
  EXPECT_EQ(run["gen_ai.usage.input_tokens"]["intValue"], "30");
  EXPECT_EQ(chat["gen_ai.operation.name"]["stringValue"], "chat");
  EXPECT_EQ(chat["gen_ai.provider.name"]["stringValue"], "openai");
  EXPECT_EQ(chat["gen_ai.usage.output_tokens"]["intValue"], "9");
  EXPECT_EQ(chat["gen_ai.response.finish_reasons"]["arrayValue"]["values"][0]["stringValue"], "tool_calls");
  EXPECT_EQ(chat["keel.round"]["intValue"], "1");
  EXPECT_EQ(chat.count("gen_ai.output.messages"), 0u) << "contents stay out by default";
  EXPECT_EQ(tool["gen_ai.tool.name"]["stringValue"], "fs_read");
  EXPECT_EQ(tool["gen_ai.tool.call.id"]["stringValue"], "c1");
  EXPECT_EQ(tool["gen_ai.tool.type"]["stringValue"], "function");
  EXPECT_EQ(tool["error.type"]["stringValue"], "error");
  EXPECT_EQ(out[2]["status"]["code"], 2);
  EXPECT_EQ(tool.count("gen_ai.tool.call.arguments"), 0u);

  assembly::OtlpEncoding capture;
  capture.capture_content = true;
  json captured = assembly::spans_to_otlp(spans, capture);
  auto chat2 = attributes(captured["resourceSpans"][0]["scopeSpans"][0]["spans"][1]);
  EXPECT_EQ(chat2["gen_ai.output.messages"]["stringValue"], "[secret]");
}

// Whole `keel run` processes with their store, against the mock model.
class OtlpRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(model_.running());
    ASSERT_TRUE(collector_.running());
    collector_.route("/v1/traces", testing::text_page("application/json", "{}"));
  }

  // A two-round run: one fs_read call, then an answer.
  testing::CliRun run(Env env, bool ephemeral = false) {
    ws_.write("notes.txt", "hello\n");
    model_.push(testing::mock_tool_calls({ToolCall{"call_1", "fs_read", R"({"path":"notes.txt"})"}}));
    model_.push(testing::mock_text("It says hello."));
    testing::CliOptions options;
    options.cwd = ws_.path().string();
    options.env = std::move(env);
    options.env["KEEL_HOME"] = home_.path().string();
    options.env["XDG_CONFIG_HOME"] = (home_.path() / "config").string();
    std::vector<std::string> args = {"run", "--base-url", model_.base_url(), "--model", "mock", "--no-stream"};
    if (ephemeral) args.push_back("--ephemeral");
    args.push_back("read notes.txt");
    return testing::run_cli(KEEL_BINARY, args, options);
  }

  std::vector<testing::RecordedHttpRequest> exports() const {
    std::vector<testing::RecordedHttpRequest> out;
    for (const auto& r : collector_.requests()) {
      if (r.target == "/v1/traces") out.push_back(r);
    }
    return out;
  }

  testing::MockLlmServer model_;
  testing::StaticHttpServer collector_;
  testing::TempDir ws_, home_;
};

TEST_F(OtlpRunTest, TheCollectorReceivesTheRunAsGenAiSpans) {
  testing::CliRun r = run({{"OTEL_EXPORTER_OTLP_ENDPOINT", collector_.url("")},
                           {"OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20t0k"},
                           {"OTEL_SERVICE_NAME", "keel-under-test"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "It says hello.\n");
  std::vector<testing::RecordedHttpRequest> got = exports();
  ASSERT_EQ(got.size(), 1u) << r.err;
  EXPECT_EQ(got[0].method, "POST");
  EXPECT_EQ(got[0].headers["content-type"], "application/json");
  EXPECT_EQ(got[0].headers["authorization"], "Bearer t0k");
  json body = json::parse(got[0].body);
  const json& resource = body["resourceSpans"][0]["resource"]["attributes"];
  EXPECT_EQ(resource[0], json::parse(R"({"key":"service.name","value":{"stringValue":"keel-under-test"}})"));
  const json& spans = body["resourceSpans"][0]["scopeSpans"][0]["spans"];
  std::map<std::string, json> by_name;
  std::multiset<std::string> names;
  for (const json& s : spans) {
    by_name[s["name"]] = s;
    names.insert(s["name"].get<std::string>());
  }
  EXPECT_EQ(names, (std::multiset<std::string>{"invoke_agent keel", "chat mock", "chat mock", "execute_tool fs_read"}))
      << spans.dump(1);
  const json& root = by_name["invoke_agent keel"];
  EXPECT_FALSE(root.contains("parentSpanId"));
  for (const json& s : spans) {
    EXPECT_EQ(s["traceId"], root["traceId"]);
    if (s["name"] != "invoke_agent keel") {
      EXPECT_EQ(s["parentSpanId"], root["spanId"]) << s["name"];
    }
  }
  auto attr = [](const json& span, const std::string& key) -> json {
    for (const auto& a : span["attributes"]) {
      if (a["key"] == key) return a["value"];
    }
    return nullptr;
  };
  const json& chat = by_name["chat mock"];
  EXPECT_EQ(chat["kind"], 3);
  EXPECT_EQ(attr(chat, "gen_ai.operation.name")["stringValue"], "chat");
  EXPECT_EQ(attr(chat, "gen_ai.provider.name")["stringValue"], "openai_compatible");
  EXPECT_EQ(attr(chat, "gen_ai.request.model")["stringValue"], "mock");
  EXPECT_EQ(attr(chat, "server.address")["stringValue"], "127.0.0.1");
  EXPECT_EQ(attr(chat, "gen_ai.usage.input_tokens")["intValue"], "10");  // the mock's usage
  EXPECT_EQ(attr(chat, "gen_ai.usage.output_tokens")["intValue"], "5");
  EXPECT_TRUE(attr(chat, "gen_ai.conversation.id")["stringValue"].get<std::string>().starts_with("s_"));
  EXPECT_TRUE(attr(chat, "gen_ai.output.messages").is_null()) << "no contents by default";
  const json& tool = by_name["execute_tool fs_read"];
  EXPECT_EQ(tool["kind"], 1);
  EXPECT_EQ(attr(tool, "gen_ai.tool.name")["stringValue"], "fs_read");
  EXPECT_EQ(attr(tool, "gen_ai.tool.call.id")["stringValue"], "call_1");
  EXPECT_EQ(attr(root, "gen_ai.operation.name")["stringValue"], "invoke_agent");
  EXPECT_EQ(attr(root, "gen_ai.usage.input_tokens")["intValue"], "20");
  EXPECT_EQ(root["status"]["code"], 1);
}

TEST_F(OtlpRunTest, ContentsAreSentOnlyWhenAskedFor) {
  testing::CliRun r = run({{"OTEL_EXPORTER_OTLP_ENDPOINT", collector_.url("")},
                           {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<testing::RecordedHttpRequest> got = exports();
  ASSERT_EQ(got.size(), 1u);
  const std::string& body = got[0].body;
  EXPECT_NE(body.find("gen_ai.output.messages"), std::string::npos);
  EXPECT_NE(body.find("It says hello."), std::string::npos);
  EXPECT_NE(body.find("gen_ai.tool.call.result"), std::string::npos);
}

TEST_F(OtlpRunTest, DisabledOrNoneSendsNothing) {
  for (const Env& env : {Env{{"OTEL_EXPORTER_OTLP_ENDPOINT", collector_.url("")}, {"OTEL_SDK_DISABLED", "true"}},
                         Env{{"OTEL_EXPORTER_OTLP_ENDPOINT", collector_.url("")}, {"OTEL_TRACES_EXPORTER", "none"}}}) {
    testing::CliRun r = run(env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("telemetry"), std::string::npos) << r.err;
  }
  EXPECT_EQ(collector_.request_count(), 0u);
}

// A collector that is down (a closed port) or never answers: the run answers as usual, with one
// warning at most, and within a small bound of a run without export (generous, not a timing test:
// the figures are in the closing note of the work).
TEST_F(OtlpRunTest, ACollectorThatIsDownOrSilentNeitherFailsNorHoldsTheRun) {
  testing::CliRun plain = run({});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;

  int closed_port = 0;
  {
    testing::StaticHttpServer gone;
    closed_port = gone.port();
  }
  testing::CliRun down = run({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + std::to_string(closed_port)}});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  EXPECT_EQ(down.out, "It says hello.\n");
  EXPECT_NE(down.err.find("keel: telemetry: cannot export traces"), std::string::npos) << down.err;

  testing::StaticHttpServer silent;
  silent.route("/v1/traces", testing::with_delay(testing::text_page("application/json", "{}"), 60000));
  testing::CliRun slow = run({{"OTEL_EXPORTER_OTLP_ENDPOINT", silent.url("")}, {"OTEL_EXPORTER_OTLP_TIMEOUT", "30000"}});
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  EXPECT_EQ(slow.out, "It says hello.\n");
  EXPECT_EQ(silent.request_count(), 1u);
  EXPECT_NE(slow.err.find("not sent within 500 ms of exit"), std::string::npos) << slow.err;
  // At most the exit wait (0.5 s) more than the plain run, whatever the export timeout says.
  EXPECT_LT(slow.elapsed_ms, plain.elapsed_ms + 5000) << "plain " << plain.elapsed_ms << " ms";
  EXPECT_LT(down.elapsed_ms, plain.elapsed_ms + 5000) << "plain " << plain.elapsed_ms << " ms";
}

// Spans come from the store: a run without one says that nothing is exported rather than staying silent.
TEST_F(OtlpRunTest, AnEphemeralRunSaysItExportsNothing) {
  testing::CliRun r = run({{"OTEL_EXPORTER_OTLP_ENDPOINT", collector_.url("")}}, /*ephemeral=*/true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "It says hello.\n");
  EXPECT_NE(r.err.find("without a store (--ephemeral) keeps no trace"), std::string::npos) << r.err;
  EXPECT_EQ(collector_.request_count(), 0u);
}

TEST_F(OtlpRunTest, AFileGetsOneExportRequestPerRun) {
  const std::string file = (home_.path() / "traces.jsonl").string();
  testing::CliRun r = run({{"KEEL_OTLP_FILE", file}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = testing::lines_of(testing::read_file(file));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["resourceSpans"][0]["scopeSpans"][0]["spans"].size(), 4u);
  EXPECT_EQ(collector_.request_count(), 0u);
}

}  // namespace
}  // namespace keel
