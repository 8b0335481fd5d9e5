// resolve_store_settings(): KEEL_DATABASE_URL > the user file's `store:` > the default SQLite file.
#include "keel/store_settings.hpp"

#include <cstdlib>

#include "runtime/config_file.hpp"
#include "runtime/model_spec.hpp"  // env_value

namespace keel {

Result<StoreSettings> resolve_store_settings(const ConfigInputs& in) {
  StoreSettings out;
  if (std::string user = detail::user_config_path(in); !user.empty()) {
    KEEL_ASSIGN_OR_RETURN(std::optional<detail::ConfigLayer> file, detail::load_config_file(user));
    if (file && file->store_url) {
      out.url = *file->store_url;
      if (out.url.starts_with("sqlite:")) out.url = out.url.substr(7);
      out.source = user;
    }
    if (file && file->store_pool_size) out.pool_size = *file->store_pool_size;
    if (file && file->store_reconnect_wait_ms) out.reconnect_wait_ms = *file->store_reconnect_wait_ms;
  }
  if (std::string url = detail::env_value(in.env, "KEEL_DATABASE_URL"); !url.empty()) {
    out.url = url.starts_with("sqlite:") ? url.substr(7) : url;
    out.source = "KEEL_DATABASE_URL";
    if (out.url.find("://") != std::string::npos && !out.url.starts_with("postgres://") &&
        !out.url.starts_with("postgresql://")) {
      return Status::InvalidArgument("KEEL_DATABASE_URL '" + out.url.substr(0, out.url.find("://") + 3) +
                                     "...' names an engine keel does not know; use postgres://... or a SQLite file path");
    }
  }
  if (std::string text = detail::env_value(in.env, "KEEL_DATABASE_POOL_SIZE"); !text.empty()) {
    char* end = nullptr;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (*end != '\0' || n < 1 || n > 256) {
      return Status::InvalidArgument("KEEL_DATABASE_POOL_SIZE must be a number from 1 to 256, got '" + text + "'");
    }
    out.pool_size = static_cast<int>(n);
  }
  return out;
}

}  // namespace keel
