// fs_list — the entries of one directory (not recursive), sorted by name, with their type and
// size; at most 1000 entries, with a note when there are more.
#include <algorithm>
#include <vector>

#include "keel/core/postcondition.hpp"
#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr size_t kMaxEntries = 1000;

constexpr const char* kFsListSchema = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to list, relative to the workspace, or NAME:path in another root; default \".\""}
  },
  "additionalProperties": false
})json";

struct Entry {
  std::string name;
  fs::directory_entry entry;
};

// "dir   src/", "file  a.txt (120 bytes)", "link  l -> target".
std::string describe(const fs::directory_entry& entry, const std::string& name) {
  std::error_code ec;
  const fs::file_status st = entry.symlink_status(ec);
  if (ec) return "?     " + name + " (" + ec.message() + ")";
  switch (st.type()) {
    case fs::file_type::directory: return "dir   " + name + "/";
    case fs::file_type::regular: {
      const uintmax_t size = entry.file_size(ec);
      return "file  " + name + (ec ? "" : " (" + std::to_string(size) + " bytes)");
    }
    case fs::file_type::symlink: {
      const fs::path target = fs::read_symlink(entry.path(), ec);
      return "link  " + name + (ec ? "" : " -> " + target.string());
    }
    default: return "other " + name + " (" + std::string(file_type_name(st.type())) + ")";
  }
}

Result<std::string> list_dir(const WorkspacePtr& ws, const nlohmann::json& args) {
  const std::string shown = string_arg(args, "path", ".");
  KEEL_ASSIGN_OR_RETURN(fs::path path, ws->resolve(shown, /*must_exist=*/true));
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec) return fs_error("list", shown, ec);
  if (!fs::is_directory(st)) {
    return Status::InvalidArgument("'" + shown + "' is a " + std::string(file_type_name(st.type())) +
                                   ", not a directory; use fs_read to read a file or fs_stat for details");
  }

  std::vector<Entry> entries;
  fs::directory_iterator it(path, ec);
  if (ec) return fs_error("list", shown, ec);
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    entries.push_back({it->path().filename().string(), *it});
  }
  if (ec) return fs_error("list", shown, ec);
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });

  const std::string where = dir_label(ws->display(path));
  if (entries.empty()) return where + " is empty";
  std::string out = where + " (" + std::to_string(entries.size()) + (entries.size() == 1 ? " entry" : " entries") + ")\n";
  const size_t shown_count = std::min(entries.size(), kMaxEntries);
  for (size_t i = 0; i < shown_count; ++i) out += describe(entries[i].entry, entries[i].name) + "\n";
  if (entries.size() > kMaxEntries) {
    out += "[listing truncated: showing the first " + std::to_string(kMaxEntries) + " of " +
           std::to_string(entries.size()) + " entries; list a subdirectory or use fs_search to narrow down]\n";
  }
  return out;
}

}  // namespace

std::unique_ptr<Tool> make_fs_list_tool(WorkspacePtr workspace) {
  ToolSpec spec = read_only_fs_spec(
      "fs_list", "List the entries of one directory (not recursive), with type and size; fs_tree shows deeper levels.",
      kFsListSchema);
  // Every listing names what it listed, an empty directory included ("x is empty"): a blank ok
  // output would be a bug, never an honest listing.
  spec.postconditions.push_back(Postcondition::not_empty());
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json& args, const ToolContext&) {
    return list_dir(ws, args);
  });
}

}  // namespace keel::detail
