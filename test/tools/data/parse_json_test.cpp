#include <gtest/gtest.h>

#include "data_tool_harness.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::DataToolHarness;
using testing::has;

const char* kDoc = R"({
  "store": {
    "name": "corner shop",
    "books": [
      {"title": "Dune", "price": 9.5, "author": {"name": "Herbert"}},
      {"title": "Emma", "price": 4, "author": {"name": "Austen"}},
      {"title": "Ulysses", "price": 12}
    ],
    "opening hours": {"mon": "9-17"},
    "price": 0
  },
  "tags": ["a", "b", "c"]
})";

class ParseJsonTest : public ::testing::Test {
 protected:
  json select(const std::string& path) { return h_.ok("parse_json", {{"text", kDoc}, {"path", path}}); }
  Status select_error(const std::string& path) {
    Result<std::string> r = h_.run("parse_json", {{"text", kDoc}, {"path", path}});
    EXPECT_FALSE(r.ok()) << path << " gave " << (r.ok() ? *r : "");
    return r.status();
  }
  DataToolHarness h_;
};

TEST_F(ParseJsonTest, ParsesAndReturnsCompactJson) {
  Result<std::string> r = h_.run("parse_json", {{"text", " {\"b\": [1, 2.5, null],\n \"a\": \"x\"} "}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(*r, R"({"a":"x","b":[1,2.5,null]})");
  EXPECT_EQ(h_.ok("parse_json", {{"text", "42"}}), 42);
  EXPECT_EQ(select("$"), json::parse(kDoc));
}

TEST_F(ParseJsonTest, InvalidJsonNamesLineAndColumn) {
  Result<std::string> r = h_.run("parse_json", {{"text", "{\n  \"a\": 1,\n  \"b\": tru\n}"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has(r.status().message(), "invalid JSON at line 3, column")) << r.status().message();
  Result<std::string> trailing = h_.run("parse_json", {{"text", "[1, 2,]"}});
  EXPECT_TRUE(has(trailing.status().message(), "line 1, column 7")) << trailing.status().message();
  EXPECT_EQ(h_.run("parse_json", {{"text", "   "}}).status().code(), ErrorCode::kInvalidArgument);
  const std::string deep = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_TRUE(has(h_.run("parse_json", {{"text", deep}}).status().message(), "nests deeper than 512"));
}

TEST_F(ParseJsonTest, DefinitePathsSelectOneValue) {
  EXPECT_EQ(select("$.store.name"), "corner shop");
  EXPECT_EQ(select("store.name"), "corner shop");  // "$." may be left out
  EXPECT_EQ(select("$.store.books[0].title"), "Dune");
  EXPECT_EQ(select("$.store.books[-1].title"), "Ulysses");
  EXPECT_EQ(select("$['store']['opening hours'].mon"), "9-17");
  EXPECT_EQ(select("$[\"store\"].books[1].author.name"), "Austen");
  EXPECT_EQ(select("$.tags[2]"), "c");
  // A definite path that selects an array returns the array itself.
  EXPECT_EQ(select("$.tags"), json({"a", "b", "c"}));
}

TEST_F(ParseJsonTest, WildcardsAndRecursiveDescentReturnArrays) {
  EXPECT_EQ(select("$.store.books[*].title"), json({"Dune", "Emma", "Ulysses"}));
  EXPECT_EQ(select("$.tags.*"), json({"a", "b", "c"}));
  EXPECT_EQ(select("$.store.books[*].author.name"), json({"Herbert", "Austen"}));
  // Document order, every depth, the root's own members included.
  EXPECT_EQ(select("$..price"), json({0, 9.5, 4, 12}));  // store.price comes before its books
  EXPECT_EQ(select("$..author.name"), json({"Herbert", "Austen"}));
  EXPECT_EQ(select("$..books[-1].title"), json({"Ulysses"}));  // one match, still an array
  EXPECT_EQ(select("$.store['opening hours'].*"), json({"9-17"}));
}

TEST_F(ParseJsonTest, NoMatchNamesThePathAndWhatIsThere) {
  Status key = select_error("$.store.nmae");
  EXPECT_EQ(key.code(), ErrorCode::kNotFound);
  EXPECT_TRUE(has(key.message(), "path '$.store.nmae' matched nothing")) << key.message();
  EXPECT_TRUE(has(key.message(), "no key 'nmae' in the object at $.store; its keys: books, name")) << key.message();
  Status index = select_error("$.tags[5]");
  EXPECT_TRUE(has(index.message(), "index 5 is out of range for the array at $.tags (3 items)")) << index.message();
  Status type = select_error("$.store.name.first");
  EXPECT_TRUE(has(type.message(), "the value at $.store.name is a string")) << type.message();
  Status deep = select_error("$..isbn");
  EXPECT_EQ(deep.code(), ErrorCode::kNotFound);
  EXPECT_TRUE(has(deep.message(), "'$..isbn'")) << deep.message();
}

TEST_F(ParseJsonTest, MalformedPathsAreExplained) {
  for (const char* bad : {"$.store[", "$.store['name", "$[x]", "$.tags[1", "$.", "$store"}) {
    Status s = select_error(bad);
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << bad << ": " << s.to_string();
    EXPECT_TRUE(has(s.message(), "invalid path")) << s.message();
  }
}

}  // namespace
}  // namespace keel
