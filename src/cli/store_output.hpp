// Shared pieces of the commands that read keel's database (sessions, fork, trace, memory): the
// one mapping from a store error to an exit code, and small text helpers for tables.
//
// Exit codes of these commands: 0 ok, 1 a named thing does not exist, 2 usage or database error.
// Errors go to stderr as one line starting "keel: ".
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cli/commands.hpp"  // kExitNotFound, kExitUsage
#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::cli {

// Appended to each command's help (ends with a newline: CLI11 prints footers as they are).
inline constexpr const char* kStoreExitCodesHelp =
    "Exit codes: 0 ok, 1 not found (no such session, run or note), 2 usage or database error.\n";

// Prints "keel: <message>" on stderr and returns the exit code: 1 for NotFound, 2 otherwise.
int report_store_error(const Status& status);
// Prints "keel: <message>" on stderr and returns 2.
int report_usage_error(std::string_view message);

// The database (see open_cli_store), or nullptr after reporting why not; `exit_code` is then 2.
std::unique_ptr<Store> open_store_or_report(int& exit_code);

// "2024-05-01 14:03" in the local time zone, from ms since the epoch; "-" for 0.
std::string local_time(int64_t ms);

// `text` on one line (control characters as spaces), cut to about `max_bytes` without splitting
// a UTF-8 character, with "…" when cut.
std::string one_line(std::string_view text, size_t max_bytes);

// The first line of `text`, cut like one_line().
std::string first_line(std::string_view text, size_t max_bytes);

// True when `id` is `prefix` followed by at least one of [A-Za-z0-9], e.g. "s_0123abcd".
bool looks_like_id(std::string_view id, std::string_view prefix);

// A workspace key for filters: the flag or the current directory, absolute and canonical as far
// as it exists (a deleted folder still matches what was stored for it). Empty with `error` set
// when the current directory cannot be read.
std::string workspace_key(const std::optional<std::string>& flag, std::string& error);

// Writes `text` to stdout, or to the file `path` when set. InvalidArgument naming the file when
// it cannot be written.
Status write_output(const std::optional<std::string>& path, std::string_view text);

}  // namespace keel::cli
