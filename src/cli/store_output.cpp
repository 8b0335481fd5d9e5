#include "cli/store_output.hpp"

#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "assembly/store_access.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::cli {

int report_store_error(const Status& status) {
  std::fprintf(stderr, "keel: %s\n", status.message().c_str());
  return status.code() == ErrorCode::kNotFound ? kExitNotFound : kExitUsage;
}

int report_usage_error(std::string_view message) {
  std::fprintf(stderr, "keel: %.*s\n", static_cast<int>(message.size()), message.data());
  return kExitUsage;
}

std::unique_ptr<Store> open_store_or_report(int& exit_code) {
  Result<std::unique_ptr<Store>> store = assembly::open_default_store();
  if (!store.ok()) {
    // NotFound here would be a missing folder, not a missing record: always a database error.
    std::fprintf(stderr, "keel: %s\n", store.status().message().c_str());
    exit_code = kExitUsage;
    return nullptr;
  }
  exit_code = 0;
  return std::move(store).value();
}

std::string local_time(int64_t ms) {
  if (ms == 0) return "-";
  const time_t t = static_cast<time_t>(ms / 1000);
  std::tm tm{};
  if (localtime_r(&t, &tm) == nullptr) return "-";
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return std::string(buf, n);
}

std::string one_line(std::string_view text, size_t max_bytes) {
  std::string out;
  out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u < 0x20 || u == 0x7f ? ' ' : c);
  }
  if (out.size() <= max_bytes) return out;
  out.resize(detail::utf8_char_start(out, max_bytes));  // no character split
  return out + "…";
}

std::string first_line(std::string_view text, size_t max_bytes) {
  const size_t nl = text.find('\n');
  const std::string_view first = text.substr(0, nl);
  std::string line = one_line(first, max_bytes);
  const bool more_lines =
      nl != std::string_view::npos && text.find_first_not_of(" \t\r\n", nl) != std::string_view::npos;
  if (more_lines && first.size() <= max_bytes) line += " …";
  return line;
}

bool looks_like_id(std::string_view id, std::string_view prefix) {
  if (id.size() <= prefix.size() || id.substr(0, prefix.size()) != prefix) return false;
  for (char c : id.substr(prefix.size())) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return true;
}

std::string workspace_key(const std::optional<std::string>& flag, std::string& error) {
  std::error_code ec;
  std::filesystem::path p = flag ? std::filesystem::path(*flag) : std::filesystem::current_path(ec);
  if (ec) {
    error = "cannot read the current directory: " + ec.message();
    return {};
  }
  std::filesystem::path absolute = std::filesystem::absolute(p, ec);
  if (ec) absolute = p;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, ec);
  if (ec) canonical = absolute.lexically_normal();
  std::string out = canonical.string();
  // weakly_canonical keeps a trailing separator of "dir/"; stored workspaces have none.
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

Status write_output(const std::optional<std::string>& path, std::string_view text) {
  if (!path || *path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return Status::Ok();
  }
  std::FILE* f = std::fopen(path->c_str(), "wb");
  if (f == nullptr) return Status::InvalidArgument("cannot write '" + *path + "': " + std::strerror(errno));
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) return Status::InvalidArgument("cannot write '" + *path + "': " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace keel::cli
