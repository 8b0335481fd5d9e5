// JsonIndex (json_scan.hpp) and the views that read through it (json_view.hpp): the spans a scan
// records, the fallback past the index's capacity or after a failed scan, and — on generated
// JSON — indexed views that answer exactly as views that scan the text.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/parsing/json/json_scan.hpp"
#include "core/parsing/json/json_view.hpp"

namespace keel::detail {
namespace {

std::string_view span(std::string_view text, const JsonIndex::Node& n) {
  return text.substr(n.begin, n.end - n.begin);
}

TEST(JsonIndex, RecordsEveryValueAndKeyInTextOrder) {
  const std::string text = R"(  {"a": [1, "x\"y"], "b": {}, "c": null}  )";
  JsonIndex index;
  const StrictJson v = scan_strict_json(text, &index);
  ASSERT_TRUE(v.ok);
  ASSERT_TRUE(index.usable());
  const std::string_view value = std::string_view(text).substr(v.begin, v.end - v.begin);
  // Nodes: {..} "a" [..] 1 "x\"y" "b" {} "c" null
  const std::vector<std::string> spans = {R"({"a": [1, "x\"y"], "b": {}, "c": null})",
                                          R"("a")",
                                          R"([1, "x\"y"])",
                                          "1",
                                          R"("x\"y")",
                                          R"("b")",
                                          "{}",
                                          R"("c")",
                                          "null"};
  for (size_t i = 0; i < spans.size(); ++i) EXPECT_EQ(span(value, index[i]), spans[i]) << i;
  const std::vector<unsigned> next = {9, 2, 5, 4, 5, 6, 7, 8, 9};
  for (size_t i = 0; i < next.size(); ++i) EXPECT_EQ(index[i].next, next[i]) << i;
  EXPECT_EQ(index[4].flags, JsonIndex::kEscaped);
  EXPECT_EQ(index[1].flags, 0);
}

TEST(JsonIndex, UnusablePastCapacityOrAfterAFailedScan) {
  std::string big = "[";
  for (size_t i = 0; i < JsonIndex::kCapacity; ++i) big += std::to_string(i) + ",";
  big += "0]";  // kCapacity + 2 values with the array
  JsonIndex index;
  ASSERT_TRUE(scan_strict_json(big, &index).ok);
  EXPECT_FALSE(index.usable());
  const JsonView view(big, &index);  // falls back to scanning
  JsonView::Items it = view.items();
  JsonView key, element;
  size_t n = 0;
  while (it.next(key, element)) ++n;
  EXPECT_EQ(n, JsonIndex::kCapacity + 1);

  ASSERT_TRUE(scan_strict_json("{\"a\": 1}", &index).ok);
  ASSERT_TRUE(index.usable());
  EXPECT_FALSE(scan_strict_json("{\"a\": 1} x", &index).ok);  // trailing text
  EXPECT_FALSE(index.usable());
  EXPECT_EQ(scan_json_value("{\"a\": ", 0, &index), std::string_view::npos);
  EXPECT_FALSE(index.usable());
}

TEST(JsonIndex, ScanJsonValueRecordsFromTheValueStart) {
  const std::string text = "<tag>  {\"k\": [true]}</tag>";
  JsonIndex index;
  const size_t end = scan_json_value(text, 5, &index);
  ASSERT_EQ(end, text.find("</tag>"));
  ASSERT_TRUE(index.usable());
  const std::string_view value = std::string_view(text).substr(7, end - 7);
  EXPECT_EQ(span(value, index[0]), "{\"k\": [true]}");
  EXPECT_EQ(span(value, index[3]), "true");
  const JsonView view(value, &index);
  EXPECT_EQ(view.find("k")->raw(), "[true]");
}

// A random JSON value (objects, arrays, strings with escapes, numbers, literals, whitespace).
std::string generate(std::mt19937& rng, int depth) {
  static const std::vector<std::string> keys = {"\"a\"", "\"b\"", "\"name\"", "\"a\\u0062\"", "\"\"", "\"x y\""};
  static const std::vector<std::string> scalars = {
      "1", "-2.5e3", "true", "false", "null", "\"s\"", "\"t\\n\\\"u\\\"\"", "\"\xC3\xA9\"", "0"};
  static const std::vector<std::string> spaces = {"", " ", "\n  ", "\t"};
  auto sp = [&] { return spaces[rng() % spaces.size()]; };
  const unsigned pick = depth > 3 ? 2 : rng() % 3;
  if (pick == 2) return scalars[rng() % scalars.size()];
  const bool object = pick == 0;
  std::string out = object ? "{" : "[";
  const unsigned n = rng() % 4;
  for (unsigned i = 0; i < n; ++i) {
    if (i) out += "," + sp();
    out += sp();
    if (object) out += keys[rng() % keys.size()] + sp() + ":" + sp();
    out += generate(rng, depth + 1);
    out += sp();
  }
  return out + (object ? "}" : "]");
}

// Everything a reader asks of `a` (scanning) and `b` (indexed) agrees, recursively.
void expect_same(JsonView a, JsonView b) {
  ASSERT_EQ(a.raw(), b.raw());
  ASSERT_EQ(a.type(), b.type());
  std::string ca, cb;
  a.append_compact(ca);
  b.append_compact(cb);
  EXPECT_EQ(ca, cb);
  if (a.is_string()) {
    EXPECT_EQ(a.str(), b.str());
  }
  if (!a.is_object() && !a.is_array()) return;
  EXPECT_EQ(a.empty(), b.empty());
  EXPECT_EQ(a.distinct_keys(3), b.distinct_keys(3));
  for (std::string_view k : {"a", "b", "name", "ab", "", "x y", "zz"}) {
    const auto fa = a.find(k);
    const auto fb = b.find(k);
    ASSERT_EQ(fa.has_value(), fb.has_value()) << k;
    if (fa) {
      EXPECT_EQ(fa->raw(), fb->raw()) << k;
    }
  }
  JsonView::Items ia = a.items();
  JsonView::Items ib = b.items();
  JsonView ka, va, kb, vb;
  for (;;) {
    const bool more = ia.next(ka, va);
    ASSERT_EQ(more, ib.next(kb, vb));
    if (!more) break;
    EXPECT_EQ(ka.raw(), kb.raw());
    expect_same(va, vb);
  }
}

TEST(JsonIndex, IndexedViewsAnswerAsScanningViewsOnGeneratedJson) {
  std::mt19937 rng(5);
  size_t indexed = 0;
  for (int n = 0; n < 3000; ++n) {
    const std::string text = generate(rng, 0);
    JsonIndex index;
    const StrictJson v = scan_strict_json(text, &index);
    ASSERT_TRUE(v.ok) << text;
    const std::string_view value = std::string_view(text).substr(v.begin, v.end - v.begin);
    if (index.usable()) ++indexed;
    SCOPED_TRACE(text);
    expect_same(JsonView(value), JsonView(value, &index));
  }
  EXPECT_GT(indexed, 2500u);  // most fit the index: the comparison is not of two scanning views
}

}  // namespace
}  // namespace keel::detail
