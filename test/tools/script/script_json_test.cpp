// The script tool's JSON boundary: inputs in, results and print output back.
#include <gtest/gtest.h>

#include "../data/data_tool_harness.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::DataToolHarness;
using testing::has;

TEST(ScriptJsonTest, NestedValuesRoundTrip) {
  DataToolHarness h;
  const json inputs = json::parse(R"({
    "name": "héllo ✓ 日本", "n": 42, "x": 2.5, "neg": -7, "ok": true, "off": false,
    "list": [1, [2, [3, {"deep": "yes"}]], "four"],
    "rows": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": ["c"]}]
  })");
  EXPECT_EQ(h.script("return inputs", inputs), inputs);
  EXPECT_TRUE(h.script("return inputs").is_null()) << "no inputs given";
  EXPECT_EQ(h.script("return inputs.list[2][2][2].deep", inputs), "yes");
  EXPECT_EQ(h.script("return #inputs.rows", inputs), 2);
  // Strings keep their bytes: # counts bytes, utf8.len characters.
  EXPECT_EQ(h.script("return {#inputs.name, utf8.len(inputs.name)}", inputs), json({17, 10}));
  EXPECT_EQ(h.script("return inputs", json("just a string")), "just a string");
  EXPECT_EQ(h.script("return inputs", json::array({1, 2, 3})), json::array({1, 2, 3}));
}

TEST(ScriptJsonTest, IntegersStayIntegersAndFloatsStayFloats) {
  DataToolHarness h;
  const json r = h.script("return {1, 1.0, 2^53, 7 // 2, 7 / 2, math.maxinteger, -0.5, 3 * 1.5}");
  ASSERT_TRUE(r.is_array()) << r;
  ASSERT_EQ(r.size(), 8u);
  EXPECT_TRUE(r[0].is_number_integer());
  EXPECT_TRUE(r[1].is_number_float());
  EXPECT_TRUE(r[2].is_number_float());
  EXPECT_EQ(r[2].get<double>(), 9007199254740992.0);
  EXPECT_TRUE(r[3].is_number_integer());
  EXPECT_EQ(r[3], 3);
  EXPECT_EQ(r[4], 3.5);
  EXPECT_EQ(r[5].get<int64_t>(), INT64_MAX);
  EXPECT_EQ(r[6], -0.5);
  EXPECT_TRUE(r[7].is_number_float());
  // The text keeps the distinction too.
  Result<std::string> text = h.run("script", {{"code", "return {1, 1.0}"}});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, R"({"result":[1,1.0]})");
  // Inputs: integers arrive as Lua integers, floats as floats.
  EXPECT_EQ(h.script("return {math.type(inputs[1]), math.type(inputs[2])}", json::array({3, 3.0})),
            json({"integer", "float"}));
}

TEST(ScriptJsonTest, TableShapes) {
  DataToolHarness h;
  // An empty table is an empty array (also where the input was an empty object).
  EXPECT_EQ(h.script("return {}"), json::array());
  EXPECT_EQ(h.script("return inputs", json::parse(R"({"e": {}, "a": []})")), json::parse(R"({"e": [], "a": []})"));
  // Keys 1..n make an array; anything else an object with string keys.
  EXPECT_EQ(h.script("return {10, 20, 30}"), json({10, 20, 30}));
  EXPECT_EQ(h.script("return {10, 20, x = 1}"), json::parse(R"({"1": 10, "2": 20, "x": 1})"));
  EXPECT_EQ(h.script("return {[1] = 'a', [3] = 'c'}"), json::parse(R"({"1": "a", "3": "c"})"));
  EXPECT_EQ(h.script("return {[0] = 'zero', [-1] = 'neg'}"), json::parse(R"({"0": "zero", "-1": "neg"})"));
  EXPECT_EQ(h.script("return {[1.5] = 'x'}"), json::parse(R"({"1.5": "x"})"));
  // nulls: object members disappear, array elements leave holes.
  EXPECT_EQ(h.script("return inputs", json::parse(R"({"a": null, "b": 1})")), json::parse(R"({"b": 1})"));
  EXPECT_EQ(h.script("return {inputs[1], inputs[2] == nil, inputs[3]}", json::parse("[1, null, 3]")),
            json({1, true, 3}));
  // Several return values form an array; none is null.
  EXPECT_EQ(h.script("return 1, 'two', {3}"), json::parse(R"([1, "two", [3]])"));
  EXPECT_TRUE(h.script("local x = 1").is_null());
  EXPECT_TRUE(h.script("return nil").is_null());
  // The same table twice (not a cycle) is written twice.
  EXPECT_EQ(h.script("local t = {1} return {t, t}"), json::parse("[[1], [1]]"));
}

