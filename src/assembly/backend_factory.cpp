// The backend a configuration names: one client, or keel.yaml's lanes as a cascade.
#include "assembly/local_backend.hpp"
#include "keel/anthropic_client.hpp"
#include "keel/assembly.hpp"
#include "keel/cassette.hpp"
#include "keel/lanes.hpp"
#include "keel/openai_client.hpp"
#include "keel/rules_model.hpp"

namespace keel::assembly {
namespace {

// The fields every HTTP backend's options share: server, key, model, timeouts and retries.
template <class Options>
Options http_backend_options(const ModelSettings& model, const KeelConfig& config) {
  Options o;
  o.base_url = model.base_url;
  o.api_key = model.api_key;
  o.model = model.model;
  o.connect_timeout_ms = config.connect_timeout_ms;
  o.request_timeout_ms = config.request_timeout_ms;
  o.stream_idle_timeout_ms = config.stream_idle_timeout_ms;
  o.retry.max_attempts = config.retry.max_attempts;
  o.retry.initial_delay_ms = config.retry.initial_delay_ms;
  o.retry.max_delay_ms = config.retry.max_delay_ms;
  return o;
}

// One backend: the rules model, a cassette's replay, the local, Anthropic or an OpenAI-compatible client.
Result<std::unique_ptr<LlmClient>> make_single_backend(const ModelSettings& model, const KeelConfig& config) {
  if (model.kind == ModelSettings::Kind::kRules) return make_rules_model();
  if (model.kind == ModelSettings::Kind::kReplay) return make_replay_client(model.model);
  if (model.kind == ModelSettings::Kind::kLocal) return make_local_backend(model, config);
  if (model.kind == ModelSettings::Kind::kAnthropic) {
    AnthropicOptions a = http_backend_options<AnthropicOptions>(model, config);
    KEEL_TRY(validate_anthropic_options(a));
    return make_anthropic_client(std::move(a));
  }
  OpenAiOptions o = http_backend_options<OpenAiOptions>(model, config);
  KEEL_TRY(validate_openai_options(o));
  return make_openai_client(std::move(o));
}

// keel.yaml's lanes as a cascade; each lane's client is made on its first use.
Result<std::unique_ptr<LlmClient>> make_lanes_backend(const KeelConfig& config) {
  std::vector<LaneSpec> specs;
  for (const LaneConfig& lane : config.lanes) {
    LaneSpec spec;
    spec.label = lane.model;
    spec.timeout_floor_ms = lane.timeout_floor_ms;
    spec.rate_limit_per_minute = lane.rate_limit_per_minute;
    std::optional<ModelSettings> settings = lane.settings;
    std::string error = lane.load_error;
    spec.create = [settings, error, config]() -> Result<std::unique_ptr<LlmClient>> {
      if (!settings) return Status::InvalidArgument(error);
      return make_single_backend(*settings, config);
    };
    specs.push_back(std::move(spec));
  }
  return make_lane_cascade(std::move(specs));
}

}  // namespace

bool uses_lanes(const KeelConfig& config) { return !config.lanes.empty() && config.model.source != "--model"; }

bool uses_rules_model(const KeelConfig& config) {
  return config.model.kind == ModelSettings::Kind::kRules && !uses_lanes(config);
}

Result<std::unique_ptr<LlmClient>> make_backend(const KeelConfig& config) {
  if (uses_lanes(config)) return make_lanes_backend(config);
  return make_single_backend(config.model, config);
}

}  // namespace keel::assembly
