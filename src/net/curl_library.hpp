// libcurl's entry points, resolved when keel first makes an HTTP request or parses a URL rather
// than linked into keel: libcurl's dependencies (TLS, Kerberos, LDAP, ...) were most of keel's
// start-up, and a command or a run that never goes to the network should not pay for them.
//
// When libcurl cannot be loaded every entry point fails the way libcurl reports a failure (no
// handle, an error code) and curl_load_status() says why; callers turn that into their errors.
// Thread-safety: safe from any thread (loaded once).
#pragma once

#ifndef CURL_DISABLE_TYPECHECK
#define CURL_DISABLE_TYPECHECK 1  // the type-checking macros would hide the calls through the table
#endif
#include <curl/curl.h>

#include "keel/result.hpp"

#define KEEL_CURL_ENTRY_POINTS(X)                                                                          \
  X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_init) X(curl_easy_perform) X(curl_easy_reset)     \
  X(curl_easy_setopt) X(curl_easy_strerror) X(curl_free) X(curl_getdate) X(curl_global_init)              \
  X(curl_multi_add_handle) X(curl_multi_cleanup) X(curl_multi_info_read) X(curl_multi_init)               \
  X(curl_multi_perform) X(curl_multi_poll) X(curl_multi_remove_handle) X(curl_multi_strerror)             \
  X(curl_multi_wakeup) X(curl_slist_append) X(curl_slist_free_all) X(curl_url) X(curl_url_cleanup)        \
  X(curl_url_dup) X(curl_url_get) X(curl_url_set) X(curl_url_strerror)

namespace keel::detail {

struct CurlLibrary {
#define KEEL_CURL_MEMBER(name) decltype(&::name) name = nullptr;
  KEEL_CURL_ENTRY_POINTS(KEEL_CURL_MEMBER)
#undef KEEL_CURL_MEMBER
};

// The entry points (libcurl loaded and curl_global_init run on the first call).
const CurlLibrary& curl();
// Ok, or why libcurl could not be loaded (with what to install).
Status curl_load_status();
// Starts loading libcurl on a thread of its own, unless it is loaded or loading: the first curl()
// then waits for that load instead of doing it. Loading libcurl and its thirty libraries takes
// milliseconds, which a host making an HTTP client at start-up spends meanwhile on the rest of its
// set-up (the store, the tools, the prompt) instead of before it.
void start_loading_curl();

}  // namespace keel::detail
