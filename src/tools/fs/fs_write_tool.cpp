// fs_write — creates, overwrites or appends to a file inside a writable root, creating missing
// parent directories (also inside it). Contents larger than BuiltinToolOptions::max_write_bytes
// are refused. When an editor serves files (BuiltinToolOptions::text_files), the text is written
// through it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to write, relative to the workspace, or NAME:path in another root"},
    "content": {"type": "string", "description": "Text to write"},
    "append": {"type": "boolean", "description": "Append to the file instead of replacing it; default false"}
  },
  "required": ["path", "content"],
  "additionalProperties": false
})json";

Status write_all(const fs::path& path, std::string_view shown, std::string_view content, bool append) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC);
  const int fd = ::open(path.c_str(), flags, 0666);
  if (fd < 0) return fs_error("write", shown, std::error_code(errno, std::generic_category()));
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fs_error("write", shown, std::error_code(err, std::generic_category()));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return fs_error("write", shown, std::error_code(errno, std::generic_category()));
  return Status::Ok();
}

Result<std::string> write_file(const WorkspacePtr& ws, size_t max_bytes, TextFileAccess* editor,
                               const nlohmann::json& args) {
  const std::string shown = string_arg(args, "path", "");
  const std::string content = string_arg(args, "content", "");
  const bool append = bool_arg(args, "append", false);
  if (content.size() > max_bytes) {
    return Status::ResourceExhausted("content is " + std::to_string(content.size()) +
                                     " bytes; fs_write accepts at most " + std::to_string(max_bytes) +
                                     " bytes per call (write the file in parts with append=true)");
  }
  ResolveOptions target;
  target.access = Access::kWrite;
  target.must_exist = false;
  KEEL_ASSIGN_OR_RETURN(ResolvedPath resolved, ws->resolve_path(shown, target));
  const fs::path path = std::move(resolved.path);
  if (path == ws->roots()[resolved.root].path) {
    return Status::InvalidArgument("'" + shown + "' is the root '" + ws->roots()[resolved.root].name + "'; name a file");
  }

  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  const bool existed = fs::exists(st);
  if (fs::is_directory(st)) return Status::InvalidArgument("'" + shown + "' is a directory; name a file inside it");
  if (existed && !fs::is_regular_file(st)) {
    return Status::InvalidArgument("'" + shown + "' is a " + std::string(file_type_name(st.type())) +
                                   ", not a regular file; fs_write only writes files");
  }
  const uintmax_t old_size = existed ? fs::file_size(path, ec) : 0;

  // resolve_path() returned a real path whose missing part holds no links, so every directory
  // created here lies inside the same root.
  fs::create_directories(path.parent_path(), ec);
  if (ec) return fs_error("create the directories for", shown, ec);
  if (editor != nullptr) {  // through the editor: the change shows in its buffer
    std::string text = content;
    if (append && existed) {
      KEEL_ASSIGN_OR_RETURN(std::string before, editor->read(path.string()));
      text = before + content;
    }
    KEEL_TRY(editor->write(path.string(), text));
  } else {
    KEEL_TRY(write_all(path, shown, content, append));
  }

  const std::string where = ws->display(path);
  const std::string bytes = std::to_string(content.size()) + " bytes";
  if (!existed) return "created " + where + " (" + bytes + ")";
  if (append) {
    return "appended " + bytes + " to " + where + " (now " + std::to_string(old_size + content.size()) + " bytes)";
  }
  return "overwrote " + where + " (" + bytes + "; was " + std::to_string(old_size) + " bytes)";
}

}  // namespace

std::unique_ptr<Tool> make_fs_write_tool(WorkspacePtr workspace, const BuiltinToolOptions& options) {
  ToolSpec spec = changing_fs_spec(
      "fs_write", "Create or overwrite a file (or append to it), creating missing parent directories.", kSchema,
      Risk::kMedium);
  spec.timeout_ms = 30000;
  const size_t max_bytes = options.max_write_bytes;
  std::shared_ptr<TextFileAccess> editor = options.text_files && options.text_files->writes() ? options.text_files : nullptr;
  return make_tool(std::move(spec), [ws = std::move(workspace), max_bytes, editor](const nlohmann::json& args,
                                                                                   const ToolContext&) {
    return write_file(ws, max_bytes, editor.get(), args);
  });
}

}  // namespace keel::detail
