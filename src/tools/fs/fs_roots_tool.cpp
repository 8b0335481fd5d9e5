// fs_roots — the directories the fs tools may use, as compact JSON:
//   {"roots":[{"name":"workspace","path":"/home/me/project","read_only":false}, ...],
//    "usage":"..."}
// The workspace comes first; the usage line tells the model how to name paths in each root.
#include <nlohmann/json.hpp>

#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {},
  "additionalProperties": false
})json";

std::string list_roots(const Workspace& ws) {
  nlohmann::json roots = nlohmann::json::array();
  for (const Root& r : ws.roots()) {
    roots.push_back({{"name", r.name}, {"path", r.path.string()}, {"read_only", r.read_only}});
  }
  nlohmann::json out;
  out["roots"] = std::move(roots);
  out["usage"] =
      "relative paths are in the workspace; write NAME:relative/path for another root (e.g. NAME:. for its top); "
      "absolute paths must lie inside a root; read-only roots cannot be changed";
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::unique_ptr<Tool> make_fs_roots_tool(WorkspacePtr workspace) {
  ToolSpec spec = read_only_fs_spec(
      "fs_roots", "List the directories the file tools may use (name, path, read-only) and how to name paths in them.",
      kSchema);
  spec.timeout_ms = 5000;
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json&, const ToolContext&)
                                        -> Result<std::string> { return list_roots(*ws); });
}

}  // namespace keel::detail
