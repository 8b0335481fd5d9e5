// Postcondition kinds, each with outputs that must fail and outputs that must pass. The `ls`, `du`
// and `wc` texts are what GNU coreutils print (captured in a C locale).
#include "keel/core/postcondition.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "keel/tool_spec.hpp"

namespace keel {
namespace {

constexpr const char* kLsReason =
    "the output is only the \"total N\" block count that `ls -l` prints before the entries, and no entries";

// The reason `p` gives for `output`, or "" when it passes.
std::string why(const Postcondition& p, std::string_view output, std::string_view args = "{}") {
  auto f = check_postcondition(p, output, args);
  return f ? f->reason : "";
}

TEST(PostconditionTest, NotEmptyFailsOnlyOnBlankOutput) {
  Postcondition p = Postcondition::not_empty();
  EXPECT_EQ(p.name, "not_empty");
  EXPECT_EQ(why(p, ""), "the output is blank");
  EXPECT_EQ(why(p, " \n\t\r\n  \n"), "the output is blank");
  EXPECT_EQ(why(p, "x"), "");
  EXPECT_EQ(why(p, "\n\n0\n"), "");
  EXPECT_EQ(why(p, "[exit code 0]"), "");  // without ignore_prefixes a note line is data
  p.ignore_prefixes = {"[exit code "};
  EXPECT_EQ(why(p, "\n[exit code 0]"), "the output is blank");
  EXPECT_EQ(why(p, "  [exit code 1]\n"), "the output is blank");
  EXPECT_EQ(why(p, "(no output)\n[exit code 0]"), "");
}

TEST(PostconditionTest, NotMetadataOnlyFailsOnLsTotalsAlone) {
  Postcondition p = Postcondition::not_metadata_only();
  EXPECT_EQ(p.name, "not_metadata_only");
  // `ls -lS | head -n 1` and the total line in each of ls's size formats.
  for (const char* out : {"total 7079928", "total 12\n", "total 316K", "total 1M", "total 6.8G", "total 316KiB",
                          "total 324kB", "total 324k", "total 323,584", "total\t12", "  total 12  \r\n\n"}) {
    EXPECT_EQ(why(p, out), kLsReason) << out;
  }
  // `ls -l d | head -n 2` with several directories: "d:" headers before their totals.
  EXPECT_EQ(why(p, "d:\ntotal 12\n\nempty:\ntotal 0\n"), kLsReason);
  // The shell's note line is data unless the postcondition ignores it.
  EXPECT_EQ(why(p, "total 12\n[exit code 0]"), "");
  p.ignore_prefixes = {"[exit code "};
  EXPECT_EQ(why(p, "total 12\n[exit code 0]"), kLsReason);
}

TEST(PostconditionTest, NotMetadataOnlyPassesRealData) {
  Postcondition p = Postcondition::not_metadata_only();
  p.ignore_prefixes = {"[exit code "};
  const char* listing =
      "total 12\n"
      "-rw-r--r-- 1 root root 5000 Nov 22 20:30 a.bin\n"
      "-rw-r--r-- 1 root root    3 Nov 22 20:30 b.txt\n"
      "-rw-r--r-- 1 root root    0 Nov 22 20:30 zero\n";
  EXPECT_EQ(why(p, listing), "");
  EXPECT_EQ(why(p, "total 12\n8 -rw-r--r-- 1 root root 5000 Nov 22 20:30 a.bin\n"), "");  // ls -ls
  EXPECT_EQ(why(p, "d:\ntotal 12\n-rw-r--r-- 1 root root 5000 Nov 22 20:30 a.bin\n\nempty:\ntotal 0\n"), "");
  // `ls -l` of an empty directory: an honest, complete listing.
  EXPECT_EQ(why(p, "total 0\n[exit code 0]"), "");
  EXPECT_EQ(why(p, "a:\ntotal 0\n\nb:\ntotal 0\n"), "");
  // du and wc print sums a task may ask for.
  EXPECT_EQ(why(p, "16\td\n"), "");                                 // du -s d
  EXPECT_EQ(why(p, "16K\td\n"), "");                                // du -sh d
  EXPECT_EQ(why(p, "8\td/a.bin\n4\td/b.txt\n0\td/zero\n12\ttotal\n"), "");  // du -c d/*
  EXPECT_EQ(why(p, "12\ttotal\n"), "");                             // du -c d/* | tail -n 1
  EXPECT_EQ(why(p, "   1 d/b.txt\n  24 /etc/passwd\n  25 total\n"), "");  // wc -l
  EXPECT_EQ(why(p, "  25 total\n"), "");                            // wc -l ... | tail -n 1
  EXPECT_EQ(why(p, "  24   31 1221 /etc/passwd\n"), "");             // wc
  EXPECT_EQ(why(p, "total 1234 567 667 46% -\n"), "");              // df --total | tail -n 1
  // Lines that only look like ls's total.
  for (const char* out : {"total", "Total 12", "total: 12", "total 12 files", "subtotal 12", "total 12x", "total -3",
                          "total .5", "", "\n\n"}) {
    EXPECT_EQ(why(p, out), "") << out;
  }
  EXPECT_EQ(why(p, "x:\ntotal 12\nlast line\n"), "");
  EXPECT_EQ(why(p, "x:\nnot a total\n"), "");
}

TEST(PostconditionTest, MinLinesCountsNonBlankDataLines) {
  Postcondition p = Postcondition::at_least_lines(3);
  EXPECT_EQ(p.name, "min_lines");
  EXPECT_EQ(p.min_lines, 3u);
  EXPECT_EQ(why(p, "a\nb\n"), "the output has 2 non-blank lines; at least 3 are required");
  EXPECT_EQ(why(p, "a\n\n\n  \n"), "the output has 1 non-blank line; at least 3 are required");
  EXPECT_EQ(why(p, ""), "the output has 0 non-blank lines; at least 3 are required");
  EXPECT_EQ(why(p, "a\n\nb\nc"), "");
  p.ignore_prefixes = {"[exit code "};
  EXPECT_EQ(why(p, "a\nb\n[exit code 0]"), "the output has 2 non-blank lines; at least 3 are required");
  EXPECT_EQ(why(Postcondition::at_least_lines(0), ""), "");
}

TEST(PostconditionTest, ContainsAnyIsCaseSensitiveAndSkipsNoteLines) {
  Postcondition p = Postcondition::contains_any({"error", "warning"});
  EXPECT_EQ(p.name, "contains_any");
  EXPECT_EQ(why(p, "all good"), "the output contains none of \"error\", \"warning\"");
  EXPECT_EQ(why(p, "1 WARNING"), "the output contains none of \"error\", \"warning\"");
  EXPECT_EQ(why(p, "build ok\n1 warning generated\n"), "");
  EXPECT_EQ(why(p, "an error"), "");
  p.ignore_prefixes = {"[note"};
  EXPECT_EQ(why(p, "fine\n[note: no error]"), "the output contains none of \"error\", \"warning\"");
  EXPECT_EQ(why(Postcondition::contains_any({}), "anything"), "");
}

TEST(PostconditionTest, CustomGetsOutputAndArguments) {
  std::string seen_output, seen_args;
  Postcondition p = Postcondition::custom(
      "mentions_path",
      [&](std::string_view out, std::string_view args) -> std::optional<std::string> {
        seen_output = std::string(out);
        seen_args = std::string(args);
        if (out.find("a.txt") != std::string_view::npos) return std::nullopt;
        return std::string("the output does not mention a.txt");
      },
      "Name the file.");
  EXPECT_EQ(p.kind, PostconditionKind::kCustom);
  EXPECT_EQ(p.name, "mentions_path");
  auto f = check_postcondition(p, "b.txt\n[exit code 0]", R"({"path":"a.txt"})");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->name, "mentions_path");
  EXPECT_EQ(f->reason, "the output does not mention a.txt");
  EXPECT_EQ(f->hint, "Name the file.");
  EXPECT_EQ(f->excerpt, "b.txt\\n[exit code 0]");
  EXPECT_EQ(seen_output, "b.txt\n[exit code 0]");  // a custom check sees the whole output
  EXPECT_EQ(seen_args, R"({"path":"a.txt"})");
  EXPECT_FALSE(check_postcondition(p, "a.txt", "{}"));
}

TEST(PostconditionTest, CustomEdgeCases) {
  Postcondition empty_reason =
      Postcondition::custom("json_object", [](std::string_view, std::string_view) { return std::optional<std::string>(""); });
  EXPECT_EQ(why(empty_reason, "x"), "json_object does not hold");
  EXPECT_EQ(empty_reason.hint, "Call the tool again so that its output satisfies json_object; if that is impossible, say "
                               "so in your answer.");
  Postcondition throws = Postcondition::custom("strict", [](std::string_view, std::string_view) -> std::optional<std::string> {
    throw std::runtime_error("bad input");
  });
  EXPECT_EQ(why(throws, "x"), "the check could not read the output (bad input)");
  Postcondition no_function = Postcondition::custom("none", nullptr);
  EXPECT_EQ(why(no_function, ""), "");
}

TEST(PostconditionTest, ScopeLimitsTheCheckToCallsRunningThePrograms) {
  Postcondition p = Postcondition::not_metadata_only();
  p.applies_to.programs = {"ls", "dir", "vdir"};
  EXPECT_EQ(why(p, "total 42", R"({"command":"ls -lS | head -n 1"})"), kLsReason);
  EXPECT_EQ(why(p, "total 42", R"({"command":"cd src && /bin/ls -l | head -1"})"), kLsReason);
  EXPECT_EQ(why(p, "total 42", R"({"command":"vdir | head -n 1"})"), kLsReason);
  // A script's "total 42" is its answer, not ls's block count.
  EXPECT_EQ(why(p, "total 42", R"({"command":"python3 sum.py"})"), "");
  EXPECT_EQ(why(p, "total 42", R"({"command":"echo 'ls -l'"})"), "");
  // No such argument, or arguments that are not an object: the call is not in scope.
  EXPECT_EQ(why(p, "total 42", R"({"cmd":"ls -l"})"), "");
  EXPECT_EQ(why(p, "total 42", R"({"command":["ls"]})"), "");
  EXPECT_EQ(why(p, "total 42", "not json"), "");
  EXPECT_EQ(why(p, "total 42", ""), "");
  p.applies_to.argument = "script";
  EXPECT_EQ(why(p, "total 42", R"({"script":"ls -l | head -1"})"), kLsReason);
}

TEST(PostconditionTest, FailureCarriesNameHintAndExcerpt) {
  Postcondition p = Postcondition::not_metadata_only();
  p.ignore_prefixes = {"[exit code "};
  auto f = check_postcondition(p, "d:\ntotal 7079928\n[exit code 0]\n", "{}");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->name, "not_metadata_only");
  EXPECT_EQ(f->reason, kLsReason);
  EXPECT_EQ(f->excerpt, "d:\\ntotal 7079928");
  EXPECT_EQ(f->hint, p.hint);
  EXPECT_NE(f->hint.find("`ls -lS | sed -n 2p`"), std::string::npos) << f->hint;

