// keel/lanes.hpp — an inference cascade: one LlmClient over several backends ("lanes") tried in
// order, e.g. a local server, then a hosted model, then the built-in rules model.
//
// Each call tries lane 1. When it fails with an error another lane could fix — kUnavailable,
// kDeadlineExceeded, kUnauthenticated, kNotFound, or the lane's client could not be created (a
// "load failure") — the call goes on to the next lane. kCancelled, kInvalidArgument and every other
// error end the call at once (the request itself is at fault, or the user stopped it). A lane over
// its rate limit is skipped. Each lane that fails or is skipped is reported through
// CallOptions::on_retry (the attempt number, a Status such as
// "lane 1 (openai/gpt-4o-mini) failed: ...; trying lane 2 (rules)", delay 0), so runs show it as a
// model_retry event. When every lane fails the call returns the last lane's error code with every
// lane's error in the message.
//
//   std::vector<keel::LaneSpec> lanes(2);
//   lanes[0].label = "ollama/qwen2.5:7b";
//   lanes[0].create = [] { return keel::make_openai_client(local_options); };
//   lanes[0].timeout_floor_ms = 30000;
//   lanes[1].label = "rules";
//   lanes[1].create = [] { return keel::make_rules_model(); };
//   KEEL_ASSIGN_OR_RETURN(auto llm, keel::make_lane_cascade(std::move(lanes)));
//
// Thread-safety: calls are serialized internally (the rate limits are shared state).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "keel/llm_client.hpp"
#include "keel/result.hpp"

namespace keel {

// One lane of a cascade.
struct LaneSpec {
  std::string label;  // how messages name it, e.g. "openai/gpt-4o-mini"; "lane N" when empty
  // Makes the lane's client on its first use; an error is the lane's load failure (reported, then
  // the next lane is tried, on this call and every later one).
  std::function<Result<std::unique_ptr<LlmClient>>()> create;
  // The call's timeout is at least this, milliseconds (a slow local lane keeps a short planner
  // budget from failing it). 0: no floor. Only raises a call's CallOptions::timeout_ms when it set one.
  int64_t timeout_floor_ms = 0;
  // Token bucket: at most this many calls per minute, with bursts of the same size. 0: unlimited.
  double rate_limit_per_minute = 0;
};

// The cascade over `lanes`, in order. kInvalidArgument when there are none or a lane has no create
// function or a negative limit.
Result<std::unique_ptr<LlmClient>> make_lane_cascade(std::vector<LaneSpec> lanes);

}  // namespace keel
