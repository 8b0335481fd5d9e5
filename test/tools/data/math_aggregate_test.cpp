#include <gtest/gtest.h>

#include "data_tool_harness.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::DataToolHarness;
using testing::has;

class MathAggregateTest : public ::testing::Test {
 protected:
  json agg(const std::string& op, const json& values) { return h_.ok("math_aggregate", {{"op", op}, {"values", values}}); }
  json value(const std::string& op, const json& values) { return agg(op, values)["value"]; }
  DataToolHarness h_;
};

TEST_F(MathAggregateTest, EachOpOverNumbers) {
  const json v = {4, 1, 3, 2, 10};
  EXPECT_EQ(agg("sum", v), json::parse(R"({"op": "sum", "value": 20, "count": 5, "skipped": 0})"));
  EXPECT_TRUE(value("sum", v).is_number_integer());
  EXPECT_EQ(value("avg", v), 4.0);
  EXPECT_EQ(value("min", v), 1);
  EXPECT_EQ(value("max", v), 10);
  EXPECT_EQ(value("count", v), 5);
  EXPECT_EQ(value("median", v), 3);
  EXPECT_EQ(value("sum", json({0.1, 0.2, 0.3})), 0.6);
  EXPECT_EQ(value("min", json({2.5, -1, 7})), -1);
  EXPECT_EQ(value("max", json({2.5, -1, 2})), 2.5);
}

TEST_F(MathAggregateTest, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_EQ(value("median", json({7, 1, 3, 5})), 4.0);
  EXPECT_EQ(value("median", json({1, 2})), 1.5);
  EXPECT_EQ(value("median", json({10, 20, 30, 40, 50, 60})), 35.0);
  EXPECT_EQ(value("median", json({-3})), -3);
}

TEST_F(MathAggregateTest, NumericStringsCountAndOtherValuesAreSkipped) {
  const json mixed = {1, "2", " 3.5 ", "+4", "1e1", "abc", nullptr, true, json::object(), "", "1,5", "inf"};
  const json out = agg("sum", mixed);
  EXPECT_EQ(out["value"], 20.5);
  EXPECT_EQ(out["count"], 5);
  EXPECT_EQ(out["skipped"], 7);
  EXPECT_EQ(agg("count", mixed)["value"], 5);
}

TEST_F(MathAggregateTest, FieldOfRows) {
  const json rows = json::parse(R"([
    {"name": "a", "price": 10, "meta": {"weight": 2}},
    {"name": "b", "price": "30"},
    {"name": "c", "price": null},
    {"name": "d"},
    "not a row",
    {"name": "e", "price": 20, "meta": {"weight": 4}}
  ])");
  const json out = h_.ok("math_aggregate", {{"op", "avg"}, {"rows", rows}, {"field", "price"}});
  EXPECT_EQ(out, json::parse(R"({"op": "avg", "value": 20.0, "count": 3, "skipped": 3})"));
  EXPECT_EQ(h_.ok("math_aggregate", {{"op", "max"}, {"rows", rows}, {"field", "meta.weight"}})["value"], 4);
  // `field` applies to the items of `values` too.
  EXPECT_EQ(h_.ok("math_aggregate", {{"op", "sum"}, {"values", rows}, {"field", "price"}})["value"], 60);
}

// A field that no row has is a misnamed column: every op fails and names the fields there are,
// rather than a sum of 0 or a count of 0.
TEST_F(MathAggregateTest, AFieldNoRowHasIsAnErrorNamingTheFields) {
  const json rows = json::parse(R"([{"region": "north", "amount": 120.5}, {"region": "south", "amount": 80}])");
  for (const char* op : {"sum", "count", "avg", "max"}) {
    Result<std::string> r = h_.run("math_aggregate", {{"op", op}, {"rows", rows}, {"field", "price"}});
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_TRUE(has(r.status().message(), "no item has a field 'price'")) << r.status().message();
    EXPECT_TRUE(has(r.status().message(), "amount, region")) << r.status().message();
  }
  // Present in some rows only: the others are skipped, as before.
  const json some = json::parse(R"([{"amount": 1}, {"region": "x"}])");
  EXPECT_EQ(h_.ok("math_aggregate", {{"op", "sum"}, {"rows", some}, {"field", "amount"}})["skipped"], 1);
}

TEST_F(MathAggregateTest, EmptyInput) {
  EXPECT_EQ(agg("sum", json::array()), json::parse(R"({"op": "sum", "value": 0, "count": 0, "skipped": 0})"));
  EXPECT_EQ(value("count", json::array()), 0);
  for (const char* op : {"avg", "min", "max", "median"}) {
    Result<std::string> r = h_.run("math_aggregate", {{"op", op}, {"values", json({"x", nullptr})}});
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_TRUE(has(r.status().message(), std::string("cannot compute ") + op + " of no numbers")) << r.status().message();
    EXPECT_TRUE(has(r.status().message(), "2 skipped")) << r.status().message();
  }
}

TEST_F(MathAggregateTest, BadArgumentsAreExplained) {
  auto error = [this](const json& args) { return h_.run("math_aggregate", args).status(); };
  EXPECT_EQ(error({{"op", "mode"}, {"values", {1}}}).code(), ErrorCode::kInvalidArgument);  // schema enum
  EXPECT_TRUE(has(error({{"op", "sum"}}).message(), "pass `values`"));
  EXPECT_TRUE(has(error({{"op", "sum"}, {"values", {1}}, {"rows", json::array()}}).message(), "not both"));
  EXPECT_TRUE(has(error({{"op", "sum"}, {"rows", json::array()}}).message(), "`rows` needs `field`"));
}

TEST_F(MathAggregateTest, LargeSumsStayExact) {
  EXPECT_EQ(value("sum", json({INT64_MAX - 1, 1})), INT64_MAX);
  const json overflow = value("sum", json({INT64_MAX, 1}));
  EXPECT_TRUE(overflow.is_number_float());
  EXPECT_DOUBLE_EQ(overflow.get<double>(), 9223372036854775808.0);
  // Compensated summation keeps small terms next to a large one.
  json many = json::array({1e16});
  for (int i = 0; i < 10; ++i) many.push_back(1.0);
  EXPECT_EQ(value("sum", many), 1e16 + 10);
}

}  // namespace
}  // namespace keel
