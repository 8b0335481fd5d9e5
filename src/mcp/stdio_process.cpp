// Starting a stdio MCP server's process; see stdio_process.hpp.
#include "mcp/stdio_process.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "base/child_env.hpp"

namespace keel::mcp::detail {
namespace {

constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

std::string quoted(const std::string& s) {
  return concat({"'", s, "'"});
}

std::string spawn_error(int rc, const std::string& program) {
  std::string msg = "cannot start MCP server: ";
  msg.append(quoted(program));
  switch (rc) {
    case ENOENT:
      msg.append(" not found (or its #! interpreter is missing)");
      break;
    case EACCES:
      msg.append(" is not executable: permission denied");
      break;
    case ENOEXEC:
      msg.append(" is not a program this system can run (a script needs a #! line)");
      break;
    default:
      msg.append(": ").append(std::strerror(rc));
  }
  return msg;
}

// A failed spawn in the MCP server's words.
Status spawn_failure(const keel::detail::SpawnFailure& f, const std::string& program) {
  if (f.step == keel::detail::SpawnFailure::Step::kPipe) {
    std::string msg = "cannot start MCP server: cannot create its ";
    msg.append(f.stream).append(" pipe: ").append(std::strerror(f.error));
    return Status::Unavailable(std::move(msg));
  }
  return Status(f.error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kUnavailable, spawn_error(f.error, program));
}

}  // namespace

Result<std::string> resolve_command(const std::string& command, const std::string& path_value, const std::string& cwd) {
  if (std::optional<std::string> found = keel::detail::find_program(command, path_value, cwd)) return *found;
  if (command.find('/') != std::string::npos) {
    return Status::NotFound(concat({"cannot start MCP server: ", quoted(command),
                                    " not found or not an executable file; check the command's path"}));
  }
  std::string msg = "cannot start MCP server: ";
  msg.append(quoted(command)).append(" not found on PATH; install it, give its full path, or set PATH in the ");
  msg.append("server's env (PATH=").append(path_value).append(")");
  return Status::NotFound(std::move(msg));
}

Result<ChildProcess> spawn_child(const StdioServerSpec& spec) {
  if (spec.command.empty()) return Status::InvalidArgument("cannot start MCP server: its command is empty");
  if (!spec.cwd.empty()) {
    struct stat st {};
    if (::stat(spec.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status::NotFound(concat({"cannot start MCP server ", quoted(spec.command), ": its working directory ",
                                      quoted(spec.cwd), " is not an existing directory"}));
    }
  }
  keel::detail::SpawnRequest request;
  // Only the short allowlist of keel's variables, plus the server's own env entries (which may
  // name keel's variables explicitly: "GITHUB_TOKEN": "${GITHUB_TOKEN}").
  request.env = keel::detail::clean_environment({}, spec.env);
  std::string path_value = kDefaultPath;
  for (const std::string& entry : request.env) {
    if (entry.rfind("PATH=", 0) == 0) path_value = entry.substr(5);
  }
  KEEL_ASSIGN_OR_RETURN(request.program, resolve_command(spec.command, path_value, spec.cwd));
  request.argv.reserve(spec.args.size() + 1);
  request.argv.push_back(spec.command);
  request.argv.insert(request.argv.end(), spec.args.begin(), spec.args.end());
  request.cwd = spec.cwd;
  request.stdin_stream = keel::detail::ChildStream::kPipe;
  request.stdout_stream = keel::detail::ChildStream::kPipe;
  request.stderr_stream = keel::detail::ChildStream::kPipe;
  request.new_process_group = true;  // its own group: close() signals the server and its helpers
  request.default_signals.clear();   // every signal at its default
  const std::string& program = request.program;
  request.describe_failure = [&program](const keel::detail::SpawnFailure& f) { return spawn_failure(f, program); };
  return keel::detail::spawn_process(request);
}

}  // namespace keel::mcp::detail
