// Recording which stages a compaction step applied.
#pragma once

#include <algorithm>

#include "keel/core/context_manager.hpp"

namespace keel::detail {

// Adds `stage` to report.stages once, keeping them in pipeline order (the enum's order).
inline void add_stage(CompactionReport& report, CompactionStage stage) {
  auto it = std::lower_bound(report.stages.begin(), report.stages.end(), stage);
  if (it == report.stages.end() || *it != stage) report.stages.insert(it, stage);
}

}  // namespace keel::detail
