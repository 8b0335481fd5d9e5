// keel/core/run_budget.hpp — caps on what a run, and the sub-agents it starts, may spend on model
// calls: tokens, and cost from a price per million tokens.
#pragma once

#include <cstdint>

#include "keel/message.hpp"

namespace keel {

// Caps on what one run may spend on model calls, checked before each call: once the tokens the
// backend reported (prompt + completion) or their cost reach a cap, the run fails with a budget
// guard instead of calling the model again; what it stored stays. 0: no cap. A sub-agent's model
// calls count in the run that started it, and a sub-agent may spend only what is left.
struct RunBudget {
  int64_t max_tokens = 0;
  double max_cost = 0;                // in the prices' currency
  double input_price_per_mtok = 0;    // price of a million prompt tokens
  double output_price_per_mtok = 0;   // price of a million completion tokens

  bool capped() const { return max_tokens > 0 || max_cost > 0; }
  // The cost of `used` at these prices.
  double cost_of(const Usage& used) const {
    return (static_cast<double>(used.prompt_tokens) * input_price_per_mtok +
            static_cast<double>(used.completion_tokens) * output_price_per_mtok) /
           1e6;
  }
  // Which cap `used` has reached (the token cap is looked at first); kNone while both hold.
  enum class Cap { kNone, kTokens, kCost };
  Cap reached(const Usage& used) const {
    if (max_tokens > 0 && used.prompt_tokens + used.completion_tokens >= max_tokens) return Cap::kTokens;
    if (max_cost > 0 && cost_of(used) >= max_cost) return Cap::kCost;
    return Cap::kNone;
  }
  // What is left after `used`: the same prices, each cap lowered (to at least the smallest amount
  // that still counts as a cap, so a spent budget stays a cap). No cap stays no cap.
  RunBudget left_after(const Usage& used) const {
    RunBudget left = *this;
    if (max_tokens > 0) {
      int64_t rest = max_tokens - used.prompt_tokens - used.completion_tokens;
      left.max_tokens = rest > 0 ? rest : 1;
    }
    if (max_cost > 0) {
      double rest = max_cost - cost_of(used);
      left.max_cost = rest > 0 ? rest : 1e-12;
    }
    return left;
  }
};

}  // namespace keel
