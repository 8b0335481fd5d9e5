// Loading a shared library at run time: keel loads libraries only some commands need (llama.cpp,
// libcurl) when they are first used, not at start-up.
//
// Thread-safety: free functions; the loader itself is thread-safe.
#pragma once

#include <span>
#include <string>

namespace keel::detail {

struct OpenedLibrary {
  void* handle = nullptr;  // null: none of the files could be opened
  std::string path;        // the file that was opened
  std::string why;         // the loader's reasons for each file it could not open, "; "-separated
};

// Opens the first of `files` the loader can open (a path, or a name looked up as the loader does),
// resolving every symbol now and keeping them out of the global scope.
OpenedLibrary open_first_library(std::span<const std::string> files);

// The address of `name` in `handle`, or null.
void* library_symbol(void* handle, const char* name);

}  // namespace keel::detail
