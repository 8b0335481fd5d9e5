// Test helper for load tests of keel serve: one thread per session, each running its session's
// runs one after another ("sS rR" is run R of session S), counting those that ended and keeping
// why the others did not.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace keel::testing {

class SessionDrivers {
 public:
  // Runs `content` in session `session` to its end: the run id, or "" with the reason in *why.
  using RunOne = std::function<std::string(int session, const std::string& content, std::string* why)>;

  SessionDrivers(int sessions, int runs_per_session, RunOne run_one);
  ~SessionDrivers();  // join()
  SessionDrivers(const SessionDrivers&) = delete;
  SessionDrivers& operator=(const SessionDrivers&) = delete;

  // Waits for every driver to be done.
  void join();
  int finished() const { return finished_.load(); }
  bool any_failed() const;
  std::vector<std::string> failures() const;
  // Each session's run ids, in order ("" for a run that did not end); complete after join().
  const std::vector<std::vector<std::string>>& runs() const { return runs_; }

 private:
  std::vector<std::vector<std::string>> runs_;
  std::atomic<int> finished_{0};
  mutable std::mutex mu_;
  std::vector<std::string> failures_;
  std::vector<std::thread> threads_;
};

}  // namespace keel::testing
