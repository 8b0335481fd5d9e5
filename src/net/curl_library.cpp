// Loading libcurl at first use (net/curl_library.hpp).
#include "net/curl_library.hpp"

#include <openssl/crypto.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>

#include "base/shared_library.hpp"

namespace keel::detail {
namespace {

// What an entry point returns when libcurl is missing: the failure value of its return type.
template <class R>
R failed() {
  if constexpr (std::is_same_v<R, CURLcode>) return CURLE_FAILED_INIT;
  else if constexpr (std::is_same_v<R, CURLMcode>) return CURLM_INTERNAL_ERROR;
  else if constexpr (std::is_same_v<R, CURLUcode>) return CURLUE_OUT_OF_MEMORY;
  else if constexpr (std::is_same_v<R, const char*>) return "libcurl could not be loaded";
  else if constexpr (std::is_same_v<R, time_t>) return static_cast<time_t>(-1);
  else if constexpr (!std::is_void_v<R>) return R{};  // pointers: no handle
}

template <class F>
struct Stub;
template <class R, class... A>
struct Stub<R (*)(A...)> {
  static R call(A...) { return failed<R>(); }
};
template <class R, class... A>
struct Stub<R (*)(A..., ...)> {
  static R call(A..., ...) { return failed<R>(); }
};

CurlLibrary g_library;
Status g_status = Status::Ok();

// libcurl's TLS library, OpenSSL, registers an atexit handler that frees its locks the first time it
// initialises. When that first time is libcurl's global init on the loading thread, the handler
// is registered after the Loader's, so a process exiting mid-load would run it (and free locks the
// load is still using: a hang or a crash) before the Loader waits for the load. Initialising
// OpenSSL first without that handler closes the window; the process's exit frees its memory.
void initialise_openssl_without_exit_handler() {
  static const std::string kFiles[] = {"libcrypto.so.3"};
  const OpenedLibrary crypto = open_first_library(kFiles);
  if (crypto.handle == nullptr) return;  // libcurl built on another TLS library: nothing to do
  using Init = int (*)(uint64_t, const void*);
  if (auto init = reinterpret_cast<Init>(library_symbol(crypto.handle, "OPENSSL_init_crypto"))) {
    init(OPENSSL_INIT_NO_ATEXIT, nullptr);
  }
}

void load() {
  initialise_openssl_without_exit_handler();
  // The soname first (the package's library), then the development link name.
  static const std::string kFiles[] = {"libcurl.so.4", "libcurl.so"};
  const OpenedLibrary opened = open_first_library(kFiles);
  void* const handle = opened.handle;
  std::string why = opened.why;
  bool complete = handle != nullptr;
#define KEEL_CURL_RESOLVE(name)                                                                        \
  g_library.name = reinterpret_cast<decltype(&::name)>(library_symbol(handle, #name));                   \
  if (g_library.name == nullptr) {                                                                     \
    if (handle != nullptr && complete) why = "libcurl has no " #name " (libcurl 7.80 or newer is needed)"; \
    complete = false;                                                                                  \
  }
  KEEL_CURL_ENTRY_POINTS(KEEL_CURL_RESOLVE)
#undef KEEL_CURL_RESOLVE
  if (!complete) {
#define KEEL_CURL_STUB(name) g_library.name = &Stub<decltype(&::name)>::call;
    KEEL_CURL_ENTRY_POINTS(KEEL_CURL_STUB)
#undef KEEL_CURL_STUB
    g_status = Status::Unavailable("cannot load libcurl, which keel's HTTP and URL handling use (" + why +
                                   "); install it (Debian: apt-get install libcurl4)");
    return;
  }
  g_library.curl_global_init(CURL_GLOBAL_DEFAULT);
}

std::once_flag g_once;

// The thread start_loading_curl() starts, joined at exit; defined after the state it writes, so
// that it is destroyed (and the load finished) first.
struct Loader {
  std::once_flag started;
  std::thread thread;
  ~Loader() {
    if (thread.joinable()) thread.join();
  }
};
Loader g_loader;

}  // namespace

void start_loading_curl() {
  std::call_once(g_loader.started, [] {
    try {
      g_loader.thread = std::thread([] { std::call_once(g_once, load); });
    } catch (const std::system_error&) {  // no thread to be had: the first curl() loads it
    }
  });
}

const CurlLibrary& curl() {
  std::call_once(g_once, load);
  return g_library;
}

Status curl_load_status() {
  std::call_once(g_once, load);
  return g_status;
}

}  // namespace keel::detail