  auto blank = check_postcondition(Postcondition::not_empty(), "\n\n", "{}");
  ASSERT_TRUE(blank);
  EXPECT_EQ(blank->excerpt, "(empty)");

  auto long_output = check_postcondition(Postcondition::at_least_lines(5), std::string(300, 'x'), "{}");
  ASSERT_TRUE(long_output);
  EXPECT_EQ(long_output->excerpt, std::string(160, 'x') + "…");

  Postcondition named = Postcondition::not_empty();
  named.name = "has_output";
  named.hint = "Print something.";
  auto renamed = check_postcondition(named, "", "{}");
  ASSERT_TRUE(renamed);
  EXPECT_EQ(renamed->name, "has_output");
  EXPECT_EQ(renamed->hint, "Print something.");
}

TEST(PostconditionTest, SpecChecksInOrderAndReportsTheFirstFailure) {
  ToolSpec spec;
  spec.name = "t";
  EXPECT_FALSE(check_postconditions(spec, "", "{}"));  // none declared
  spec.postconditions = {Postcondition::not_empty(), Postcondition::at_least_lines(2)};
  auto first = check_postconditions(spec, "", "{}");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->name, "not_empty");
  auto second = check_postconditions(spec, "one", "{}");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->name, "min_lines");
  EXPECT_EQ(second->reason, "the output has 1 non-blank line; at least 2 are required");
  EXPECT_FALSE(check_postconditions(spec, "one\ntwo", "{}"));
}

