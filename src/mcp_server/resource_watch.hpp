// mcp_server/resource_watch.hpp — resource subscriptions (resources/subscribe): the version of
// each subscribed URI is read again every interval, and its subscriber is told when it changed.
//
// Polling, not inotify: a resource may be a file, a stored session or a memory note, and every
// catalog can say what its version is (ServerCatalog::resource_version); a poll of a few dozen
// subscriptions a second costs microseconds each.
//
//   ResourceWatch watch([&](const std::string& uri) { return catalog.resource_version(uri); }, 1s);
//   watch.subscribe(session_key, "file:///ws/a.txt", [&](const std::string& uri) { send_updated(uri); });
//
// Thread-safety: all members may be called from any thread. Updates are reported on the watch's
// own thread (started with the first subscription), never while a member holds its lock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "keel/result.hpp"

namespace keel::mcp {

class ResourceWatch {
 public:
  using VersionOf = std::function<Result<std::string>(const std::string& uri)>;
  using OnUpdate = std::function<void(const std::string& uri)>;

  ResourceWatch(VersionOf version_of, std::chrono::milliseconds interval);
  ~ResourceWatch();  // stops the thread; no update is reported after it returns
  ResourceWatch(const ResourceWatch&) = delete;
  ResourceWatch& operator=(const ResourceWatch&) = delete;

  // Watches `uri` for `subscriber` (a session); subscribing again replaces the callback. The
  // error of version_of (NotFound for an unknown resource) when it cannot be read now.
  Status subscribe(uint64_t subscriber, const std::string& uri, OnUpdate on_update);
  // Ends one subscription; unknown ones are ignored.
  void unsubscribe(uint64_t subscriber, const std::string& uri);
  // Ends every subscription of `subscriber` (its session ended).
  void drop(uint64_t subscriber);
  size_t size() const;

  // Reads every subscribed version once and reports the changed ones (the thread's pass; tests
  // call it to avoid waiting). A resource that can no longer be read counts as changed once.
  void poll();

 private:
  struct Entry {
    std::string version;  // "v:" and the catalog's version, or "gone"
    OnUpdate on_update;
  };
  using Key = std::pair<uint64_t, std::string>;

  void run(std::stop_token stop);

  const VersionOf version_of_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  std::map<Key, Entry> entries_;
  std::mutex poll_mu_;  // one pass at a time
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace keel::mcp
