// The official JSON Schema Test Suite (github.com/json-schema-org/JSON-Schema-Test-Suite, as
// packaged by Debian: json-schema-test-suite 2.0.0) run against keel's tool-argument validation
// for draft 7, the draft keel claims (src/tools/schema_validator.hpp).
//
// Every case of tests/draft7/*.json (the required part of the suite; optional/ covers formats and
// bignums that the suite itself marks optional) must pass, except those listed with a reason in
// json_schema_suite/known_failures.json. A listed case that starts passing fails the test too,
// so the list stays exactly the set of known gaps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tools/schema_validator.hpp"

namespace keel::detail {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The suite's folder: unpacked into build/deps by scripts/install-deps.sh test, or installed.
fs::path suite_dir() {
  const fs::path candidates[] = {
      fs::path(KEEL_SOURCE_DIR) / "build/deps/json-schema-test-suite/usr/share/json-schema-test-suite",
      "/usr/share/json-schema-test-suite",
  };
  for (const fs::path& c : candidates) {
    if (fs::is_directory(c / "tests/draft7")) return c;
  }
  return {};
}

json read_json_file(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// "file.json: group description: test description", the key known_failures.json uses.
std::string case_key(const std::string& file, const json& group, const json& test) {
  return file + ": " + group.value("description", "") + ": " + test.value("description", "");
}

std::string lines(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += "\n  " + k;
  return out;
}

// What keel's validation says about one case: true when it agrees with the suite.
bool agrees(const json& schema, const json& data, bool expected_valid) {
  auto compiled = CompiledSchema::compile(schema.dump());
  if (!compiled.ok()) return false;  // a schema keel cannot compile counts as a failure
  const bool valid = (*compiled)->validate(data, "suite").ok();
  return valid == expected_valid;
}

TEST(JsonSchemaSuiteTest, Draft7RequiredCasesPassExceptTheKnownGaps) {
  const fs::path dir = suite_dir();
  ASSERT_FALSE(dir.empty()) << "the JSON Schema Test Suite is missing: run scripts/install-deps.sh test "
                               "(it unpacks Debian's json-schema-test-suite into build/deps)";
  const json known = read_json_file(fs::path(KEEL_SOURCE_DIR) / "test/tools/json_schema_suite/known_failures.json");
  std::map<std::string, std::string> known_failures;
  for (const auto& [key, reason] : known.at("cases").items()) known_failures[key] = reason.get<std::string>();

  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir / "tests/draft7")) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 30u) << "draft7 looks incomplete under " << dir;

  int total = 0, passed = 0;
  std::set<std::string> seen;
  std::vector<std::string> unexpected_failures, unexpected_passes;
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    for (const json& group : read_json_file(file)) {
      for (const json& test : group.at("tests")) {
        const std::string key = case_key(name, group, test);
        seen.insert(key);
        ++total;
        const bool ok = agrees(group.at("schema"), test.at("data"), test.at("valid").get<bool>());
        if (ok) ++passed;
        const bool listed = known_failures.count(key) > 0;
        if (!ok && !listed) unexpected_failures.push_back(key);
        if (ok && listed) unexpected_passes.push_back(key);
      }
    }
  }
  std::vector<std::string> stale;
  for (const auto& [key, reason] : known_failures) {
    if (!seen.count(key)) stale.push_back(key);
  }
  // The figure the README states.
  std::printf("JSON Schema Test Suite, draft 7 (required): %d of %d cases pass (%zu known gaps)\n", passed, total,
              known_failures.size());
  EXPECT_TRUE(unexpected_failures.empty()) << "failing cases not in known_failures.json:"
                                           << lines(unexpected_failures);
  EXPECT_TRUE(unexpected_passes.empty()) << "listed as known failures but now pass (remove them):"
                                         << lines(unexpected_passes);
  EXPECT_TRUE(stale.empty()) << "listed cases the suite no longer has:" << lines(stale);
}

}  // namespace
}  // namespace keel::detail