TEST(PostconditionTest, DescribeSaysWhatEachKindRequires) {
  EXPECT_EQ(describe_postcondition(Postcondition::not_empty()), "not_empty: the output must not be blank");
  EXPECT_EQ(describe_postcondition(Postcondition::at_least_lines(2)),
            "min_lines: the output must have at least 2 non-blank lines");
  EXPECT_EQ(describe_postcondition(Postcondition::contains_any({"ok", "done"})),
            "contains_any: the output must contain one of \"ok\", \"done\"");
  EXPECT_EQ(describe_postcondition(Postcondition::custom("valid_json", nullptr)),
            "valid_json (custom): checked by the embedding program");
  Postcondition ls = Postcondition::not_metadata_only();
  ls.applies_to.programs = {"ls", "dir", "vdir"};
  EXPECT_EQ(describe_postcondition(ls),
            "not_metadata_only: the output must be more than the \"total N\" lines of `ls -l` (only calls whose "
            "command runs ls, dir or vdir)");
}

TEST(PostconditionTest, JsonRoundTrip) {
  Postcondition p = Postcondition::not_metadata_only();
  p.ignore_prefixes = {"[exit code "};
  p.applies_to.programs = {"ls"};
  nlohmann::json j = postcondition_to_json(p);
  EXPECT_EQ(j["name"], "not_metadata_only");
  EXPECT_EQ(j["kind"], "not_metadata_only");
  EXPECT_EQ(j["hint"], p.hint);
  EXPECT_EQ(j["ignore_prefixes"], nlohmann::json::array({"[exit code "}));
  EXPECT_EQ(j["applies_to"], nlohmann::json({{"argument", "command"}, {"programs", nlohmann::json::array({"ls"})}}));
  EXPECT_FALSE(j.contains("min_lines"));
  auto back = postcondition_from_json(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->kind, PostconditionKind::kNotMetadataOnly);
  EXPECT_EQ(back->hint, p.hint);
  EXPECT_EQ(back->ignore_prefixes, p.ignore_prefixes);
  EXPECT_EQ(back->applies_to.programs, p.applies_to.programs);

  auto lines = postcondition_from_json(nlohmann::json::parse(R"({"kind":"min_lines","min_lines":4,"name":"four"})"));
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(lines->name, "four");
  EXPECT_EQ(lines->min_lines, 4u);
  EXPECT_EQ(lines->hint, Postcondition::at_least_lines(4).hint);
  EXPECT_EQ(postcondition_to_json(*lines)["min_lines"], 4);

  auto any = postcondition_from_json(nlohmann::json::parse(R"({"kind":"contains_any","any_of":["a","b"],"hint":"H"})"));
  ASSERT_TRUE(any.ok()) << any.status().message();
  EXPECT_EQ(any->any_of, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(any->hint, "H");

  auto shorthand = postcondition_from_json("not_empty");
  ASSERT_TRUE(shorthand.ok());
  EXPECT_EQ(shorthand->kind, PostconditionKind::kNotEmpty);
  EXPECT_EQ(shorthand->hint, Postcondition::not_empty().hint);
}

TEST(PostconditionTest, JsonErrorsNameTheProblem) {
  auto msg = [](const char* text) {
    auto r = postconditions_from_json(nlohmann::json::parse(text));
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(msg(R"(["not_empty", {"kind":"not_metadata_only"}])"), "ok");
  EXPECT_EQ(msg(R"(["sometimes"])"),
            "postconditions[0]: unknown postcondition kind 'sometimes'; use not_empty, not_metadata_only, min_lines or "
            "contains_any");
  EXPECT_EQ(msg(R"(["not_empty", "custom"])"),
            "postconditions[1]: a custom postcondition carries a function and cannot be read from JSON; add it in code "
            "with Postcondition::custom()");
  EXPECT_EQ(msg(R"([{"kind":"not_empty","min_lines":2}])"),
            "postconditions[0]: unknown field 'min_lines' for a not_empty postcondition");
  EXPECT_EQ(msg(R"([{"kind":"min_lines","min_lines":-1}])"),
            "postconditions[0]: postcondition field 'min_lines' must be an integer >= 0");
  EXPECT_EQ(msg(R"([{"kind":"contains_any"}])"),
            "postconditions[0]: a contains_any postcondition needs a non-empty \"any_of\" array of strings");
  EXPECT_EQ(msg(R"([{"kind":"contains_any","any_of":[1]}])"),
            "postconditions[0]: postcondition field 'any_of' must hold only strings");
  EXPECT_EQ(msg(R"([{"name":"x"}])"),
            "postconditions[0]: a postcondition needs a \"kind\" string, e.g. {\"kind\":\"not_empty\"}");
  EXPECT_EQ(msg(R"([{"kind":"not_empty","hint":""}])"),
            "postconditions[0]: postcondition field 'hint' must be a non-empty string");
  EXPECT_EQ(msg(R"([{"kind":"not_empty","applies_to":{"program":["ls"]}}])"),
            "postconditions[0]: unknown or mistyped field 'applies_to.program'; use \"argument\" (a string) and "
            "\"programs\" (strings)");
  EXPECT_EQ(msg(R"([3])"), "postconditions[0]: a postcondition must be a kind name or a JSON object");
  EXPECT_EQ(msg(R"({"kind":"not_empty"})"), "\"postconditions\" must be an array");
}

TEST(PostconditionTest, KindNames) {
  EXPECT_EQ(postcondition_kind_name(PostconditionKind::kNotEmpty), "not_empty");
  EXPECT_EQ(postcondition_kind_name(PostconditionKind::kNotMetadataOnly), "not_metadata_only");
  EXPECT_EQ(postcondition_kind_name(PostconditionKind::kMinLines), "min_lines");
  EXPECT_EQ(postcondition_kind_name(PostconditionKind::kContainsAny), "contains_any");
  EXPECT_EQ(postcondition_kind_name(PostconditionKind::kCustom), "custom");
}

}  // namespace
}  // namespace keel
