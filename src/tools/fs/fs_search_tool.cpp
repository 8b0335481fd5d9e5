// fs_search — grep for the roots: lines matching an RE2 regular expression in the files
// under a path, as `relative/path:line: text`. Skips .git directories, symbolic links (they could
// lead out of the roots), binary files and files over 2 MiB. Files are searched in sorted
// path order; the search stops after BuiltinToolOptions::max_search_matches matching lines or
// max_output_bytes of output, and polls the stop token between files.
#include <re2/re2.h>

#include <algorithm>
#include <vector>

#include "keel/core/postcondition.hpp"
#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr uintmax_t kMaxFileBytes = 2 * 1024 * 1024;
constexpr size_t kMaxLineChars = 300;  // a matching line is cut to this many bytes

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "RE2 regular expression, matched against each line; (?i) for case-insensitive"},
    "path": {"type": "string", "description": "File or directory to search, relative to the workspace, or NAME:path in another root; default \".\""},
    "glob": {"type": "string", "description": "Only search files whose name ends with this suffix, e.g. \".cpp\" or \"*.cpp\""}
  },
  "required": ["pattern"],
  "additionalProperties": false
})json";

// Regular files under `root` (or `root` itself), sorted; never follows or returns symlinks.
Result<std::vector<fs::path>> collect_files(const fs::path& root, std::string_view shown, const std::string& suffix,
                                            const std::stop_token& stop) {
  std::vector<fs::path> files;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(root, ec);
  if (ec) return fs_error("search", shown, ec);
  if (fs::is_regular_file(st)) {
    files.push_back(root);
    return files;
  }
  if (!fs::is_directory(st)) {
    return Status::InvalidArgument("'" + std::string(shown) + "' is a " + std::string(file_type_name(st.type())) +
                                   "; fs_search searches files and directories");
  }
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return fs_error("search", shown, ec);
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (stop.stop_requested()) return Status::Cancelled("fs_search was cancelled");
    const fs::file_status entry_status = it->symlink_status(ec);
    if (ec) continue;
    const std::string name = it->path().filename().string();
    if (fs::is_directory(entry_status)) {
      if (name == ".git") it.disable_recursion_pending();
      continue;
    }
    if (!fs::is_regular_file(entry_status)) continue;  // symlinks, fifos, sockets...
    if (!suffix.empty() && (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)) {
      continue;
    }
    files.push_back(it->path());
  }
  if (ec) return fs_error("search", shown, ec);
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::string> search(const WorkspacePtr& ws, const BuiltinToolOptions& options, const nlohmann::json& args,
                           const std::stop_token& stop) {
  const std::string pattern = string_arg(args, "pattern", "");
  const std::string shown = string_arg(args, "path", ".");
  std::string suffix = string_arg(args, "glob", "");
  if (!suffix.empty() && suffix[0] == '*') suffix.erase(0, 1);

  RE2::Options re_options;
  re_options.set_log_errors(false);
  RE2 re(pattern, re_options);
  if (!re.ok()) {
    return Status::InvalidArgument("invalid regular expression '" + pattern + "': " + re.error() +
                                   " (fs_search uses RE2 syntax)");
  }

  KEEL_ASSIGN_OR_RETURN(fs::path root, ws->resolve(shown, /*must_exist=*/true));
  KEEL_ASSIGN_OR_RETURN(std::vector<fs::path> files, collect_files(root, shown, suffix, stop));

  std::string out;
  size_t matches = 0;
  size_t files_searched = 0;
  std::string stopped;
  for (const fs::path& file : files) {
    if (stop.stop_requested()) return Status::Cancelled("fs_search was cancelled");
    std::error_code ec;
    const uintmax_t size = fs::file_size(file, ec);
    if (ec || size > kMaxFileBytes) continue;
    Result<std::string> data = read_prefix(file, static_cast<size_t>(size), file.string());
    if (!data.ok() || looks_binary(*data)) continue;
    ++files_searched;
    const std::string where = ws->display(file);
    std::string_view text = *data;
    size_t line_no = 0;
    while (!text.empty() && stopped.empty()) {
      ++line_no;
      const size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!RE2::PartialMatch(line, re)) continue;
      std::string entry = where + ":" + std::to_string(line_no) + ": ";
      if (line.size() > kMaxLineChars) {
        entry.append(line.substr(0, utf8_cut_length(line, kMaxLineChars)));
        entry += " [...]";
      } else {
        entry.append(line);
      }
      entry += '\n';
      if (out.size() + entry.size() > options.max_output_bytes) {
        stopped = "[output limit of " + std::to_string(options.max_output_bytes) + " bytes reached after " +
                  std::to_string(matches) + " matches; narrow the pattern, path or glob]\n";
        break;
      }
      out += entry;
      if (++matches >= options.max_search_matches) {
        stopped = "[stopped after " + std::to_string(matches) + " matches; narrow the pattern, path or glob]\n";
      }
    }
    if (!stopped.empty()) break;
  }
  if (matches == 0 && stopped.empty()) {
    return "no matches for '" + pattern + "' in " + std::to_string(files_searched) +
           (files_searched == 1 ? " file" : " files") + " under " + ws->display(root);
  }
  return out + stopped;
}

}  // namespace

std::unique_ptr<Tool> make_fs_search_tool(WorkspacePtr workspace, const BuiltinToolOptions& options) {
  ToolSpec spec = read_only_fs_spec(
      "fs_search",
      "Search files for lines matching an RE2 regular expression; prints path:line: text.",
      kSchema);
  spec.timeout_ms = 60000;
  // A search with no hits says so ("no matches for ..."): a blank ok output is never honest.
  spec.postconditions.push_back(Postcondition::not_empty());
  return make_tool(std::move(spec), [ws = std::move(workspace), options](const nlohmann::json& args,
                                                                          const ToolContext& ctx) {
    return search(ws, options, args, ctx.stop);
  });
}

}  // namespace keel::detail
