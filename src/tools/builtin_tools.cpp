#include "keel/builtin_tools.hpp"

#include "tools/builtin_factories.hpp"

namespace keel {

Status register_builtin_tools(ToolRegistry& registry, const BuiltinToolOptions& options) {
  try {
    KEEL_ASSIGN_OR_RETURN(detail::Workspace workspace,
                          detail::Workspace::open(options.workspace_root, options.extra_roots));
    auto ws = std::make_shared<const detail::Workspace>(std::move(workspace));
    KEEL_TRY(registry.add(detail::make_fs_roots_tool(ws)));
    KEEL_TRY(registry.add(detail::make_fs_list_tool(ws)));
    KEEL_TRY(registry.add(detail::make_fs_tree_tool(ws)));
    KEEL_TRY(registry.add(detail::make_fs_read_tool(ws, options)));
    KEEL_TRY(registry.add(detail::make_fs_write_tool(ws, options)));
    KEEL_TRY(registry.add(detail::make_fs_search_tool(ws, options)));
    KEEL_TRY(registry.add(detail::make_fs_stat_tool(ws)));
    KEEL_TRY(registry.add(detail::make_fs_walk_tool(ws)));
    KEEL_TRY(registry.add(detail::make_fs_copy_tool(ws)));
    KEEL_TRY(registry.add(detail::make_fs_move_tool(ws)));
    KEEL_TRY(registry.add(detail::make_fs_delete_tool(ws)));
    if (options.enable_shell) KEEL_TRY(registry.add(detail::make_shell_tool(ws, options)));
    KEEL_TRY(registry.add(detail::make_datetime_tool()));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot register the built-in tools: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace keel
