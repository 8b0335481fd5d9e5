// The in-process llama.cpp backend against llama.cpp's vocab-only GGUF files (exact tokenizer ids)
// and a tiny random-weight model written by test/support/gguf_fixture: loading and sharing weights,
// errors for missing and broken files, grammar-constrained calls, prefix reuse and saved state.
#include <gtest/gtest.h>

#if KEEL_HAS_LLAMA
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "keel/local_model.hpp"
#include "support/gguf_fixture.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

std::string vocab(const std::string& family) {
  std::string path = KEEL_LLAMA_MODELS_DIR;  // appended: GCC 12 warns falsely on chained operator+
  path.append("/ggml-vocab-").append(family).append(".gguf");
  return path;
}

LocalLoadOptions vocab_only() {
  LocalLoadOptions o;
  o.vocab_only = true;
  return o;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr const char* kChatMlTemplate =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + "
    "'\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

// One random-weight model for the whole suite (writing it takes a few hundred ms).
class LocalModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    testing::GgufFixtureOptions o;
    o.chat_template = kChatMlTemplate;
    model_path_ = (dir_->path() / "tiny.gguf").string();
    std::string err = testing::write_random_gguf(vocab("llama-bpe"), model_path_, o);
    ASSERT_EQ(err, "");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static LocalClientOptions client_options() {
    LocalClientOptions o;
    o.context_size = 2048;
    o.threads = 1;  // worker threads spin: one is fastest on a loaded 2-core machine
    o.temperature = 0;
    o.max_tokens = 48;
    return o;
  }
  static std::vector<ToolSpec> weather_tools() {
    ToolSpec t;
    t.name = "get_weather";
    t.description = "Weather for a city";
    t.parameters_schema =
        R"({"type":"object","properties":{"city":{"type":"string","maxLength":12},"unit":{"enum":["C","F"]}},"required":["city","unit"]})";
    return {t};
  }
  static inline testing::TempDir* dir_ = nullptr;
  static inline std::string model_path_;
};

TEST(LocalTokenizer, MatchesLlamaCppsReferenceIdsForEveryShippedFamily) {
  for (const std::string family : {"llama-bpe", "llama-spm", "qwen2", "phi-3", "gpt-2", "falcon", "starcoder"}) {
    std::string inp = read_file(vocab(family) + ".inp");
    std::string out = read_file(vocab(family) + ".out");
    ASSERT_FALSE(inp.empty()) << family;
    Result<std::shared_ptr<LocalModel>> m = LocalModel::load(vocab(family), vocab_only());
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> texts;
    for (size_t at = 0;;) {
      size_t next = inp.find(sep, at);
      if (next == std::string::npos) break;
      texts.push_back(inp.substr(at, next - at));
      at = next + sep.size();
    }
    std::istringstream lines(out);
    std::string line;
    size_t checked = 0;
    for (const std::string& text : texts) {
      ASSERT_TRUE(std::getline(lines, line)) << family;
      std::vector<int32_t> want;
      std::istringstream ids(line);
      for (int32_t id; ids >> id;) want.push_back(id);
      Result<std::vector<int32_t>> got = (*m)->tokenize(text);
      ASSERT_TRUE(got.ok());
      EXPECT_EQ(*got, want) << family << ": " << text;
      ++checked;
    }
    EXPECT_GT(checked, 20u) << family;
  }
}

TEST(LocalTokenizer, CountsExactlyForTheContextPolicy) {
  Result<std::shared_ptr<LocalModel>> m = LocalModel::load(vocab("llama-bpe"), vocab_only());
  ASSERT_TRUE(m.ok());
  LocalTokenCounter counter(*m, 5);
  EXPECT_EQ(counter.count("Hello world"), 2u);  // 9906 1917
  EXPECT_EQ(counter.count(""), 0u);
  EXPECT_EQ(counter.per_message_overhead(), 5u);
  Message msg;
  msg.role = Role::kUser;
  msg.content = "Hello world";
  EXPECT_EQ(counter.count_message(msg), 7u);
  EXPECT_EQ((*m)->info().vocab_size, 128256);
}

TEST(LocalTokenizer, AVocabOnlyFileCannotGenerate) {
  Result<std::shared_ptr<LocalModel>> m = LocalModel::load(vocab("llama-spm"), vocab_only());
  ASSERT_TRUE(m.ok());
  LocalClient client(*m, {});
  ModelRequest r;
  Result<ModelReply> reply = client.complete(r, {});
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("tokenizer only"), std::string::npos) << reply.status().to_string();
}

