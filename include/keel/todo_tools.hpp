// keel/todo_tools.hpp — a task list for agents, kept in the Store per workspace, so it survives
// across runs and processes.
//
// Three tools an agent can call; each answers with compact JSON:
//   todo_add      {text, priority?, notes?}  → {"added":{"id":4,"text":...,"status":"open",...}}
//                                               (not read-only, risk low)
//   todo_list     {status?}  open (default) | done | all
//                            → {"todos":[...],"open":2,"done":1}   (read-only, parallel, risk low)
//   todo_complete {id}       → {"completed":{"id":4,...,"status":"done","completed":"..."}}
//                                               (not read-only, risk low)
// An item is {"id","text","status":"open"|"done","priority"?,"notes"?,"created","completed"?}
// with times in ISO 8601 UTC. An unknown id is a tool error naming the open ids; completing a
// done todo is an error saying so; database failures are tool errors the model reads, never
// exceptions.
//
//   keel::ToolRegistry tools;
//   KEEL_TRY(keel::register_todo_tools(tools, *store, "/home/me/project"));
//
// Thread-safety: the tools may run on any thread (the Store is internally synchronised);
// register_todo_tools() follows ToolRegistry::add()'s rules.
#pragma once

#include <string>

#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

// Adds todo_list, todo_add and todo_complete to `tools`. `store` must outlive the registry (the
// tools keep a reference to it). `workspace`: the folder the todos belong to (empty: todos not
// tied to a folder). Errors from ToolRegistry::add (e.g. a name already taken) are returned as is.
Status register_todo_tools(ToolRegistry& tools, Store& store, std::string workspace);

}  // namespace keel
