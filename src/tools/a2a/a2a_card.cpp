// Reading an A2A agent card; see a2a_card.hpp.
#include "tools/a2a/a2a_card.hpp"

#include <nlohmann/json.hpp>
#include <optional>

#include "core/text/text_util.hpp"
#include "core/text/utf8_text.hpp"
#include "tools/web/web_url.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

std::string card_string(const json& obj, const char* camel, const char* snake = nullptr) {
  if (!obj.is_object()) return {};
  for (const char* key : {camel, snake}) {
    if (key == nullptr) continue;
    auto it = obj.find(key);
    if (it != obj.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

std::string card_upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

// One line of plain text: control characters and runs of white space become one space.
std::string card_flatten(std::string_view text) {
  return collapse_spaces(sanitize_utf8(text));
}

struct CardInterface {
  std::string url;
  A2aProtocol protocol = A2aProtocol::kV1;
};

// The JSON-RPC interface of a v1.0 card's supportedInterfaces (1.x before 0.3); `offered` lists
// the others.
std::optional<CardInterface> v1_interface(const json& list, std::string& offered) {
  std::optional<CardInterface> legacy;
  for (const json& iface : list) {
    const std::string binding = card_upper(card_string(iface, "protocolBinding", "protocol_binding"));
    const std::string url = card_string(iface, "url");
    const std::string version = card_string(iface, "protocolVersion", "protocol_version");
    if (binding != "JSONRPC" || url.empty()) {
      if (!offered.empty()) offered += ", ";
      offered += (binding.empty() ? std::string("an interface without protocolBinding") : binding) +
                 (url.empty() ? std::string() : " at " + url);
      continue;
    }
    if (version.starts_with("0.")) {
      if (!legacy) legacy = CardInterface{url, A2aProtocol::kV03};
      continue;
    }
    return CardInterface{url, A2aProtocol::kV1};
  }
  return legacy;
}

// The JSON-RPC interface of a v0.3 card (url + preferredTransport, additionalInterfaces).
std::optional<CardInterface> v03_interface(const json& card, std::string& offered) {
  const std::string url = card_string(card, "url");
  std::string preferred = card_upper(card_string(card, "preferredTransport"));
  if (preferred.empty()) preferred = "JSONRPC";
  if (!url.empty() && preferred == "JSONRPC") return CardInterface{url, A2aProtocol::kV03};
  if (!url.empty()) offered = preferred + " at " + url;
  if (auto extra = card.find("additionalInterfaces"); extra != card.end() && extra->is_array()) {
    for (const json& iface : *extra) {
      const std::string transport = card_upper(card_string(iface, "transport"));
      const std::string iface_url = card_string(iface, "url");
      if (transport == "JSONRPC" && !iface_url.empty()) return CardInterface{iface_url, A2aProtocol::kV03};
      if (!offered.empty()) offered += ", ";
      offered += transport + (iface_url.empty() ? std::string() : " at " + iface_url);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string a2a_card_url(std::string_view base_url) {
  std::string base(base_url);
  if (base.ends_with(".json")) return base;
  while (base.ends_with('/')) base.pop_back();
  return base + "/.well-known/agent-card.json";
}

Result<A2aCard> parse_a2a_card(std::string_view body, std::string_view card_url) {
  const std::string where = "the agent card at " + std::string(card_url);
  json card = json::parse(body, nullptr, false);
  if (card.is_discarded() || !card.is_object()) {
    std::string start = sanitize_utf8(body.substr(0, utf8_cut_length(body, 120)));
    return Status::InvalidArgument(where + " is not a JSON object" +
                                   (body.empty() ? std::string(" (the body is empty)") : ": " + card_flatten(start)));
  }
  A2aCard out;
  out.name = card_string(card, "name");
  out.description = card_string(card, "description");
  out.version = card_string(card, "version");
  if (auto skills = card.find("skills"); skills != card.end() && skills->is_array()) {
    for (const json& skill : *skills) {
      std::string name = card_string(skill, "name");
      if (name.empty()) name = card_string(skill, "id");
      if (!name.empty()) out.skills.emplace_back(std::move(name), card_string(skill, "description"));
    }
  }
  std::string offered;
  std::optional<CardInterface> chosen;
  auto list = card.find("supportedInterfaces");
  if (list == card.end()) list = card.find("supported_interfaces");
  if (list != card.end() && list->is_array() && !list->empty()) {
    chosen = v1_interface(*list, offered);
  } else {
    chosen = v03_interface(card, offered);
  }
  if (!chosen) {
    return Status::InvalidArgument(where + " offers no JSON-RPC interface" +
                                   (offered.empty() ? std::string(" (it lists no interface at all)")
                                                    : " (it offers " + card_flatten(offered) + ")") +
                                   "; keel speaks A2A over JSON-RPC only");
  }
  std::optional<std::string> resolved = resolve_http_url(card_url, chosen->url, true);
  if (!resolved) {
    return Status::InvalidArgument(where + " names a JSON-RPC endpoint that is not an http(s) URL: '" +
                                   card_flatten(chosen->url) + "'");
  }
  out.rpc_url = *resolved;
  out.protocol = chosen->protocol;
  return out;
}

Status check_a2a_origin(const A2aCard& card, std::string_view configured_url, std::string_view who) {
  Result<WebUrl> configured = parse_web_url(configured_url);
  if (!configured.ok()) {
    return Status::InvalidArgument(std::string(who) + ": the configured url '" + std::string(configured_url) +
                                   "' cannot be used: " + configured.status().message());
  }
  Result<WebUrl> endpoint = parse_web_url(card.rpc_url);
  if (endpoint.ok() && same_origin(*configured, *endpoint)) return Status::Ok();
  const std::string origin =
      configured->scheme + "://" +
      (configured->host.find(':') != std::string::npos ? "[" + configured->host + "]" : configured->host) + ":" +
      std::to_string(configured->port);
  return Status::PermissionDenied(
      std::string(who) + ": its agent card names the JSON-RPC endpoint " + card.rpc_url +
      ", which is not on the configured origin " + origin +
      "; keel sends requests (and the token) only to the configured origin. If that endpoint is the same "
      "server under another name, set the agent's url in a2a_agents to it");
}

std::string a2a_card_description(const A2aCard& card, std::string_view agent_name, size_t max_chars) {
  std::string text = "Ask the remote agent '" + std::string(agent_name) + "'";
  if (!card.name.empty() && card.name != agent_name) text += " (" + card_flatten(card.name) + ")";
  text += " over A2A and get its answer";
  if (std::string said = card_flatten(card.description); !said.empty()) {
    while (!said.empty() && said.back() == '.') said.pop_back();
    text += ". It says: " + said;
  }
  if (!card.skills.empty()) {
    text += ". Skills:";
    for (size_t i = 0; i < card.skills.size(); ++i) {
      text += (i == 0 ? " " : "; ") + card_flatten(card.skills[i].first);
      if (!card.skills[i].second.empty()) text += " (" + card_flatten(card.skills[i].second) + ")";
    }
  }
  const std::string tail =
      ". Pass the context_id of an earlier answer to continue that conversation (e.g. to answer its question).";
  if (text.size() + tail.size() > max_chars && max_chars > tail.size() + 3) {
    text.resize(utf8_cut_length(text, max_chars - tail.size() - 3));
    text += "...";
  }
  return text + tail;
}

}  // namespace keel::detail
