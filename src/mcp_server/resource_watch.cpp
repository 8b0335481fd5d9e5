// ResourceWatch: a pass copies the keys, reads their versions unlocked (a read may touch the disk
// or the store), then compares under the lock, so subscribing never waits for a slow read.
#include "mcp_server/resource_watch.hpp"

#include <vector>

namespace keel::mcp {

ResourceWatch::ResourceWatch(VersionOf version_of, std::chrono::milliseconds interval)
    : version_of_(std::move(version_of)), interval_(interval) {}

ResourceWatch::~ResourceWatch() {
  if (thread_.joinable()) {
    thread_.request_stop();
    wake_.notify_all();
    thread_.join();
  }
}

Status ResourceWatch::subscribe(uint64_t subscriber, const std::string& uri, OnUpdate on_update) {
  Result<std::string> version = version_of_(uri);
  if (!version.ok()) return version.status();
  std::lock_guard lock(mu_);
  entries_[{subscriber, uri}] = Entry{"v:" + *version, std::move(on_update)};
  if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
  return Status::Ok();
}

void ResourceWatch::unsubscribe(uint64_t subscriber, const std::string& uri) {
  std::lock_guard lock(mu_);
  entries_.erase({subscriber, uri});
}

void ResourceWatch::drop(uint64_t subscriber) {
  std::lock_guard lock(mu_);
  auto it = entries_.lower_bound({subscriber, std::string()});
  while (it != entries_.end() && it->first.first == subscriber) it = entries_.erase(it);
}

size_t ResourceWatch::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void ResourceWatch::poll() {
  std::lock_guard pass(poll_mu_);
  std::vector<Key> keys;
  {
    std::lock_guard lock(mu_);
    keys.reserve(entries_.size());
    for (const auto& [key, entry] : entries_) keys.push_back(key);
  }
  std::map<std::string, std::string> now;  // one read per URI, however many subscribers
  for (const Key& key : keys) {
    if (now.count(key.second)) continue;
    Result<std::string> version = version_of_(key.second);
    now[key.second] = version.ok() ? "v:" + *version : "gone";
  }
  std::vector<std::pair<OnUpdate, std::string>> changed;
  {
    std::lock_guard lock(mu_);
    for (const Key& key : keys) {
      auto it = entries_.find(key);
      if (it == entries_.end()) continue;  // unsubscribed meanwhile
      std::string current = now[key.second];
      if (it->second.version == current) continue;
      it->second.version = current;
      changed.emplace_back(it->second.on_update, key.second);
    }
  }
  for (auto& [notify, uri] : changed) {
    if (notify) notify(uri);
  }
}

void ResourceWatch::run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, stop, interval_, [] { return false; });
    }
    if (stop.stop_requested()) return;
    poll();
  }
}

}  // namespace keel::mcp
