// fs_read — returns a text file's contents, or a range of its lines, bounded by
// BuiltinToolOptions::max_output_bytes. A range is start_line/end_line (1-based, inclusive) or
// offset_line/max_lines; the two forms cannot be mixed. The file is streamed, so reading late
// lines of a large file does not load all of it. Binary files (a NUL byte in the first 8 KiB) are
// refused. When an editor serves files (BuiltinToolOptions::text_files), its buffer is read instead.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>

#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read, relative to the workspace, or NAME:path in another root"},
    "start_line": {"type": "integer", "minimum": 1, "description": "First line to return (1-based); with end_line"},
    "end_line": {"type": "integer", "minimum": 1, "description": "Last line to return (inclusive)"},
    "offset_line": {"type": "integer", "minimum": 1, "description": "First line to return (1-based); default 1"},
    "max_lines": {"type": "integer", "minimum": 1, "description": "Most lines to return; default: all that fit the output limit"}
  },
  "required": ["path"],
  "additionalProperties": false
})json";

// What a streaming pass over the file found.
struct LineWindow {
  std::string text;            // the selected lines, newlines included
  int64_t complete_lines = 0;  // whole lines in `text`
  bool cut = false;            // stopped at the byte cap
  bool more = false;           // stopped at max_lines with more bytes after
  int64_t total_lines = 0;     // lines in the file; valid only when neither cut nor more
};

// The lines asked for: the first one and how many (0: up to the output limit).
struct LineRange {
  int64_t offset = 1;
  int64_t max_lines = 0;
};

Result<LineRange> line_range(const nlohmann::json& args) {
  const std::optional<int64_t> start = int_arg(args, "start_line");
  const std::optional<int64_t> end = int_arg(args, "end_line");
  const std::optional<int64_t> offset = int_arg(args, "offset_line");
  const std::optional<int64_t> max_lines = int_arg(args, "max_lines");
  if ((start || end) && (offset || max_lines)) {
    return Status::InvalidArgument(
        "use either start_line/end_line or offset_line/max_lines to choose lines, not both");
  }
  LineRange r;
  if (start || end) {
    r.offset = start.value_or(1);
    if (end) {
      if (*end < r.offset) {
        return Status::InvalidArgument("end_line " + std::to_string(*end) + " is before start_line " +
                                       std::to_string(r.offset) + "; give end_line >= start_line");
      }
      r.max_lines = *end - r.offset + 1;
    }
    return r;
  }
  r.offset = offset.value_or(1);
  r.max_lines = max_lines.value_or(0);
  return r;
}

// The next piece of a file's text; empty at its end.
using NextChunk = std::function<Result<std::string_view>()>;

// Keeps lines [offset, offset + max_lines) of the text `next` gives, up to `cap` bytes.
Result<LineWindow> read_window(const NextChunk& next, int64_t offset, int64_t max_lines, size_t cap) {
  LineWindow w;
  int64_t line = 1;
  bool last_was_newline = true;  // an empty file has no lines
  for (;;) {
    KEEL_ASSIGN_OR_RETURN(const std::string_view buf, next());
    if (buf.empty()) break;
    const size_t size = buf.size();
    size_t i = 0;
    while (i < size) {
      if (max_lines > 0 && line >= offset + max_lines) {
        w.more = true;
        return w;
      }
      const void* nl = std::memchr(buf.data() + i, '\n', size - i);
      const size_t end = nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) + 1 : size;
      if (line >= offset) {
        const size_t len = end - i;
        if (w.text.size() + len > cap) {
          w.text.append(buf.substr(i, cap - w.text.size()));
          w.cut = true;
          return w;
        }
        w.text.append(buf.substr(i, len));
        if (nl != nullptr) ++w.complete_lines;
      }
      i = end;
      last_was_newline = nl != nullptr;
      if (nl != nullptr) ++line;
    }
  }
  w.total_lines = last_was_newline ? line - 1 : line;
  return w;
}

// The file's text in pieces, streamed from the disk (reading late lines of a large file does not
// load all of it).
Result<LineWindow> read_disk_window(const fs::path& path, std::string_view shown, int64_t offset, int64_t max_lines,
                                    size_t cap) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return fs_error("open", shown, std::error_code(errno, std::generic_category()));
  std::string buf(64 * 1024, '\0');
  NextChunk next = [&]() -> Result<std::string_view> {
    for (;;) {
      const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fs_error("read", shown, std::error_code(errno, std::generic_category()));
      return std::string_view(buf.data(), static_cast<size_t>(n));
    }
  };
  return read_window(next, offset, max_lines, cap);
}

