// tools/fs_common.hpp — helpers shared by the fs_* tools: reading argument values, reading file
// contents with size limits, and naming file types and errors for the model.
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// Argument accessors; `args` already passed the tool's schema, these only supply defaults.
std::string string_arg(const nlohmann::json& args, const char* key, std::string fallback);
std::optional<int64_t> int_arg(const nlohmann::json& args, const char* key);
bool bool_arg(const nlohmann::json& args, const char* key, bool fallback);

// "file", "directory", "symlink", "fifo", "socket", "block device", "character device", "other".
std::string_view file_type_name(std::filesystem::file_type type);

// "cannot <verb> '<shown>': <reason>" as a Status with a code that fits the error.
Status fs_error(std::string_view verb, std::string_view shown, const std::error_code& ec);

// Up to `max_bytes` bytes from the start of a file. `shown` names it in errors.
Result<std::string> read_prefix(const std::filesystem::path& path, size_t max_bytes, std::string_view shown);

// A spec for a read-only, concurrency-safe, cacheable, low-risk file tool.
ToolSpec read_only_fs_spec(std::string name, std::string description, std::string schema);

}  // namespace keel::detail
