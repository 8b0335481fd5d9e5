// keel_store_bench — latency of the SQLite store on a realistic database (WAL, synchronous=NORMAL)
// in a temporary folder: appending one message to a session that already holds 10k messages
// (one transaction per append), loading those 10k messages, and searching 10k memory notes.
// Prints figures; asserts nothing about timing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "keel/store/sqlite_store.hpp"
#include "support/temp_dir.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Stats {
  double median = 0;
  double p99 = 0;
  double max = 0;
};

Stats stats(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) { return samples[static_cast<size_t>(q * static_cast<double>(samples.size() - 1))]; };
  return {at(0.5), at(0.99), samples.back()};
}

const std::vector<std::string>& vocabulary() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> w = {"build",   "test",   "cmake",  "linker", "python", "editor",  "vim",    "release",
                                  "branch",  "merge",  "commit", "deploy", "server", "client",  "cache",  "memory",
                                  "session", "prompt", "model",  "token",  "parser", "json",    "schema", "tool",
                                  "shell",   "file",   "folder", "config", "user",   "prefers", "dark",   "theme",
                                  "linting", "ruff",   "format", "style",  "docker", "kernel",  "thread", "mutex"};
    for (int i = 0; i < 400; ++i) w.push_back("term" + std::to_string(i));
    return w;
  }();
  return words;
}

std::string sentence(std::mt19937& rng, size_t chars) {
  const auto& words = vocabulary();
  std::string s;
  while (s.size() < chars) {
    if (!s.empty()) s += ' ';
    s += words[rng() % words.size()];
  }
  s.resize(chars);
  return s;
}

void check(const keel::Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, status.to_string().c_str());
    std::exit(1);
  }
}

}  // namespace

int main() {
  keel::testing::TempDir tmp;
  keel::StoreOptions options;
  options.path = tmp.path() / "keel.db";
  auto opened = keel::open_sqlite_store(options);
  check(opened.status(), "open");
  keel::Store& store = **opened;
  std::mt19937 rng(42);

  // A session with 10k messages, written in batches of 500.
  constexpr int kPreload = 10000;
  keel::SessionInfo info;
  info.title = "bench";
  info.workspace = "/ws";
  auto session = store.create_session(info);
  check(session.status(), "create_session");
  auto t0 = Clock::now();
  for (int batch = 0; batch < kPreload / 500; ++batch) {
    std::vector<keel::NewMessage> items;
    for (int i = 0; i < 500; ++i) {
      keel::Message m =
          (i % 2 == 0) ? keel::Message::user(sentence(rng, 500)) : keel::Message::assistant(sentence(rng, 500));
      m.metadata["round"] = std::to_string(batch);
      items.push_back({"", std::move(m), 120, 0});
    }
    check(store.append_messages(*session, items).status(), "append_messages");
  }
  std::printf("preload: %d messages in %.0f ms (batches of 500)\n", kPreload, ms_since(t0));

  // load_messages of the 10k-message session.
  std::vector<double> loads;
  for (int i = 0; i < 7; ++i) {
    auto start = Clock::now();
    auto loaded = store.load_messages(*session);
    loads.push_back(ms_since(start));
    check(loaded.status(), "load_messages");
    if (loaded->size() != static_cast<size_t>(kPreload)) check(keel::Status::Internal("wrong count"), "load");
  }
  Stats load = stats(loads);
  std::printf("load_messages (10k messages): median %.2f ms, max %.2f ms over %zu loads\n", load.median, load.max,
              loads.size());

  // Single appends, one transaction each, of a realistic assistant message (500 chars + a tool call).
  constexpr int kAppends = 2000;
  std::vector<double> appends;
  appends.reserve(kAppends);
  for (int i = 0; i < kAppends; ++i) {
    keel::Message m =
        keel::Message::assistant(sentence(rng, 500), {{"call_1_1", "fs_read", R"({"path":"src/main.cpp"})"}});
    m.metadata["round"] = std::to_string(i);
    auto start = Clock::now();
    auto seq = store.append_message(*session, "", m, 150);
    appends.push_back(ms_since(start));
    check(seq.status(), "append_message");
  }
  Stats append = stats(appends);
  std::printf(
      "append_message (500-char message, session of %d+): median %.3f ms, p99 %.3f ms, max %.3f ms "
      "over %d appends (target: median <= 0.1 ms)\n",
      kPreload, append.median, append.p99, append.max, kAppends);

  // Memory search over 10k notes.
  constexpr int kNotes = 10000;
  t0 = Clock::now();
  for (int i = 0; i < kNotes; ++i) {
    check(store.memory_write("/ws", sentence(rng, 200), "note").status(), "memory_write");
  }
  std::printf("memory_write: %d notes in %.0f ms\n", kNotes, ms_since(t0));
  std::vector<double> searches;
  size_t hits = 0;
  const auto& words = vocabulary();
  for (int i = 0; i < 300; ++i) {
    std::string query =
        words[rng() % words.size()] + " " + words[rng() % words.size()] + "? " + words[rng() % words.size()];
    auto start = Clock::now();
    auto found = store.memory_search("/ws", query, 10);
    searches.push_back(ms_since(start));
    check(found.status(), "memory_search");
    hits += found->size();
  }
  Stats search = stats(searches);
  std::printf(
      "memory_search (10k notes, 3-word queries, top 10): median %.3f ms, p99 %.3f ms over %zu queries "
      "(%.1f hits each)\n",
      search.median, search.p99, searches.size(), static_cast<double>(hits) / searches.size());
  return 0;
}
