// End to end with the in-process backend: `keel run --model gguf:FILE` on a random-weight model
// whose calls the grammar keeps schema-valid drives a whole run to an answer, with the prompt
// prefix reused between rounds; lanes fall back when the model file is missing or broken.
#include <gtest/gtest.h>

#if KEEL_HAS_LLAMA
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/gguf_fixture.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

std::vector<json> events_of(const std::string& out) {
  std::vector<json> events;
  for (const std::string& line : testing::lines_of(out)) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) events.push_back(std::move(j));
  }
  return events;
}

std::string write_model(testing::TempDir& dir) {
  testing::GgufFixtureOptions o;
  o.chat_template = "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}";
  std::string path = (dir.path() / "tiny.gguf").string();
  EXPECT_EQ(testing::write_random_gguf(std::string(KEEL_LLAMA_MODELS_DIR) + "/ggml-vocab-llama-bpe.gguf", path, o), "");
  return path;
}

TEST(LocalCliTest, ARandomModelUnderTheGrammarDrivesAWholeRun) {
  testing::TempDir ws;
  std::string model = write_model(ws);
  ws.write("notes.txt", "alpha\n");
  ws.write("keel.yaml",
           "max_rounds: 2\n"
           "tools: {shell: {enabled: false}, web: {enabled: false}}\n"
           "local: {tool_choice: required, max_calls_per_reply: 1, max_string_chars: 24, temperature: 0, threads: 1,\n"
           "        context_size: 8192, max_tokens: 400}\n");
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.timeout_ms = 120000;
  testing::CliRun run = testing::run_cli(
      KEEL_BINARY, {"run", "--ephemeral", "--json", "--model", "gguf:" + model, "--workspace", ws.path().string(),
                    "look at notes.txt"},
      opts);
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out.substr(0, 4000);
  std::vector<json> events = events_of(run.out);
  std::vector<json> replies;
  int calls = 0;
  for (const json& e : events) {
    if (e["type"] == "model_reply") replies.push_back(e);
    if (e["type"] == "tool_call") {
      ++calls;
      EXPECT_TRUE(e["arguments"].is_object()) << e.dump();  // parsed: the grammar kept it valid JSON
    }
  }
  ASSERT_EQ(replies.size(), 3u) << run.out.substr(0, 4000);  // two tool rounds and the final answer
  EXPECT_FALSE(replies[0]["tool_calls"].empty());
  EXPECT_FALSE(replies[1]["tool_calls"].empty());
  EXPECT_GE(calls, 2);
  // Rounds 2 and 3 evaluate only what follows the prefix already in the cache.
  for (size_t i = 1; i < replies.size(); ++i) {
    const json& u = replies[i]["usage"];
    ASSERT_TRUE(u.contains("cached_prompt_tokens")) << u.dump();
    EXPECT_GT(u["cached_prompt_tokens"].get<int64_t>(), replies[i - 1]["usage"]["prompt_tokens"].get<int64_t>() / 2);
    EXPECT_EQ(u["prompt_tokens_evaluated"].get<int64_t>(),
              u["prompt_tokens"].get<int64_t>() - u["cached_prompt_tokens"].get<int64_t>());
  }
  const json& last = events.back();
  EXPECT_EQ(last["type"], "run_finished");
  EXPECT_FALSE(last["answer"].get<std::string>().empty());
}

// A GGUF without a chat template runs in a built-in format, and the run says so in a notice event.
TEST(LocalCliTest, AModelWithoutATemplateSaysItsPromptsUseABuiltInFormat) {
  testing::TempDir ws;
  testing::GgufFixtureOptions o;  // no chat_template, and the llama-bpe vocabulary file carries none
  std::string model = (ws.path() / "bare.gguf").string();
  ASSERT_EQ(testing::write_random_gguf(std::string(KEEL_LLAMA_MODELS_DIR) + "/ggml-vocab-llama-bpe.gguf", model, o), "");
  ws.write("keel.yaml", "max_rounds: 1\ntools: {shell: {enabled: false}, web: {enabled: false}}\n"
                        "local: {temperature: 0, threads: 1, context_size: 8192, max_tokens: 4}\n");
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.timeout_ms = 120000;
  testing::CliRun run = testing::run_cli(
      KEEL_BINARY, {"run", "--ephemeral", "--json", "--model", "gguf:" + model, "--workspace", ws.path().string(), "hi"},
      opts);
  // The random model may or may not answer within the round: the run ends either way.
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 3) << run.exit_code << run.err << run.out.substr(0, 3000);
  bool noted = false;
  for (const json& e : events_of(run.out)) {
    if (e["type"] == "notice" && e["message"].get<std::string>().find("has no chat template; prompts use keel's built-in chatml format") != std::string::npos) {
      noted = true;
    }
  }
  EXPECT_TRUE(noted) << run.out.substr(0, 3000);
}

// The first model reply's usage in `--json` output.
json first_usage(const std::string& out) {
  for (const json& e : events_of(out)) {
    if (e["type"] == "model_reply") return e["usage"];
  }
  return nullptr;
}

