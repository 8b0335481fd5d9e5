// Resolving llama.cpp at first use (llm/llama_library.hpp).
#include "llm/llama_library.hpp"

#if KEEL_HAS_LLAMA
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "base/install_paths.hpp"
#include "base/shared_library.hpp"

namespace keel::llama_detail {
namespace {

LlamaLibrary g_library;

// The files to try, in order (see the header).
std::vector<std::string> candidates() {
  if (const char* env = std::getenv("KEEL_LLAMA_LIB"); env != nullptr && *env != '\0') return {env};
  std::vector<std::string> out;
#ifdef KEEL_LLAMA_LIBRARY
  // An installed keel (cmake --install, the .deb) keeps llama.cpp in <prefix>/lib/keel.
  const std::string file_name = std::filesystem::path(KEEL_LLAMA_LIBRARY).filename().string();
  if (auto installed = detail::installed_path("lib/keel/" + file_name); !installed.empty()) out.push_back(installed);
  std::error_code ec;
  if (std::filesystem::exists(KEEL_LLAMA_LIBRARY, ec)) out.emplace_back(KEEL_LLAMA_LIBRARY);
  out.push_back(file_name);
#endif
  out.emplace_back("libllama.so");
  return out;
}

Status open_library() {
  const std::vector<std::string> files = candidates();
  const detail::OpenedLibrary opened = detail::open_first_library(files);
  void* const handle = opened.handle;
  g_library.path = opened.path;
  if (handle == nullptr) {
    return Status::Unavailable("cannot load llama.cpp, which gguf: and local/ models run on (" + opened.why +
                               "); set KEEL_LLAMA_LIB to a libllama.so, rebuild keel (make build fetches it), "
                               "or use a model server (ollama/, llamacpp/)");
  }
#define KEEL_LLAMA_RESOLVE(name)                                                                                  \
  g_library.name = reinterpret_cast<decltype(&::name)>(detail::library_symbol(handle, #name));                        \
  if (g_library.name == nullptr) {                                                                                \
    return Status::Unavailable("the llama.cpp library " + g_library.path + " has no " #name                       \
                               " (keel needs the llama.cpp release it was built with; set KEEL_LLAMA_LIB to it)"); \
  }
  KEEL_LLAMA_ENTRY_POINTS(KEEL_LLAMA_RESOLVE)
#undef KEEL_LLAMA_RESOLVE
  return Status::Ok();
}

}  // namespace

Result<const LlamaLibrary*> load_llama_library() {
  static std::once_flag once;
  static Status status = Status::Ok();
  std::call_once(once, [] { status = open_library(); });
  if (!status.ok()) return status;
  return &g_library;
}

const LlamaLibrary& llama() { return g_library; }

}  // namespace keel::llama_detail
#endif  // KEEL_HAS_LLAMA