Result<std::string> read_file(const WorkspacePtr& ws, size_t cap, TextFileAccess* editor, const nlohmann::json& args) {
  const std::string shown = string_arg(args, "path", "");
  KEEL_ASSIGN_OR_RETURN(const LineRange range, line_range(args));
  KEEL_ASSIGN_OR_RETURN(fs::path path, ws->resolve(shown, /*must_exist=*/true));
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec) return fs_error("read", shown, ec);
  if (fs::is_directory(st)) {
    return Status::InvalidArgument("'" + shown + "' is a directory; use fs_list or fs_tree to see its entries");
  }
  if (!fs::is_regular_file(st)) {
    return Status::InvalidArgument("'" + shown + "' is a " + std::string(file_type_name(st.type())) +
                                   ", not a regular file; fs_read only reads files");
  }
  // The editor's buffer when an editor serves files (it may hold changes not saved yet).
  std::optional<std::string> served;
  if (editor != nullptr) {
    KEEL_ASSIGN_OR_RETURN(served, editor->read(path.string()));
  }
  std::string head;
  if (served) {
    head = served->substr(0, kBinarySniffBytes);
  } else {
    KEEL_ASSIGN_OR_RETURN(head, read_prefix(path, kBinarySniffBytes, shown));
  }
  if (looks_binary(head)) {
    return Status::InvalidArgument("'" + shown + "' is a binary file (it contains NUL bytes); fs_read only reads text");
  }
  if (head.empty()) return std::string("[empty file: 0 bytes]");

  const int64_t offset = range.offset;
  const int64_t max_lines = range.max_lines;
  if (cap == 0) cap = 1;
  LineWindow w;
  if (served) {
    bool given = false;
    NextChunk whole = [&]() -> Result<std::string_view> {
      if (given) return std::string_view();
      given = true;
      return std::string_view(*served);
    };
    KEEL_ASSIGN_OR_RETURN(w, read_window(whole, offset, max_lines, cap));
  } else {
    KEEL_ASSIGN_OR_RETURN(w, read_disk_window(path, shown, offset, max_lines, cap));
  }

  std::string out = std::move(w.text);
  std::string note;
  const int64_t last = offset + w.complete_lines - 1;
  if (w.cut) {
    const uintmax_t size = served ? served->size() : fs::file_size(path, ec);
    const std::string size_text = ec ? "" : " of a " + std::to_string(size) + "-byte file";
    const size_t keep = out.rfind('\n');
    if (keep != std::string::npos) {
      out.resize(keep + 1);  // whole lines only, so offset_line below is exact
      note = "[output truncated at " + std::to_string(cap) + " bytes: showing lines " + std::to_string(offset) + "-" +
             std::to_string(last) + size_text + "; use offset_line=" + std::to_string(last + 1) + " to read on]";
    } else {
      out.resize(utf8_complete_prefix(out));
      note = "[line " + std::to_string(offset) + " is longer than " + std::to_string(cap) +
             " bytes; only its start is shown; use offset_line=" + std::to_string(offset + 1) + " to skip it]";
    }
  } else if (w.more) {
    note = "[showing lines " + std::to_string(offset) + "-" + std::to_string(last) +
           "; more lines follow: use offset_line=" + std::to_string(last + 1) + " to read on]";
  } else if (offset > w.total_lines) {
    note = "[offset_line " + std::to_string(offset) + " is past the end of '" + shown + "', which has " +
           std::to_string(w.total_lines) + " lines]";
  }
  if (!note.empty()) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += note;
  }
  return out;
}

}  // namespace

std::unique_ptr<Tool> make_fs_read_tool(WorkspacePtr workspace, const BuiltinToolOptions& options) {
  ToolSpec spec = read_only_fs_spec(
      "fs_read",
      "Read a text file, or lines start_line..end_line of it; use offset_line and max_lines to page through long "
      "files. Binary files are refused.",
      kSchema);
  const size_t cap = options.max_output_bytes;
  std::shared_ptr<TextFileAccess> editor = options.text_files && options.text_files->reads() ? options.text_files : nullptr;
  return make_tool(std::move(spec), [ws = std::move(workspace), cap, editor](const nlohmann::json& args,
                                                                             const ToolContext&) {
    return read_file(ws, cap, editor.get(), args);
  });
}

}  // namespace keel::detail
