// Loading a shared library at run time (base/shared_library.hpp).
#include "base/shared_library.hpp"

#include <dlfcn.h>

namespace keel::detail {

OpenedLibrary open_first_library(std::span<const std::string> files) {
  OpenedLibrary out;
  for (const std::string& file : files) {
    out.handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (out.handle != nullptr) {
      out.path = file;
      return out;
    }
    const char* e = dlerror();
    out.why += (out.why.empty() ? "" : "; ") + (e != nullptr ? std::string(e) : file + ": cannot open");
  }
  return out;
}

void* library_symbol(void* handle, const char* name) { return handle != nullptr ? dlsym(handle, name) : nullptr; }

}  // namespace keel::detail
