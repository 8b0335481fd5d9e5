#include "support/session_drivers.hpp"

namespace keel::testing {

SessionDrivers::SessionDrivers(int sessions, int runs_per_session, RunOne run_one) : runs_(sessions) {
  for (int s = 0; s < sessions; ++s) {
    threads_.emplace_back([this, s, runs_per_session, run_one] {
      for (int r = 0; r < runs_per_session; ++r) {
        std::string why;
        std::string run = run_one(s, "s" + std::to_string(s) + "r" + std::to_string(r), &why);
        runs_[s].push_back(run);
        if (!run.empty()) {
          ++finished_;
        } else {
          std::lock_guard lock(mu_);
          failures_.push_back(why);
        }
      }
    });
  }
}

SessionDrivers::~SessionDrivers() {
  join();
}

void SessionDrivers::join() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

bool SessionDrivers::any_failed() const {
  std::lock_guard lock(mu_);
  return !failures_.empty();
}

std::vector<std::string> SessionDrivers::failures() const {
  std::lock_guard lock(mu_);
  return failures_;
}

}  // namespace keel::testing
