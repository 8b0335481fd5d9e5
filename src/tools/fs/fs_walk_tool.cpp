// fs_walk — every regular file below a directory (depth-first, each directory sorted by name),
// optionally filtered by a glob (glob.hpp), one path per line, paginated with offset and
// max_results. Links are never followed or listed; .git directories are skipped. The walk opens
// every directory with O_NOFOLLOW (dir_reader.hpp) and stops as soon as the page is full.
#include <algorithm>
#include <optional>

#include "tools/builtin_factories.hpp"
#include "tools/fs/dir_reader.hpp"
#include "tools/fs/glob.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr size_t kDefaultMax = 200;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Directory to walk, relative to the workspace, or NAME:path in another root; default \".\""},
    "glob": {"type": "string", "minLength": 1, "description": "Only files matching this glob: *, ?, ** (any depth), [a-z], {a,b}; without '/' it matches the file name, e.g. \"*.{cpp,hpp}\"; with '/' the path below `path`, e.g. \"src/**/test_*.py\""},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Most paths to return; default 200"},
    "offset": {"type": "integer", "minimum": 0, "description": "Matching files to skip (from a previous call's note); default 0"}
  },
  "additionalProperties": false
})json";

struct FileWalk {
  const std::stop_token& stop;
  const std::optional<Glob>& glob;
  size_t offset;
  size_t max;
  std::vector<std::string> page;  // display paths of the matches in [offset, offset + max)
  size_t matched = 0;
  bool more = false;          // a match beyond the page exists
  size_t skipped_deep = 0;    // directories below kMaxTreeDepth not walked

  bool done() const { return more; }

  Status walk(int dir_fd, const std::string& display_base, const std::string& rel_base, int depth) {
    KEEL_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, read_dir(dir_fd, display_base));
    for (const DirEntry& e : entries) {
      if (stop.stop_requested()) return Status::Cancelled("fs_walk was cancelled");
      if (done()) return Status::Ok();
      const std::string rel = rel_base.empty() ? e.name : rel_base + "/" + e.name;
      const std::string shown = join_display(display_base, e.name);
      if (e.type == fs::file_type::directory) {
        if (e.name == ".git") continue;
        if (depth >= kMaxTreeDepth) {
          ++skipped_deep;
          continue;
        }
        Result<UniqueFd> sub = open_dir_at(dir_fd, e.name, shown);
        if (!sub.ok()) continue;  // unreadable directories are passed over, like find does
        KEEL_TRY(walk(sub->get(), shown, rel, depth + 1));
        continue;
      }
      if (e.type != fs::file_type::regular) continue;
      if (glob && !glob->matches(rel)) continue;
      if (matched >= offset + max) {
        more = true;
        return Status::Ok();
      }
      if (matched >= offset) page.push_back(shown);
      ++matched;
    }
    return Status::Ok();
  }
};

Result<std::string> walk_files(const Workspace& ws, const nlohmann::json& args, const std::stop_token& stop) {
  const std::string shown = string_arg(args, "path", ".");
  const std::string pattern = string_arg(args, "glob", "");
  const size_t offset = static_cast<size_t>(int_arg(args, "offset").value_or(0));
  const size_t max = static_cast<size_t>(int_arg(args, "max_results").value_or(static_cast<int64_t>(kDefaultMax)));
  std::optional<Glob> glob;
  if (!pattern.empty()) {
    KEEL_ASSIGN_OR_RETURN(Glob g, Glob::compile(pattern));
    glob = std::move(g);
  }
  KEEL_ASSIGN_OR_RETURN(const fs::path path, ws.resolve(shown, /*must_exist=*/true));
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec) return fs_error("walk", shown, ec);
  if (!fs::is_directory(st)) {
    return Status::InvalidArgument("'" + shown + "' is a " + std::string(file_type_name(st.type())) +
                                   ", not a directory; fs_walk lists the files below a directory");
  }
  KEEL_ASSIGN_OR_RETURN(UniqueFd dir, open_dir(path, shown));
  const std::string where = ws.display(path);
  FileWalk w{stop, glob, offset, max, {}, 0, false, 0};
  KEEL_TRY(w.walk(dir.get(), where, "", 1));

  const std::string filter = glob ? " matching '" + pattern + "'" : "";
  std::string out;
  for (const std::string& p : w.page) out += p + "\n";
  if (w.page.empty()) {
    out = w.matched == 0 ? "no files" + filter + " under " + dir_label(where) + "\n"
                         : "[offset " + std::to_string(offset) + " is past the end: there are " +
                               std::to_string(w.matched) + " files" + filter + " under " + dir_label(where) + "]\n";
  } else if (w.more) {
    out += "[files " + std::to_string(offset + 1) + "-" + std::to_string(offset + w.page.size()) +
           " shown; more follow: call fs_walk again with offset=" + std::to_string(offset + w.page.size()) + "]\n";
  } else {
    out += "[" + std::to_string(w.matched) + (w.matched == 1 ? " file" : " files") + filter + " in all]\n";
  }
  if (w.skipped_deep > 0) {
    out += "[" + std::to_string(w.skipped_deep) + " directories deeper than " + std::to_string(kMaxTreeDepth) +
           " levels were not walked]\n";
  }
  return out;
}

}  // namespace

std::unique_ptr<Tool> make_fs_walk_tool(WorkspacePtr workspace) {
  ToolSpec spec = read_only_fs_spec(
      "fs_walk",
      "List every file below a directory (recursive), optionally only those matching a glob such as \"*.cpp\" or "
      "\"src/**/*.py\"; paginated with offset/max_results.",
      kSchema);
  spec.timeout_ms = 60000;
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json& args, const ToolContext& ctx) {
    return walk_files(*ws, args, ctx.stop);
  });
}

}  // namespace keel::detail
