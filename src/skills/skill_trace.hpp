// Trace spans of a skill graph run (seed 002's observability): one root span of kind
// "skill_graph" for the run, one span of kind "skill" per skill under it, all with the run id as
// trace id. A span that cannot be stored becomes a warning; the run goes on.
//
// Thread-safety: free functions; the Store is internally synchronised.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "keel/skill_runner.hpp"
#include "keel/store/store.hpp"

namespace keel::detail {

// Records `outcome`'s span: status = its status name; attributes: backend, duration_ms, retries,
// skipped, reason, repairs, action (state, tool, proposal_id).
void record_skill_span(Store& store, std::string_view run_id, const SkillOutcome& outcome, int64_t start_us,
                       std::vector<std::string>& warnings);

// Records the run's root span: status "ok" or "error"; attributes: skills, failed, duration_ms.
void record_graph_span(Store& store, const SkillGraphResult& result, int64_t start_us,
                       std::vector<std::string>& warnings);

}  // namespace keel::detail
