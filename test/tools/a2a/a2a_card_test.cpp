// A2A agent cards: where the JSON-RPC endpoint is (v1.0 and v0.3 cards), malformed cards, the
// origin check that keeps requests and the token on the configured server, and the description.
#include "tools/a2a/a2a_card.hpp"

#include <gtest/gtest.h>

namespace keel::detail {
namespace {

constexpr const char* kA2aCardUrl = "http://127.0.0.1:9999/.well-known/agent-card.json";

TEST(A2aCardTest, CardUrlOfABaseUrl) {
  EXPECT_EQ(a2a_card_url("http://127.0.0.1:9999"), kA2aCardUrl);
  EXPECT_EQ(a2a_card_url("http://127.0.0.1:9999/"), kA2aCardUrl);
  EXPECT_EQ(a2a_card_url("https://h/agents/r/"), "https://h/agents/r/.well-known/agent-card.json");
  EXPECT_EQ(a2a_card_url("https://h/cards/r.json"), "https://h/cards/r.json");
}

TEST(A2aCardTest, AVersion1Card) {
  Result<A2aCard> card = parse_a2a_card(R"({
    "name": "Echo", "description": "Says it back.", "version": "1.2.0",
    "supportedInterfaces": [
      {"url": "http://127.0.0.1:9999/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
      {"url": "http://127.0.0.1:9999/a2a/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "repeats", "tags": []}, {"id": "only-id"}]})",
                                        kA2aCardUrl);
  ASSERT_TRUE(card.ok()) << card.status().to_string();
  EXPECT_EQ(card->name, "Echo");
  EXPECT_EQ(card->description, "Says it back.");
  EXPECT_EQ(card->version, "1.2.0");
  EXPECT_EQ(card->rpc_url, "http://127.0.0.1:9999/a2a/jsonrpc");
  EXPECT_EQ(card->protocol, A2aProtocol::kV1);
  ASSERT_EQ(card->skills.size(), 2u);
  EXPECT_EQ(card->skills[0], (std::pair<std::string, std::string>("Echo", "repeats")));
  EXPECT_EQ(card->skills[1].first, "only-id");
}

TEST(A2aCardTest, Version1IsPreferredOverVersion03AndRelativeUrlsAreResolved) {
  Result<A2aCard> both = parse_a2a_card(R"({"supportedInterfaces": [
      {"url": "/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
      {"url": "/v1", "protocolBinding": "jsonrpc", "protocolVersion": "1.0"}]})",
                                        kA2aCardUrl);
  ASSERT_TRUE(both.ok()) << both.status().to_string();
  EXPECT_EQ(both->rpc_url, "http://127.0.0.1:9999/v1");
  EXPECT_EQ(both->protocol, A2aProtocol::kV1);
  Result<A2aCard> legacy_only = parse_a2a_card(
      R"({"supportedInterfaces": [{"url": "/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]})",
      kA2aCardUrl);
  ASSERT_TRUE(legacy_only.ok());
  EXPECT_EQ(legacy_only->protocol, A2aProtocol::kV03);
}

TEST(A2aCardTest, AVersion03Card) {
  Result<A2aCard> card = parse_a2a_card(
      R"({"name": "Old", "url": "http://127.0.0.1:9999/", "protocolVersion": "0.3.0", "skills": []})", kA2aCardUrl);
  ASSERT_TRUE(card.ok()) << card.status().to_string();
  EXPECT_EQ(card->rpc_url, "http://127.0.0.1:9999/");
  EXPECT_EQ(card->protocol, A2aProtocol::kV03);
  Result<A2aCard> extra = parse_a2a_card(R"({"url": "http://127.0.0.1:9999/grpc", "preferredTransport": "GRPC",
      "additionalInterfaces": [{"url": "http://127.0.0.1:9999/rpc", "transport": "JSONRPC"}]})",
                                         kA2aCardUrl);
  ASSERT_TRUE(extra.ok());
  EXPECT_EQ(extra->rpc_url, "http://127.0.0.1:9999/rpc");
}

