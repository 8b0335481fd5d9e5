// keel_store_bench — latency of the store on a realistic database: appending one message to a
// session that already holds 10k messages (one transaction per append), loading those 10k
// messages, and searching 10k memory notes. Runs on SQLite (WAL, synchronous=NORMAL, a file in a
// temporary folder) and then on PostgreSQL (a server of its own on 127.0.0.1 with default,
// durable settings, started with test/support/pg-test-server.sh; `--sqlite-only` skips it), and
// prints each figure for both with their ratio. Asserts nothing about timing.

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "keel/store/postgres_store.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/postgres_server.hpp"
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

struct Figures {
  double append_median = 0, append_p99 = 0, load_median = 0, search_median = 0;
};

Figures run_bench(keel::Store& store, const char* engine) {
  std::printf("--- %s\n", engine);
  Figures f;
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
  f.load_median = load.median;
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
  f.append_median = append.median;
  f.append_p99 = append.p99;
  std::printf(
      "append_message (500-char message, session of %d+): median %.3f ms, p99 %.3f ms, max %.3f ms "
      "over %d appends (target on SQLite: median <= 0.1 ms)\n",
      kPreload, append.median, append.p99, append.max, kAppends);

  // Memory search over 10k notes (written 500 to a transaction).
  constexpr int kNotes = 10000;
  t0 = Clock::now();
  for (int batch = 0; batch < kNotes / 500; ++batch) {
    check(store.write_together([&]() -> keel::Status {
      for (int i = 0; i < 500; ++i) KEEL_TRY(store.memory_write("/ws", sentence(rng, 200), "note").status());
      return keel::Status::Ok();
    }),
          "memory_write");
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
  f.search_median = search.median;
  std::printf(
      "memory_search (10k notes, 3-word queries, top 10): median %.3f ms, p99 %.3f ms over %zu queries "
      "(%.1f hits each)\n",
      search.median, search.p99, searches.size(), static_cast<double>(hits) / searches.size());
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const bool sqlite_only = argc > 1 && std::strcmp(argv[1], "--sqlite-only") == 0;
  keel::testing::TempDir tmp;
  keel::StoreOptions options;
  options.path = tmp.path() / "keel.db";
  auto opened = keel::open_sqlite_store(options);
  check(opened.status(), "open");
  Figures sqlite = run_bench(**opened, "SQLite (WAL, synchronous=NORMAL)");
  if (sqlite_only) return 0;

  Figures pg;
  {
    keel::testing::ScratchPostgres db("store-bench");
    if (db.url().empty()) {
      std::fprintf(stderr, "cannot start a PostgreSQL server (test/support/pg-test-server.sh); run with --sqlite-only\n");
      return 1;
    }
    keel::PostgresStoreOptions pg_options;
    pg_options.url = db.url();
    auto pg_store = keel::open_postgres_store(pg_options);
    check(pg_store.status(), "open PostgreSQL");
    pg = run_bench(**pg_store, "PostgreSQL 127.0.0.1 (default settings: synchronous_commit=on)");
  }
  std::printf("--- PostgreSQL / SQLite: append median %.1fx (p99 %.1fx), load %.1fx, search %.1fx\n",
              pg.append_median / sqlite.append_median, pg.append_p99 / sqlite.append_p99,
              pg.load_median / sqlite.load_median, pg.search_median / sqlite.search_median);
  return 0;
}
