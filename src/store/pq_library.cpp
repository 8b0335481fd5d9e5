// Loading libpq at first use (store/pq_library.hpp).
#include "store/pq_library.hpp"

#include <mutex>
#include <string>

#include "base/shared_library.hpp"

namespace keel::detail {
namespace {

PqLibrary g_pq;
Status g_pq_status = Status::Ok();
std::once_flag g_pq_once;

void load_pq() {
  static const std::string kFiles[] = {"libpq.so.5", "libpq.so"};
  const OpenedLibrary opened = open_first_library(kFiles);
  std::string why = opened.why;
  bool complete = opened.handle != nullptr;
  PqLibrary loaded;
#define KEEL_PQ_RESOLVE(name)                                                              \
  loaded.name = reinterpret_cast<decltype(&::name)>(library_symbol(opened.handle, #name)); \
  if (loaded.name == nullptr && complete) {                                                \
    why = "libpq has no " #name;                                                           \
    complete = false;                                                                      \
  }
  KEEL_PQ_ENTRY_POINTS(KEEL_PQ_RESOLVE)
#undef KEEL_PQ_RESOLVE
  if (!complete) {
    g_pq_status = Status::Unavailable("cannot load libpq, which keel's PostgreSQL store uses (" + why +
                                      "); install it (Debian: apt-get install libpq5)");
    return;
  }
  g_pq = loaded;
}

}  // namespace

const PqLibrary& pq() {
  std::call_once(g_pq_once, load_pq);
  return g_pq;
}

Status pq_load_status() {
  std::call_once(g_pq_once, load_pq);
  return g_pq_status;
}

}  // namespace keel::detail