TEST(A2aCardTest, MalformedCards) {
  Result<A2aCard> html = parse_a2a_card("<html>\n<body>Not here</body></html>", kA2aCardUrl);
  ASSERT_FALSE(html.ok());
  EXPECT_EQ(html.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(html.status().message(), std::string("the agent card at ") + kA2aCardUrl +
                                         " is not a JSON object: <html> <body>Not here</body></html>");
  EXPECT_EQ(parse_a2a_card("", kA2aCardUrl).status().message(),
            std::string("the agent card at ") + kA2aCardUrl + " is not a JSON object (the body is empty)");
  EXPECT_FALSE(parse_a2a_card("[1, 2]", kA2aCardUrl).ok());
  EXPECT_FALSE(
      parse_a2a_card(R"({"supportedInterfaces": [{"url": "mailto:x@y", "protocolBinding": "JSONRPC"}]})", kA2aCardUrl)
          .ok());
}

TEST(A2aCardTest, ACardWithoutAJsonRpcInterface) {
  Result<A2aCard> card = parse_a2a_card(R"({"name": "G", "supportedInterfaces": [
      {"url": "http://h/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
      {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]})",
                                        kA2aCardUrl);
  ASSERT_FALSE(card.ok());
  EXPECT_EQ(card.status().message(), std::string("the agent card at ") + kA2aCardUrl +
                                         " offers no JSON-RPC interface (it offers GRPC at http://h/grpc, HTTP+JSON at "
                                         "http://h/rest); keel speaks A2A over JSON-RPC only");
  EXPECT_EQ(parse_a2a_card(R"({"name": "nothing"})", kA2aCardUrl).status().message(),
            std::string("the agent card at ") + kA2aCardUrl +
                " offers no JSON-RPC interface (it lists no interface at all); keel speaks A2A over JSON-RPC only");
}

TEST(A2aCardTest, TheEndpointMustBeOnTheConfiguredOrigin) {
  A2aCard card;
  card.rpc_url = "http://127.0.0.1:9999/a2a/jsonrpc";
  EXPECT_TRUE(check_a2a_origin(card, "http://127.0.0.1:9999", "r").ok());
  EXPECT_TRUE(check_a2a_origin(card, "http://127.0.0.1:9999/some/path/", "r").ok());
  card.rpc_url = "http://h.example/rpc";
  EXPECT_TRUE(check_a2a_origin(card, "http://h.example:80", "r").ok()) << "the default port is the same origin";
  for (const char* elsewhere : {"http://attacker.example/rpc", "https://h.example/rpc", "http://h.example:8080/rpc"}) {
    card.rpc_url = elsewhere;
    Status s = check_a2a_origin(card, "http://h.example", "remote agent 'r'");
    EXPECT_EQ(s.code(), ErrorCode::kPermissionDenied) << elsewhere;
    EXPECT_EQ(s.message(), std::string("remote agent 'r': its agent card names the JSON-RPC endpoint ") + elsewhere +
                               ", which is not on the configured origin http://h.example:80; keel sends requests (and "
                               "the token) only to the configured origin. If that endpoint is the same server under "
                               "another name, set the agent's url in a2a_agents to it");
  }
}

TEST(A2aCardTest, TheDescriptionIsBoundedPlainText) {
  A2aCard card;
  card.name = "Research\nBot";
  card.description = "Finds\tthings.\x01";
  card.skills = {{"search", "web search"}, {"cite", ""}};
  const std::string d = a2a_card_description(card, "researcher");
  EXPECT_EQ(d,
            "Ask the remote agent 'researcher' (Research Bot) over A2A and get its answer. It says: Finds things. "
            "Skills: search (web search); cite. Pass the context_id of an earlier answer to continue that conversation "
            "(e.g. to answer its question).");
  card.description = std::string(5000, 'z');
  EXPECT_LE(a2a_card_description(card, "researcher", 600).size(), 600u);
}

}  // namespace
}  // namespace keel::detail
