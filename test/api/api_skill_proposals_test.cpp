// Skill proposals over keel serve's API: listed and decided by their public id, only in the
// server's workspace; sequential ids and another workspace's proposals are 404.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/api_harness.hpp"
#include "support/scoped_env.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class ApiSkillProposals : public ::testing::Test {
 protected:
  ApiHarnessOptions options() {
    ApiHarnessOptions o;
    o.serve_factory = true;
    return o;
  }
  SkillProposal proposal(const std::string& ws, const std::string& summary) {
    SkillProposal p;
    p.workspace = ws;
    p.skill = "triage";
    p.summary = summary;
    return p;
  }
  TempDir home_;
  ScopedEnv home_env_{"HOME", home_.path().string()};
  ScopedEnv xdg_{"XDG_CONFIG_HOME", (home_.path() / "config").string()};
  ScopedEnv keel_home_{"KEEL_HOME", (home_.path() / "keel").string()};
  ScopedEnv model_{"KEEL_MODEL", std::nullopt};
};

TEST_F(ApiSkillProposals, OnlyThisWorkspacesProposalsAndOnlyByPublicId) {
  ApiHarness h(options());
  const std::string ws = std::filesystem::canonical(h.workspace()).string();
  int64_t mine = *h.store().add_skill_proposal(proposal(ws, "label the issue"));
  int64_t theirs = *h.store().add_skill_proposal(proposal("/elsewhere", "their proposal"));
  const std::string mine_id = h.store().get_skill_proposal(mine)->public_id;
  const std::string theirs_id = h.store().get_skill_proposal(theirs)->public_id;

  json listed = h.call_json("GET", "/api/skills");
  ASSERT_EQ(listed["proposals"].size(), 1u) << listed;
  EXPECT_EQ(listed["proposals"][0]["id"], mine_id);
  EXPECT_EQ(listed["proposals"][0]["summary"], "label the issue");

  const std::string reject = R"({"decision":"reject"})";
  for (const std::string& id : {theirs_id, std::to_string(mine), std::to_string(theirs),
                                std::string("sp_0123456789abcdef0123456789abcdef")}) {
    RawHttpResponse r = h.call("POST", "/api/skills/proposals/" + id, reject);
    EXPECT_EQ(r.status, 404) << id << ": " << r.body;
    EXPECT_EQ(json::parse(r.body)["error"]["message"], "no skill proposal '" + id + "' in this workspace") << r.body;
  }
  EXPECT_EQ(h.store().get_skill_proposal(theirs)->status, ProposalStatus::kPending);
  EXPECT_EQ(h.store().get_skill_proposal(mine)->status, ProposalStatus::kPending);

  json rejected = h.call_json("POST", "/api/skills/proposals/" + mine_id, reject);
  EXPECT_EQ(rejected["id"], mine_id);
  EXPECT_EQ(rejected["status"], "rejected");
  EXPECT_EQ(h.call("POST", "/api/skills/proposals/" + mine_id, reject).status, 409);
}

}  // namespace
}  // namespace keel::testing
