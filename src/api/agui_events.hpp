// api/agui_events.hpp — the AG-UI events keel sends (the Agent-User Interaction protocol of
// CopilotKit and other front ends), each as one Server-Sent Event "data: {json}\n\n" whose `type`
// names the event. Field names are the protocol's (camelCase); optional fields are left out, never
// sent as null, because clients validate every event against the protocol's schema and strip (with
// a warning) what it does not name.
//
//   out->write(agui::frame(agui::run_started(thread_id, run_id)));
//
// A tool call's AG-UI id is keel's call id with the run's tag ("call_1~0a1b2c3d"): models and
// keel's text parser reuse ids from run to run ("call_1_1"), and a front end keeps one message
// list for the whole thread, where a repeated id would merge two calls. The client answers a call
// under that id; keel_call_id_matches() maps it back.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "keel/model_io.hpp"

namespace keel::api::agui {

// "data: <event>\n\n".
std::string frame(const nlohmann::json& event);

nlohmann::json run_started(std::string_view thread_id, std::string_view run_id);
// `pending`: the ids of the tool calls the run left for the client to run (its outcome names them).
nlohmann::json run_finished(std::string_view thread_id, std::string_view run_id,
                            const std::vector<std::string>& pending, const Usage& usage);
nlohmann::json run_error(std::string_view message, std::string_view code);
nlohmann::json state_snapshot(nlohmann::json snapshot);
nlohmann::json text_message_start(std::string_view message_id);  // role "assistant"
nlohmann::json text_message_content(std::string_view message_id, std::string_view delta);
nlohmann::json text_message_end(std::string_view message_id);
// `parent_message_id`: the assistant message of the round that made the call; empty: none.
nlohmann::json tool_call_start(std::string_view call_id, std::string_view name, std::string_view parent_message_id);
nlohmann::json tool_call_args(std::string_view call_id, std::string_view delta);
nlohmann::json tool_call_end(std::string_view call_id);
nlohmann::json tool_call_result(std::string_view message_id, std::string_view call_id, std::string_view content);
// An application event the protocol passes through: {type:"CUSTOM", name, value}.
nlohmann::json custom(std::string_view name, nlohmann::json value);

// A new message id: "msg_" and 24 random hex digits.
std::string new_message_id();
// The tag of a run's tool call ids: the last 8 hex digits of its run id ("r_…").
std::string run_tag(std::string_view run_id);
// keel's call id as AG-UI shows it: "<call id>~<run tag>".
std::string agui_call_id(std::string_view keel_call_id, std::string_view tag);
// True when `agui_id` names keel's call `keel_call_id`: the same text, or it with a run tag.
bool keel_call_id_matches(std::string_view agui_id, std::string_view keel_call_id);

}  // namespace keel::api::agui
