// What waits for a person on runs other keel serve instances hold (several instances on one
// database): the approvals and questions of runs parked on another instance, read from the run
// queue (checkpoints parked for an approval or an answer) and the shared event log, in the shape
// GET /api/approvals and GET /api/questions list this instance's own.
//
// Thread-safety: reads the store only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "keel/store/store.hpp"

namespace keel::api {

enum class RemoteInputKind {
  kApprovals,  // {id, run_id, session_id, call, risk, reason}
  kQuestions,  // {id, run_id, session_id, question, options, allow_free_text}
};

// The open items of `kind` of `workspace`'s runs parked for them on instances other than
// `own_instance` (only those runs' session logs are read); what cannot be read is left out (the
// list is for people to act on, the events stay the record).
nlohmann::json remote_inputs(Store& store, const std::string& workspace, const std::string& own_instance,
                             RemoteInputKind kind);

}  // namespace keel::api
