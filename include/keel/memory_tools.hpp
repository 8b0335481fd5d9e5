// keel/memory_tools.hpp — long-term memory for agents: notes kept in the Store, per workspace.
//
// Three tools an agent can call:
//   memory_write  {text, tags?}     → "saved note 12"           (not read-only, risk low)
//   memory_search {query, limit?}   → "12. [build] use ninja"…  (read-only, parallel, risk low)
//   memory_list   {limit?}          → the most recent notes      (read-only, parallel, risk low)
// Notes are written to the registry's workspace; search and list read that workspace's notes plus
// the shared ones (notes whose workspace is empty). Failures (empty text, a database error) are
// tool errors the model reads, never exceptions.
//
//   keel::ToolRegistry tools;
//   KEEL_TRY(keel::register_memory_tools(tools, *store, "/home/me/project"));
//
// Thread-safety: the tools may run on any thread (the Store is internally synchronised);
// register_memory_tools() follows ToolRegistry::add()'s rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

// Adds memory_write, memory_search and memory_list to `tools`. `store` must outlive the registry
// (the tools keep a reference to it). `workspace`: the folder notes belong to; empty: shared notes.
// Errors from ToolRegistry::add (e.g. a name already taken) are returned as is.
Status register_memory_tools(ToolRegistry& tools, Store& store, std::string workspace);

// Notes of `workspace` and the shared notes, most recently updated first; limit <= 0: all.
Result<std::vector<MemoryNote>> memory_list_with_shared(Store& store, std::string_view workspace, int limit);
// Notes of `workspace` and the shared notes matching any word of `query`, best first.
Result<std::vector<MemoryHit>> memory_search_with_shared(Store& store, std::string_view workspace,
                                                         std::string_view query, int limit);

}  // namespace keel
