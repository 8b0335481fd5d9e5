// Span names and backend attributes of the GenAI conventions (runtime/genai_names.hpp).
#include "runtime/genai_names.hpp"

#include <cstdlib>
#include <utility>

#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

// "https://api.openai.com:443/v1" -> {"api.openai.com", 443}; port 0 when not written.
std::pair<std::string, int> host_and_port(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  int port = 0;
  size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && rest.find(']', colon) == std::string_view::npos) {
    for (char c : rest.substr(colon + 1)) {
      if (c < '0' || c > '9') return {std::string(rest), 0};
      port = port * 10 + (c - '0');
    }
    rest = rest.substr(0, colon);
  } else {
    port = url.starts_with("https") ? 443 : 80;
  }
  return {std::string(rest), port};
}

std::string provider_for_host(std::string_view host) {
  struct Known {
    std::string_view suffix, provider;
  };
  static constexpr Known kKnown[] = {
      {"api.openai.com", "openai"},       {"api.anthropic.com", "anthropic"},
      {"api.groq.com", "groq"},           {"api.mistral.ai", "mistral_ai"},
      {"api.deepseek.com", "deepseek"},   {"api.x.ai", "x_ai"},
      {"api.perplexity.ai", "perplexity"}, {"generativelanguage.googleapis.com", "gcp.gemini"},
      {"openai.azure.com", "azure.ai.openai"}, {"api.cohere.com", "cohere"},
  };
  for (const Known& k : kKnown) {
    if (host == k.suffix || host.ends_with("." + std::string(k.suffix))) return std::string(k.provider);
  }
  return {};
}

}  // namespace

std::string chat_span_name(std::string_view model) { return "chat " + std::string(model); }
std::string tool_span_name(std::string_view tool) { return "execute_tool " + std::string(tool); }
std::string agent_span_name() { return "invoke_agent keel"; }

nlohmann::json backend_attributes(std::string_view description) {
  nlohmann::json out = nlohmann::json::object();
  // The model is the last "(...)" of the description.
  std::string model;
  if (size_t open = description.rfind('('); open != std::string_view::npos && description.ends_with(")")) {
    model = std::string(description.substr(open + 1, description.size() - open - 2));
  }
  std::string provider;
  if (description.starts_with("rules")) {
    provider = "keel.rules";
    model = "rules";
  } else if (description.starts_with("local llama.cpp")) {
    provider = "llama.cpp";
    size_t path_start = 16, path_end = description.find(" (", path_start);
    model = std::string(description.substr(path_start, path_end == std::string_view::npos ? std::string_view::npos
                                                                                          : path_end - path_start));
  } else {
    size_t url_start = description.find("http");
    if (url_start != std::string_view::npos) {
      std::string_view url = description.substr(url_start);
      url = url.substr(0, url.find(' '));
      auto [host, port] = host_and_port(url);
      if (!host.empty()) {
        out["server.address"] = host;
        if (port > 0) out["server.port"] = port;
      }
      provider = provider_for_host(host);
    }
    if (provider.empty()) provider = description.starts_with("anthropic") ? "anthropic" : "openai_compatible";
  }
  if (!provider.empty()) out["gen_ai.provider.name"] = provider;
  if (!model.empty()) out["gen_ai.request.model"] = model;
  return out;
}

bool capture_genai_content() {
  static const bool on = [] {
    const char* v = std::getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT");
    return v != nullptr && lowercase(v) == "true";  // as the exporter reads it (assembly/otlp_exporter)
  }();
  return on;
}

std::string output_messages_json(const ModelReply& reply) {
  nlohmann::json parts = nlohmann::json::array();
  if (!reply.text.empty()) {
    parts.push_back({{"type", "text"}, {"content", reply.text.substr(0, kCapturedContentBytes)}});
  }
  for (const ToolCall& call : reply.tool_calls) {
    nlohmann::json args = nlohmann::json::parse(call.arguments, nullptr, false);
    parts.push_back({{"type", "tool_call"},
                     {"id", call.id},
                     {"name", call.name},
                     {"arguments", args.is_discarded() ? nlohmann::json(call.arguments) : args}});
  }
  nlohmann::json message = {{"role", "assistant"}, {"parts", std::move(parts)}};
  if (!reply.finish_reason.empty()) message["finish_reason"] = reply.finish_reason;
  return nlohmann::json::array({std::move(message)}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace keel::detail
