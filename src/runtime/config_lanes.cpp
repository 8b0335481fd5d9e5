// `lanes:` in keel.yaml: the backends of an inference cascade (keel/lanes.hpp), tried in order.
//
//   lanes:
//     - model: ollama/qwen2.5:7b
//       timeout_floor_ms: 30000
//     - model: openai/gpt-4o-mini
//       rate_limit_per_minute: 20
//     - model: rules
#include <algorithm>
#include <cmath>

#include "keel/config.hpp"
#include "runtime/config_file.hpp"

namespace keel::detail {
namespace {

constexpr const char* kLaneShape = "{model, base_url?, timeout_floor_ms?, rate_limit_per_minute?}";

Status lane_error(const std::string& where, const std::string& what) {
  std::string m = where;
  m.append(what);
  return Status::InvalidArgument(std::move(m));
}

}  // namespace

Status parse_lanes(const YAML::Node& node, const std::string& path, std::vector<LaneConfig>& out) {
  if (!node.IsSequence()) return lane_error(path, std::string(": lanes must be a list of ").append(kLaneShape));
  if (node.size() == 0) return lane_error(path, ": lanes must list at least one lane (or be left out)");
  static const char* const kKeys[] = {"model", "base_url", "timeout_floor_ms", "rate_limit_per_minute"};
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node v = node[i];
    std::string where = path;
    where.append(": lanes[").append(std::to_string(i)).append("]");
    if (!v.IsMap()) return lane_error(where, std::string(" must be a mapping ").append(kLaneShape));
    for (auto k = v.begin(); k != v.end(); ++k) {
      const std::string key = k->first.IsScalar() ? k->first.Scalar() : std::string();
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
        std::string what = ": unknown key '";
        what.append(key).append("'; known keys: model, base_url, timeout_floor_ms, rate_limit_per_minute");
        return lane_error(where, what);
      }
    }
    LaneConfig lane;
    lane.source = path;
    const YAML::Node model = v["model"];
    if (!model) return lane_error(where, ".model is required (as --model takes it, e.g. ollama/qwen2.5:7b or rules)");
    if (!model.IsScalar() || model.Scalar().empty()) return lane_error(where, ".model must be a non-empty string");
    lane.model = model.Scalar();
    if (const YAML::Node b = v["base_url"]) {
      if (!b.IsScalar() || b.Scalar().empty()) return lane_error(where, ".base_url must be a non-empty string");
      lane.base_url = b.Scalar();
    }
    if (const YAML::Node t = v["timeout_floor_ms"]) {
      int64_t ms = 0;
      if (!t.IsScalar() || !YAML::convert<int64_t>::decode(t, ms) || ms < 0 || ms > 3600000) {
        return lane_error(where, ".timeout_floor_ms must be an integer from 0 to 3600000 (milliseconds)");
      }
      lane.timeout_floor_ms = ms;
    }
    if (const YAML::Node r = v["rate_limit_per_minute"]) {
      double rate = 0;
      if (!r.IsScalar() || !YAML::convert<double>::decode(r, rate) || !std::isfinite(rate) || rate < 0) {
        return lane_error(where, ".rate_limit_per_minute must be a number >= 0 (0: unlimited)");
      }
      lane.rate_limit_per_minute = rate;
    }
    out.push_back(std::move(lane));
  }
  return Status::Ok();
}

}  // namespace keel::detail
