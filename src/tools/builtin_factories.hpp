// tools/builtin_factories.hpp — constructors of the built-in tools, one per source file, used by
// register_builtin_tools() (builtin_tools.cpp) and by tests. The fs tools live in src/tools/fs/.
//
// The file tools and the shell share one Workspace (the roots from BuiltinToolOptions); they
// ignore ToolContext::workspace_root.
//
// Thread-safety: each tool's execute() is safe to run concurrently with other tools; the
// concurrency-safe ones (fs_roots, fs_list, fs_tree, fs_read, fs_search, fs_stat, fs_walk,
// get_datetime) also with themselves.
#pragma once

#include <memory>

#include "keel/builtin_tools.hpp"
#include "keel/tool.hpp"
#include "tools/workspace.hpp"

namespace keel::detail {

using WorkspacePtr = std::shared_ptr<const Workspace>;

std::unique_ptr<Tool> make_fs_roots_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_fs_list_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_fs_tree_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_fs_read_tool(WorkspacePtr workspace, const BuiltinToolOptions& options);
std::unique_ptr<Tool> make_fs_write_tool(WorkspacePtr workspace, const BuiltinToolOptions& options);
std::unique_ptr<Tool> make_fs_search_tool(WorkspacePtr workspace, const BuiltinToolOptions& options);
std::unique_ptr<Tool> make_fs_stat_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_fs_walk_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_fs_copy_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_fs_move_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_fs_delete_tool(WorkspacePtr workspace);
std::unique_ptr<Tool> make_shell_tool(WorkspacePtr workspace, const BuiltinToolOptions& options);
std::unique_ptr<Tool> make_datetime_tool();

}  // namespace keel::detail
