// A `keel serve` process for end-to-end tests: started with arguments and an environment, its
// stderr read until it says where it listens; Ctrl-C stops it. Killed when destroyed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace keel::testing {

class ServeProcess {
 public:
  // `keel serve ARGS` with exactly `env` (plus PATH). port() is 0 when it did not start in 20 s.
  ServeProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  uint16_t port() const { return port_; }
  // What it wrote to stderr so far (everything up to the listening line, and more after interrupt()).
  const std::string& err() const { return err_; }
  // Reads stderr for up to `ms` more milliseconds (lines printed right after the listening line).
  void read_err_for(int ms);
  // Ctrl-C, then the exit code (-1 when it did not exit within 15 s).
  int interrupt();
  // SIGKILL (a crash: nothing is saved or handed back), and waits for the process to be gone.
  void kill();

 private:
  pid_t pid_ = -1;
  int err_fd_ = -1;
  uint16_t port_ = 0;
  std::string err_;
  bool reaped_ = false;
};

}  // namespace keel::testing
