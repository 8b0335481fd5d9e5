// ask_user: the tool over a fake asker (answers, option indexes, validation, no asker, stop) and
// the terminal asker over a pipe.
#include "keel/ask_user.hpp"
#include "tools/schema_validator.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/tty_asker.hpp"

namespace keel {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Answers with a scripted reply and remembers the question it was asked.
class FakeAsker final : public UserAsker {
 public:
  explicit FakeAsker(Result<UserAnswer> reply) : reply_(std::move(reply)) {}
  Result<UserAnswer> ask(const UserQuestion& q, std::stop_token stop) override {
    asked = q;
    ++calls;
    if (wait_for_stop) {
      while (!stop.stop_requested()) std::this_thread::sleep_for(1ms);
      return Status::Cancelled("stopped");
    }
    return reply_;
  }
  UserQuestion asked;
  int calls = 0;
  bool wait_for_stop = false;

 private:
  Result<UserAnswer> reply_;
};

UserAnswer answer(std::string text, std::optional<size_t> index = std::nullopt) {
  UserAnswer a;
  a.text = std::move(text);
  a.option_index = index;
  return a;
}

class AskUserToolTest : public ::testing::Test {
 protected:
  void use(std::shared_ptr<UserAsker> asker) {
    tools_ = ToolRegistry();
    Status s = register_ask_user_tool(tools_, std::move(asker));
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  Result<std::string> call(const json& args) {
    KEEL_TRY(tools_.validate_arguments("ask_user", args));
    ToolContext ctx;
    ctx.stop = stop_.get_token();
    return tools_.find("ask_user")->execute(args, ctx);
  }
  ToolRegistry tools_;
  std::stop_source stop_;
};

TEST_F(AskUserToolTest, MetadataAndSchema) {
  use(nullptr);
  const ToolSpec& s = tools_.find("ask_user")->spec();
  EXPECT_FALSE(s.concurrency_safe);
  EXPECT_EQ(s.risk, Risk::kLow);
  EXPECT_GE(s.timeout_ms, 10 * 60 * 1000);
  EXPECT_FALSE(s.cacheable);
  EXPECT_EQ(json::parse(s.parameters_schema)["required"], json::array({"question"}));
  EXPECT_EQ(call({{"options", {"a"}}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(call({{"question", ""}}).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(AskUserToolTest, WithoutAnAskerTheModelIsToldToDecide) {
  use(nullptr);
  auto r = call({{"question", "Which branch?"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(r.status().message(),
            "no one can answer questions in this run; decide with your best judgement and state the assumption in "
            "your answer");
}

TEST_F(AskUserToolTest, ReturnsTheAnswerAndTheChosenOption) {
  auto asker = std::make_shared<FakeAsker>(answer("production", 1));
  use(asker);
  auto r = call({{"question", "Deploy where?"}, {"options", {"staging", "production"}}, {"allow_free_text", false}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(json::parse(*r), (json{{"answer", "production"}, {"option_index", 1}}));
  auto schema = keel::detail::CompiledSchema::compile(tools_.find("ask_user")->spec().output_schema);
  ASSERT_TRUE(schema.ok()) << schema.status().to_string();
  EXPECT_TRUE((*schema)->validate(json::parse(*r), "ask_user").ok()) << "the result matches the declared output schema";
  EXPECT_EQ(asker->asked.question, "Deploy where?");
  EXPECT_EQ(asker->asked.options, (std::vector<std::string>{"staging", "production"}));
  EXPECT_FALSE(asker->asked.allow_free_text);
}

TEST_F(AskUserToolTest, FreeTextAndTypedOptions) {
  use(std::make_shared<FakeAsker>(answer("use the v2 API")));
  auto free = call({{"question", "Anything else?"}});
  ASSERT_TRUE(free.ok());
  EXPECT_EQ(json::parse(*free), (json{{"answer", "use the v2 API"}}));

  use(std::make_shared<FakeAsker>(answer("staging")));  // typed rather than picked by number
  auto typed = call({{"question", "Deploy where?"}, {"options", {"staging", "production"}}});
  ASSERT_TRUE(typed.ok());
  EXPECT_EQ(json::parse(*typed), (json{{"answer", "staging"}, {"option_index", 0}}));
}

TEST_F(AskUserToolTest, AnswersOutsideTheQuestionAreErrors) {
  use(std::make_shared<FakeAsker>(answer("somewhere else")));
  auto not_an_option = call({{"question", "Q?"}, {"options", {"a", "b"}}, {"allow_free_text", false}});
  ASSERT_FALSE(not_an_option.ok());
  EXPECT_NE(not_an_option.status().message().find("none of the options"), std::string::npos);
  use(std::make_shared<FakeAsker>(answer("x", 5)));
  EXPECT_EQ(call({{"question", "Q?"}, {"options", {"a"}}}).status().code(), ErrorCode::kInternal);
  use(std::make_shared<FakeAsker>(answer("x")));
  auto no_options = call({{"question", "Q?"}, {"allow_free_text", false}});
  EXPECT_EQ(no_options.status().code(), ErrorCode::kInvalidArgument);
  use(std::make_shared<FakeAsker>(Status::FailedPrecondition("the user gave an empty answer")));
  auto empty = call({{"question", "Q?"}});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(),
            "the user did not answer (the user gave an empty answer); decide with your best judgement and state the "
            "assumption");
}

TEST_F(AskUserToolTest, HonoursStop) {
  auto asker = std::make_shared<FakeAsker>(answer("never"));
  asker->wait_for_stop = true;
  use(asker);
  std::thread stopper([&] {
    std::this_thread::sleep_for(20ms);
    stop_.request_stop();
  });
  auto r = call({{"question", "Q?"}});
  stopper.join();
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
}

// A pipe standing in for the terminal: the test writes the person's keystrokes into it.
class TtyAskerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::pipe(in_), 0);
    ASSERT_EQ(::pipe(out_), 0);
    ::fcntl(out_[0], F_SETFL, O_NONBLOCK);
  }
  void TearDown() override {
    for (int fd : {in_[0], in_[1], out_[0], out_[1]}) {
      if (fd >= 0) ::close(fd);
    }
  }
  void type(const std::string& keys) { ASSERT_EQ(::write(in_[1], keys.data(), keys.size()), ssize_t(keys.size())); }
  void end_input() {
    ::close(in_[1]);
    in_[1] = -1;
  }
  std::string screen() {
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(out_[0], buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
    return s;
  }
  Result<UserAnswer> ask(const UserQuestion& q, std::stop_token stop = {}) {
    cli::TtyAsker asker(in_[0], out_[1]);
    return asker.ask(q, stop);
  }
  static UserQuestion question(std::vector<std::string> options, bool free_text = true) {
    UserQuestion q;
    q.question = "Deploy where?";
    q.options = std::move(options);
    q.allow_free_text = free_text;
    return q;
  }

  int in_[2] = {-1, -1};
  int out_[2] = {-1, -1};
};

TEST_F(TtyAskerTest, PrintsNumberedOptionsAndANumberPicksOne) {
  type("2\n");
  auto a = ask(question({"staging", "production"}));
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(a->text, "production");
  EXPECT_EQ(a->option_index, 1u);
  EXPECT_EQ(screen(),
            "\nask_user: Deploy where?\n  1) staging\n  2) production\nanswer (a number, or your own words): ");
}

TEST_F(TtyAskerTest, FreeTextIsTakenAsIsAndOnlyOneLineIsRead) {
  type("  somewhere else \nnext line\n");
  auto a = ask(question({"staging"}));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->text, "somewhere else");
  EXPECT_FALSE(a->option_index.has_value());
  char rest[16] = {};
  ASSERT_EQ(::read(in_[0], rest, 10), 10);  // what follows the answer is left for others
  EXPECT_EQ(std::string(rest), "next line\n");
}

TEST_F(TtyAskerTest, OptionsOnlyAskAgainUntilAValidNumber) {
  type("maybe\n9\n1\n");
  auto a = ask(question({"yes", "no"}, /*free_text=*/false));
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(a->text, "yes");
  const std::string s = screen();
  EXPECT_NE(s.find("answer (1-2): "), std::string::npos) << s;
  EXPECT_NE(s.find("please answer with a number from 1 to 2: please answer with a number from 1 to 2: "),
            std::string::npos)
      << s;
  type("a\nb\nc\n");
  auto gave_up = ask(question({"yes", "no"}, false));
  EXPECT_EQ(gave_up.status().code(), ErrorCode::kFailedPrecondition);
}

TEST_F(TtyAskerTest, EmptyLineAndEndOfInputAreErrors) {
  type("\n");
  auto empty = ask(question({}));
  EXPECT_EQ(empty.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(empty.status().message(), "the user gave an empty answer");
  end_input();
  auto eof = ask(question({}));
  EXPECT_EQ(eof.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(eof.status().message(), "the input ended without an answer");
}

TEST_F(TtyAskerTest, ReturnsWhenStopIsRequested) {
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  auto a = ask(question({"x"}), stop.get_token());
  stopper.join();
  EXPECT_EQ(a.status().code(), ErrorCode::kCancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);  // generous: it returns, it does not hang
}

TEST_F(TtyAskerTest, WorksThroughTheTool) {
  type("1\n");
  ToolRegistry tools;
  ASSERT_TRUE(register_ask_user_tool(tools, std::make_shared<cli::TtyAsker>(in_[0], out_[1])).ok());
  auto r = tools.find("ask_user")->execute({{"question", "Deploy where?"}, {"options", {"staging", "prod"}}}, {});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(json::parse(*r), (json{{"answer", "staging"}, {"option_index", 0}}));
}

}  // namespace
}  // namespace keel