TEST(LocalCliTest, ASessionContinuedInANewProcessStartsFromItsSavedCache) {
  testing::TempDir ws;
  std::string model = write_model(ws);
  ws.write("keel.yaml", "max_rounds: 1\ntools: {shell: {enabled: false}, web: {enabled: false}}\n"
                        "local: {kv_cache: true, temperature: 1.0, seed: 7, threads: 1, context_size: 8192, max_tokens: 12}\n");
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.timeout_ms = 120000;
  opts.env["KEEL_HOME"] = (ws.path() / "home").string();
  std::vector<std::string> args = {"run", "--json", "--model", "gguf:" + model, "--workspace", ws.path().string()};
  std::vector<std::string> first = args;
  first.push_back("say hello");
  testing::CliRun one = testing::run_cli(KEEL_BINARY, first, opts);
  ASSERT_EQ(one.exit_code, 0) << one.err << one.out.substr(0, 3000);
  std::string session = events_of(one.out).back()["session_id"];
  ASSERT_FALSE(session.empty());
  EXPECT_TRUE(std::filesystem::exists(ws.path() / "home" / "kv" / (session + ".kv")));
  EXPECT_FALSE(first_usage(one.out).contains("cached_prompt_tokens"));  // a cold start

  std::vector<std::string> second = args;
  second.insert(second.end(), {"--session", session, "and goodbye"});
  testing::CliRun two = testing::run_cli(KEEL_BINARY, second, opts);
  ASSERT_EQ(two.exit_code, 0) << two.err << two.out.substr(0, 3000);
  json usage = first_usage(two.out);
  ASSERT_TRUE(usage.contains("cached_prompt_tokens")) << two.out.substr(0, 3000);
  // The system prompt and the first exchange come from the file; only the new turn is evaluated.
  EXPECT_GT(usage["cached_prompt_tokens"].get<int64_t>(), first_usage(one.out)["prompt_tokens"].get<int64_t>() - 2);
  EXPECT_LT(usage["prompt_tokens_evaluated"].get<int64_t>(), 60);
}

TEST(LocalCliTest, LanesFallBackWhenTheModelFileIsMissingOrBroken) {
  testing::TempDir ws;
  ws.write("broken.gguf", "GGUF but not really a model");
  for (const std::string& file : {(ws.path() / "missing.gguf").string(), (ws.path() / "broken.gguf").string()}) {
    ws.write("keel.yaml", "lanes:\n  - model: gguf:" + file + "\n  - model: rules\n");
    testing::CliOptions opts;
    opts.cwd = ws.path().string();
    testing::CliRun run = testing::run_cli(
        KEEL_BINARY, {"run", "--ephemeral", "--json", "--workspace", ws.path().string(), "hello"}, opts);
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    bool fell_back = false;
    for (const json& e : events_of(run.out)) {
      if (e["type"] != "model_retry") continue;
      std::string why = e["error"];
      fell_back = why.find("lane 1 (gguf:" + file + ") load failure") != std::string::npos &&
                  why.find("trying lane 2 (rules)") != std::string::npos;
      EXPECT_NE(why.find(file), std::string::npos) << why;
    }
    EXPECT_TRUE(fell_back) << run.out;
  }
}

TEST(LocalCliTest, AMissingModelWithoutLanesIsAClearError) {
  testing::TempDir ws;
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.env["KEEL_MODELS_DIR"] = ws.path().string();
  testing::CliRun run = testing::run_cli(
      KEEL_BINARY, {"run", "--ephemeral", "--model", "local/nothing", "--workspace", ws.path().string(), "hi"}, opts);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("nothing"), std::string::npos) << run.err;
}

// llama.cpp is loaded at the first use of a local model: a run or command that uses none never
// maps libllama or ggml (the loader's trace lists every library it opens).
TEST(LocalCliTest, LlamaCppIsLoadedOnlyWhenALocalModelIsUsed) {
  testing::TempDir ws;
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.env["LD_DEBUG"] = "libs";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--version"}, std::vector<std::string>{"run", "--ephemeral", "what time is it"}}) {
    testing::CliRun run = testing::run_cli(KEEL_BINARY, args, opts);
    ASSERT_EQ(run.exit_code, 0) << run.err.substr(0, 2000);
    ASSERT_NE(run.err.find("calling init"), std::string::npos) << "no loader trace: " << run.err.substr(0, 500);
    EXPECT_EQ(run.err.find("libllama"), std::string::npos) << args[0];
    EXPECT_EQ(run.err.find("libggml"), std::string::npos) << args[0];
  }
  // A local model loads it, in the same run.
  std::string model = write_model(ws);
  testing::CliRun run = testing::run_cli(
      KEEL_BINARY, {"run", "--ephemeral", "--max-rounds", "1", "--model", "gguf:" + model, "hi"}, [&] {
        testing::CliOptions o = opts;
        o.timeout_ms = 120000;
        return o;
      }());
  EXPECT_NE(run.err.find("libllama"), std::string::npos) << run.err.substr(0, 2000);
}

// A llama.cpp library that cannot be loaded is a clear error naming what to set, not a crash.
TEST(LocalCliTest, AMissingLlamaLibraryIsAClearError) {
  testing::TempDir ws;
  std::string model = write_model(ws);
  testing::CliOptions opts;
  opts.cwd = ws.path().string();
  opts.env["KEEL_LLAMA_LIB"] = (ws.path() / "no-such-libllama.so").string();
  testing::CliRun run = testing::run_cli(
      KEEL_BINARY, {"run", "--ephemeral", "--model", "gguf:" + model, "--workspace", ws.path().string(), "hi"}, opts);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("cannot load llama.cpp"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("KEEL_LLAMA_LIB"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("no-such-libllama.so"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace keel
#endif  // KEEL_HAS_LLAMA