TEST_F(LocalModelTest, MissingAndBrokenFilesAreClearErrors) {
  Result<std::shared_ptr<LocalModel>> missing = LocalModel::load((dir_->path() / "nope.gguf").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);

  std::string whole = read_file(model_path_);
  std::string truncated = (dir_->path() / "truncated.gguf").string();
  std::ofstream(truncated, std::ios::binary) << whole.substr(0, whole.size() / 2);
  Result<std::shared_ptr<LocalModel>> cut = LocalModel::load(truncated);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(cut.status().message().find("cannot load " + truncated), std::string::npos) << cut.status().to_string();

  std::string junk = (dir_->path() / "junk.gguf").string();
  std::ofstream(junk, std::ios::binary) << "this is not a model at all";
  Result<std::shared_ptr<LocalModel>> bad = LocalModel::load(junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(LocalModelTest, WeightsAreLoadedOnceAndShared) {
  Result<std::shared_ptr<LocalModel>> a = LocalModel::load(model_path_);
  Result<std::shared_ptr<LocalModel>> b = LocalModel::load(model_path_);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ((*a)->info().chat_family, "chatml");
  EXPECT_TRUE((*a)->info().template_from_file);
  EXPECT_EQ((*a)->info().context_train, 4096);
  EXPECT_GT((*a)->info().parameters, 8000000);
}

TEST_F(LocalModelTest, TheGrammarMakesARandomModelWriteSchemaValidCalls) {
  auto model = std::move(LocalModel::load(model_path_)).value();
  LocalClientOptions o = client_options();
  o.tool_choice = "required";
  o.max_tokens = 400;  // a random model takes every whitespace and string length the grammar allows
  o.max_calls_per_reply = 1;
  LocalClient client(model, o);
  std::vector<ToolSpec> tools = weather_tools();
  std::vector<Message> history = {Message::system("You are terse."), Message::user("Weather in Paris?")};
  ModelRequest r;
  r.history = history;
  r.tools = tools;
  std::string streamed;
  CallOptions call;
  call.on_text = [&](std::string_view t) { streamed += t; };
  Result<ModelReply> reply = client.complete(r, call);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  ASSERT_FALSE(reply->tool_calls.empty()) << reply->text;
  EXPECT_EQ(reply->finish_reason, "tool_calls");
  for (const ToolCall& c : reply->tool_calls) {
    EXPECT_EQ(c.name, "get_weather");
    nlohmann::json args = nlohmann::json::parse(c.arguments);
    ASSERT_TRUE(args.is_object());
    ASSERT_TRUE(args["city"].is_string()) << c.arguments;
    EXPECT_LE(args["city"].get<std::string>().size(), 12u);
    EXPECT_TRUE(args["unit"] == "C" || args["unit"] == "F") << c.arguments;
  }
  EXPECT_EQ(streamed.find("<tool_call>"), std::string::npos) << "call text is not streamed as answer text";
  EXPECT_EQ(reply->usage.prompt_tokens, client.last_prompt_evaluated());
  EXPECT_GT(reply->usage.completion_tokens, 5);
}

TEST_F(LocalModelTest, AnOutputSchemaMakesTheReplyOneMatchingValue) {
  auto model = std::move(LocalModel::load(model_path_)).value();
  LocalClientOptions o = client_options();
  o.max_tokens = 300;
  o.max_string_chars = 16;
  LocalClient client(model, o);
  std::vector<Message> history = {Message::user("Extract the order.")};
  ModelRequest r;
  r.history = history;
  r.tools_enabled = false;
  r.response_schema =
      R"({"type":"object","properties":{"item":{"type":"string"},"qty":{"type":"integer"},)"
      R"("rush":{"type":"boolean"}},"required":["item","qty","rush"],"additionalProperties":false})";
  Result<ModelReply> reply = client.complete(r, {});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  nlohmann::json v = nlohmann::json::parse(reply->text, nullptr, false);
  ASSERT_TRUE(v.is_object()) << reply->text;
  EXPECT_EQ(v.size(), 3u) << reply->text;
  EXPECT_TRUE(v["item"].is_string());
  EXPECT_LE(v["item"].get<std::string>().size(), 16u * 4);  // at most 16 characters (of up to 4 bytes)
  EXPECT_TRUE(v["qty"].is_number_integer());
  EXPECT_TRUE(v["rush"].is_boolean());
  EXPECT_EQ(reply->finish_reason, "stop");

  r.response_schema = "{broken";  // not JSON: a clear error, no guessing
  Result<ModelReply> bad = client.complete(r, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cannot build the output grammar"), std::string::npos) << bad.status().to_string();
}

TEST_F(LocalModelTest, ThePromptPrefixIsEvaluatedOnce) {
  auto model = std::move(LocalModel::load(model_path_)).value();
  std::vector<ToolSpec> tools = weather_tools();
  std::vector<Message> history = {Message::system("You are terse."), Message::user("Weather in Paris?")};
  auto round_two = [&](LocalClient& client) {
    std::vector<Message> h = history;
    ToolCall call;
    call.id = "call_1";
    call.name = "get_weather";
    call.arguments = R"({"city":"Paris","unit":"C"})";
    h.push_back(Message::assistant("", {call}));
    Message t;
    t.role = Role::kTool;
    t.tool_call_id = "call_1";
    t.name = "get_weather";
    t.content = "18 C, sunny";
    h.push_back(t);
    ModelRequest r;
    r.history = h;
    r.tools = tools;
    return client.complete(r, {});
  };
  ModelRequest first;
  first.history = history;
  first.tools = tools;

  LocalClient reuse(model, client_options());
  Result<ModelReply> r1 = reuse.complete(first, {});
  ASSERT_TRUE(r1.ok()) << r1.status().to_string();
  int64_t prompt1 = r1->usage.prompt_tokens;
  EXPECT_EQ(reuse.last_prompt_reused(), 0);
  Result<ModelReply> r2 = round_two(reuse);
  ASSERT_TRUE(r2.ok()) << r2.status().to_string();
  EXPECT_GE(r2->usage.cached_prompt_tokens, prompt1 - 1);  // everything of round 1's prompt
  EXPECT_EQ(reuse.last_prompt_evaluated(), r2->usage.prompt_tokens - r2->usage.cached_prompt_tokens);
  EXPECT_LT(reuse.last_prompt_evaluated(), r2->usage.prompt_tokens / 2);

  LocalClientOptions off = client_options();
  off.prefix_reuse = false;
  LocalClient fresh(model, off);
  ASSERT_TRUE(fresh.complete(first, {}).ok());
  Result<ModelReply> again = round_two(fresh);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->usage.cached_prompt_tokens, 0);
  EXPECT_EQ(fresh.last_prompt_evaluated(), again->usage.prompt_tokens);
  EXPECT_EQ(again->usage.prompt_tokens, r2->usage.prompt_tokens);

  // The cache saved to a file lets a new context (a resumed session) skip the same prefix.
  std::string state = (dir_->path() / "session.kv").string();
  LocalClient saver(model, client_options());
  ASSERT_TRUE(saver.complete(first, {}).ok());
  ASSERT_TRUE(saver.save_state(state).ok());
  LocalClient restored(model, client_options());
  ASSERT_TRUE(restored.load_state(state).ok());
  Result<ModelReply> r3 = round_two(restored);
  ASSERT_TRUE(r3.ok());
  EXPECT_GE(r3->usage.cached_prompt_tokens, prompt1 - 1);
  Status broken = restored.load_state(model_path_);  // not a state file
  EXPECT_FALSE(broken.ok());
}

TEST_F(LocalModelTest, StopsAndCancelsOnRequest) {
  auto model = std::move(LocalModel::load(model_path_)).value();
  LocalClient client(model, client_options());
  std::vector<Message> history = {Message::user("Say something.")};
  ModelRequest r;
  r.history = history;
  r.sampling.max_tokens = 7;
  Result<ModelReply> capped = client.complete(r, {});
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->finish_reason, "length");
  EXPECT_EQ(capped->usage.completion_tokens, 7);

  std::stop_source stop;
  CallOptions call;
  call.stop = stop.get_token();
  stop.request_stop();
  Result<ModelReply> cancelled = client.complete(r, call);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.status().code(), ErrorCode::kCancelled);
}

}  // namespace
}  // namespace keel
#endif  // KEEL_HAS_LLAMA
