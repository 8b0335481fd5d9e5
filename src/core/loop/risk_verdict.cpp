// The risk threshold's verdict (core/loop/risk_verdict.hpp).
#include "core/loop/risk_verdict.hpp"

#include <string>

namespace keel::detail {

GateVerdict risk_verdict(std::string_view tool, Risk risk, Risk threshold) {
  if (risk < threshold) return GateVerdict::allow();
  return GateVerdict::ask(std::string(tool) + " is a " + std::string(risk_name(risk)) + "-risk tool");
}

}  // namespace keel::detail
