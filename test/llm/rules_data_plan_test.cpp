// The rules model's column questions: how a task is read, the plan it replies with, and that plan
// run by a real agent over the real data tools.
#include "llm/rules_data_plan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/builtin_tools.hpp"
#include "keel/core/plan.hpp"
#include "keel/data_tools.hpp"
#include "keel/rules_model.hpp"
#include "keel/tool_registry.hpp"
#include "support/temp_dir.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

TEST(RulesDataQueryTest, ReadsTheOpTheColumnAndTheFile) {
  struct Case {
    const char* task;
    const char* op;
    const char* column;
    const char* file;
    const char* output;
  } cases[] = {
      {"sum the amount column of sales.csv", "sum", "amount", "sales.csv", ""},
      {"What is the total of the amount column in data/sales.csv?", "sum", "amount", "data/sales.csv", ""},
      {"average of column price in items.csv", "avg", "price", "items.csv", ""},
      {"give me the mean of the column named 'units' from sales.csv", "avg", "units", "sales.csv", ""},
      {"highest value in the score column of results.csv", "max", "score", "results.csv", ""},
      {"the lowest price column value in a.csv", "min", "price", "a.csv", ""},
      {"median of the age field in people.csv", "median", "age", "people.csv", ""},
      {"count the email column of users.csv", "count", "email", "users.csv", ""},
      {"write the average of the amount column of sales.csv to report.txt", "avg", "amount", "sales.csv", "report.txt"},
      {"save the sum of the amount column of sales.csv into out/total.txt", "sum", "amount", "sales.csv",
       "out/total.txt"},
  };
  for (const Case& c : cases) {
    std::optional<RulesDataQuery> q = read_data_query(c.task);
    ASSERT_TRUE(q.has_value()) << c.task;
    EXPECT_EQ(q->op, c.op) << c.task;
    EXPECT_EQ(q->column, c.column) << c.task;
    EXPECT_EQ(q->file, c.file) << c.task;
    EXPECT_EQ(q->output, c.output) << c.task;
  }
}

TEST(RulesDataQueryTest, NeedsAnOpAColumnAndAFile) {
  for (const char* task : {"sum the amount column", "the amount column of sales.csv", "sum sales.csv",
                           "read sales.csv", "count lines in sales.csv", "sum the column of sales.csv"}) {
    EXPECT_FALSE(read_data_query(task).has_value()) << task;
  }
}

TEST(RulesDataQueryTest, ThePlanIsOneTheCoreAcceptsAndItsReplyBindsResults) {
  RulesDataQuery q{"avg", "amount", "sales.csv", "report.txt"};
  const std::string text = data_plan_reply(q);
  Result<std::optional<Plan>> plan = parse_plan(text);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_TRUE(plan->has_value()) << text;
  const Plan& p = **plan;
  ASSERT_EQ(p.steps.size(), 4u);
  EXPECT_EQ(p.steps[0].tool, "fs_read");
  EXPECT_EQ(p.steps[1].tool, "parse_csv");
  EXPECT_EQ(p.steps[2].tool, "math_aggregate");
  EXPECT_EQ(p.steps[3].tool, "fs_write");
  EXPECT_EQ(json::parse(p.steps[1].args)["text"], "$tool.file.result");
  EXPECT_EQ(json::parse(p.steps[2].args), json::parse(R"({"op":"avg","rows":"$tool.table.rows","field":"amount"})"));
  EXPECT_TRUE(reply_binds_results(p.reply)) << p.reply;
  EXPECT_EQ(data_plan_tools(q), (std::vector<std::string>{"fs_read", "parse_csv", "math_aggregate", "fs_write"}));
}

// The rules model, a real agent and the real tools: the answer's figures are the tools' results.
class RulesPlanRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir.path() / "sales.csv") << "region,amount\nnorth,120.5\nsouth,80\neast,99.25\nwest,42\n";
    BuiltinToolOptions builtin;
    builtin.workspace_root = dir.path().string();
    builtin.enable_shell = false;
    ASSERT_TRUE(register_builtin_tools(tools, builtin).ok());
    ASSERT_TRUE(register_data_tools(tools, DataToolOptions{}).ok());
  }

  RunOutcome run(const std::string& task) {
    AgentOptions options;
    options.workspace = dir.path().string();
    Agent agent(*model, tools, options);
    Result<RunOutcome> outcome = agent.run(task);
    EXPECT_TRUE(outcome.ok()) << outcome.status().to_string();
    return outcome.ok() ? *outcome : RunOutcome{};
  }

  testing::TempDir dir;
  ToolRegistry tools;
  std::unique_ptr<LlmClient> model = make_rules_model();
};

TEST_F(RulesPlanRunTest, TheAnswerIsFilledFromTheToolsResults) {
  RunOutcome outcome = run("sum the amount column of sales.csv");
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.answer, "The sum of the amount column in sales.csv is 341.75 (from 4 of 4 rows).");
  EXPECT_EQ(outcome.tool_calls, 3);
}

TEST_F(RulesPlanRunTest, AMisnamedColumnHaltsThePlanAndTheAnswerSaysWhy) {
  RunOutcome outcome = run("average of the price column of sales.csv");
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_NE(outcome.answer.find("math_aggregate"), std::string::npos) << outcome.answer;
  EXPECT_NE(outcome.answer.find("no item has a field 'price'"), std::string::npos) << outcome.answer;
  EXPECT_EQ(outcome.answer.find("The average of the price column"), std::string::npos) << outcome.answer;
}

}  // namespace
}  // namespace keel::detail