TEST(ScriptJsonTest, ValuesWithoutAJsonFormAreErrors) {
  DataToolHarness h;
  const auto error_of = [&h](const std::string& code) { return h.script_error(code).message(); };
  EXPECT_TRUE(has(error_of("return {f = print}"), "result.f is a function")) << error_of("return {f = print}");
  EXPECT_TRUE(has(error_of("return {1, {2, coroutine.create(print)}}"), "result[2][2] is a thread"));
  EXPECT_TRUE(has(error_of("local t = {} t.self = t return t"), "contains itself"));
  EXPECT_TRUE(has(error_of("local a, b = {}, {} a.b = b b.a = a return {a}"), "contains itself"));
  EXPECT_TRUE(has(error_of("return 0/0"), "NaN"));
  EXPECT_TRUE(has(error_of("return {x = math.huge}"), "result.x is infinite"));
  EXPECT_TRUE(has(error_of("return {[true] = 1}"), "key of type boolean"));
  EXPECT_TRUE(has(error_of("return {[1] = 'a', ['1'] = 'b', [2] = 'c'}"), "two keys"));
  EXPECT_TRUE(has(error_of("return 1, print"), "result[2] is a function"));
  EXPECT_TRUE(has(error_of("local t = {} for i = 1, 300 do t = {t} end return t"), "nests deeper than 200"));
}

TEST(ScriptJsonTest, InputsAreADeepCopy) {
  DataToolHarness h;
  const json args = {
      {"code", "inputs.rows[1].price = 99 table.insert(inputs.rows, {price = 5}) inputs.note = 'changed' "
               "return inputs"},
      {"inputs", json::parse(R"({"rows": [{"price": 1}, {"price": 2}]})")}};
  const json before = args;
  const json out = h.ok("script", args);
  EXPECT_EQ(out["result"], json::parse(R"({"note": "changed", "rows": [{"price": 99}, {"price": 2}, {"price": 5}]})"));
  EXPECT_EQ(args, before);
  // A second call starts from the original inputs again, not from the first call's changes.
  EXPECT_EQ(h.ok("script", args)["result"]["rows"].size(), 3u);
  EXPECT_EQ(h.script("return inputs.rows[1].price", args["inputs"]), 1);
}

TEST(ScriptJsonTest, PrintOutputIsCapturedAndBounded) {
  DataToolOptions o;
  o.script.max_output_bytes = 64;
  DataToolHarness h(o);
  const json out = h.ok("script", {{"code", "print('hello', 1, nil, true) print({} ~= nil) return 7"}});
  EXPECT_EQ(out, json::parse(R"({"result": 7, "output": "hello\t1\tnil\ttrue\ntrue\n"})"));
  EXPECT_FALSE(h.ok("script", {{"code", "return 1"}}).contains("output"));
  const json flood = h.ok("script", {{"code", "for i = 1, 1000 do print('line', i) end return 'done'"}});
  EXPECT_EQ(flood["result"], "done");
  const std::string text = flood["output"];
  EXPECT_TRUE(has(text, "[print output truncated at 64 bytes]")) << text;
  EXPECT_LT(text.size(), 64u + 60u);
}

TEST(ScriptJsonTest, InvalidUtf8AndOversizedResults) {
  DataToolOptions o;
  o.script.max_result_bytes = 100;
  DataToolHarness h(o);
  Result<std::string> bytes = h.run("script", {{"code", "return 'a' .. string.char(255) .. 'b'"}});
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  EXPECT_EQ(json::parse(*bytes)["result"], "a\xEF\xBF\xBD" "b");
  Status big = h.script_error("return string.rep('x', 200)");
  EXPECT_EQ(big.code(), ErrorCode::kResourceExhausted);
  EXPECT_TRUE(has(big.message(), "over the limit of 100 bytes")) << big.message();
}

TEST(ScriptJsonTest, RowsFromAnotherToolAreUsable) {
  DataToolHarness h;
  // The shape parse_csv returns: filter and reshape rows, return an array of objects.
  const json rows = json::parse(R"([{"city": "Oslo", "temp": 4.5}, {"city": "Rome", "temp": 20},
                                   {"city": "Cairo", "temp": 30}])");
  const json warm = h.script(
      "local out = {} for _, r in ipairs(inputs.rows) do "
      "if r.temp > 10 then out[#out + 1] = {city = r.city:upper(), f = r.temp * 9 / 5 + 32} end end "
      "return out",
      {{"rows", rows}});
  EXPECT_EQ(warm, json::parse(R"([{"city": "ROME", "f": 68.0}, {"city": "CAIRO", "f": 86.0}])"));
}

}  // namespace
}  // namespace keel
