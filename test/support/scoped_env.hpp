// Test helper: sets (or unsets) an environment variable for the lifetime of the object and puts
// the old value back.
//
//   keel::testing::ScopedEnv key("OPENAI_API_KEY", "sk-test-0123456789");
//
// Thread-safety: the process environment is global; use from the test thread only.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace keel::testing {

class ScopedEnv {
 public:
  // `value` nullopt: the variable is unset while the object lives.
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace keel::testing
