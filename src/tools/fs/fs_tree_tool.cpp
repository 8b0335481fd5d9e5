// fs_tree — the tree below a directory, depth-first with each directory's entries sorted by
// name, one entry per line with its type and size, down to `depth` levels; paginated with
// offset/limit and a note naming the next offset. Links are shown with their target, never
// followed; .git is shown but not expanded; a directory at the depth limit shows how many
// entries it holds. The walk opens every directory with O_NOFOLLOW (dir_reader.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "tools/builtin_factories.hpp"
#include "tools/fs/dir_reader.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr int kDefaultDepth = 2;
constexpr size_t kDefaultLimit = 200;
constexpr size_t kMaxEntries = 20000;  // the walk stops here; the total is then a lower bound

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to show, relative to the workspace, or NAME:path in another root; default \".\""},
    "depth": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Levels to show; default 2 (1: the directory's own entries)"},
    "offset": {"type": "integer", "minimum": 0, "description": "Entries to skip (from a previous call's note); default 0"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most entries to show; default 200"}
  },
  "additionalProperties": false
})json";

// One walk over the tree, collecting lines.
struct TreeWalk {
  const std::stop_token& stop;
  int max_depth;
  std::vector<std::string> lines;
  bool capped = false;

  std::string link_target(int dir_fd, const std::string& name) {
    std::string target(4096, '\0');
    const ssize_t n = ::readlinkat(dir_fd, name.c_str(), target.data(), target.size());
    if (n < 0) return "?";
    target.resize(static_cast<size_t>(n));
    return target;
  }

  // " (14 entries)" for a directory not expanded because of the depth limit.
  std::string entry_count(int dir_fd, const std::string& name, const std::string& shown) {
    Result<UniqueFd> sub = open_dir_at(dir_fd, name, shown);
    if (!sub.ok()) return " (cannot open: " + sub.status().message() + ")";
    Result<std::vector<DirEntry>> entries = read_dir(sub->get(), shown);
    if (!entries.ok()) return " (cannot read)";
    if (entries->empty()) return " (empty)";
    return " (" + std::to_string(entries->size()) + (entries->size() == 1 ? " entry)" : " entries)");
  }

  Status walk(int dir_fd, const std::string& base, int depth) {
    KEEL_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, read_dir(dir_fd, base));
    for (const DirEntry& e : entries) {
      if (stop.stop_requested()) return Status::Cancelled("fs_tree was cancelled");
      if (lines.size() >= kMaxEntries) {
        capped = true;
        return Status::Ok();
      }
      const std::string shown = join_display(base, e.name);
      switch (e.type) {
        case fs::file_type::directory: {
          const bool expand = depth < max_depth && e.name != ".git";
          std::string line = "dir   " + shown + "/";
          if (e.name == ".git") {
            line += " (not expanded)";
          } else if (!expand) {
            line += entry_count(dir_fd, e.name, shown);
          }
          lines.push_back(std::move(line));
          if (expand) {
            Result<UniqueFd> sub = open_dir_at(dir_fd, e.name, shown);
            if (!sub.ok()) {
              lines.back() += " (cannot open: " + sub.status().message() + ")";
              continue;
            }
            KEEL_TRY(walk(sub->get(), shown, depth + 1));
          }
          break;
        }
        case fs::file_type::regular:
          lines.push_back("file  " + shown + " (" + std::to_string(e.size) + " bytes)");
          break;
        case fs::file_type::symlink:
          lines.push_back("link  " + shown + " -> " + link_target(dir_fd, e.name));
          break;
        default:
          lines.push_back("other " + shown + " (" + std::string(file_type_name(e.type)) + ")");
      }
    }
    return Status::Ok();
  }
};

Result<std::string> tree(const Workspace& ws, const nlohmann::json& args, const std::stop_token& stop) {
  const std::string shown = string_arg(args, "path", ".");
  const int depth = static_cast<int>(int_arg(args, "depth").value_or(kDefaultDepth));
  const size_t offset = static_cast<size_t>(int_arg(args, "offset").value_or(0));
  const size_t limit = static_cast<size_t>(int_arg(args, "limit").value_or(static_cast<int64_t>(kDefaultLimit)));
  KEEL_ASSIGN_OR_RETURN(const fs::path path, ws.resolve(shown, /*must_exist=*/true));
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec) return fs_error("list", shown, ec);
  if (!fs::is_directory(st)) {
    return Status::InvalidArgument("'" + shown + "' is a " + std::string(file_type_name(st.type())) +
                                   ", not a directory; use fs_read to read a file or fs_stat for details");
  }
  KEEL_ASSIGN_OR_RETURN(UniqueFd dir, open_dir(path, shown));
  const std::string where = ws.display(path);
  TreeWalk walk{stop, depth, {}, false};
  KEEL_TRY(walk.walk(dir.get(), where, 1));

  const size_t total = walk.lines.size();
  const std::string total_text = (walk.capped ? "more than " : "") + std::to_string(total);
  const std::string label = dir_label(where);
  if (total == 0) return label + " is empty";
  if (offset >= total) {
    return "[offset " + std::to_string(offset) + " is past the end: " + label + " has " + total_text +
           " entries down to depth " + std::to_string(depth) + "]";
  }
  const size_t end = std::min(total, offset + limit);
  std::string out = label + " to depth " + std::to_string(depth) + ": entries " + std::to_string(offset + 1) + "-" +
                    std::to_string(end) + " of " + total_text + "\n";
  for (size_t i = offset; i < end; ++i) out += walk.lines[i] + "\n";
  if (end < total) {
    out += "[more entries follow: call fs_tree again with offset=" + std::to_string(end) + "]\n";
  } else if (walk.capped) {
    out += "[the tree has more than " + std::to_string(kMaxEntries) +
           " entries; show a subdirectory or a smaller depth to see the rest]\n";
  }
  return out;
}

}  // namespace

std::unique_ptr<Tool> make_fs_tree_tool(WorkspacePtr workspace) {
  ToolSpec spec = read_only_fs_spec(
      "fs_tree",
      "Show the tree below a directory (entries with type and size) down to a depth, paginated with offset/limit.",
      kSchema);
  spec.timeout_ms = 60000;
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json& args, const ToolContext& ctx) {
    return tree(*ws, args, ctx.stop);
  });
}

}  // namespace keel::detail
