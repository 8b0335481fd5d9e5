#include "support/serve_process.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace keel::testing {

ServeProcess::ServeProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  int fds[2];
  if (pipe(fds) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<std::string> argv_s = {KEEL_BINARY, "serve"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
  if (env.count("PATH") == 0) env_s.push_back(std::string("PATH=") + (getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin"));
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  if (posix_spawn(&pid_, KEEL_BINARY, &actions, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  err_fd_ = fds[0];
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (port_ == 0 && std::chrono::steady_clock::now() < until) {
    pollfd p{err_fd_, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[4096];
    ssize_t n = read(err_fd_, buf, sizeof(buf));
    if (n <= 0) break;
    err_.append(buf, static_cast<size_t>(n));
    size_t at = err_.find("listening on http://127.0.0.1:");
    if (at != std::string::npos && err_.find('\n', at) != std::string::npos) {
      port_ = static_cast<uint16_t>(std::stoi(err_.substr(at + 30)));
    }
  }
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (err_fd_ >= 0) close(err_fd_);
}

void ServeProcess::read_err_for(int ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    pollfd p{err_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    ssize_t n = read(err_fd_, buf, sizeof(buf));
    if (n <= 0) break;
    err_.append(buf, static_cast<size_t>(n));
  }
}

int ServeProcess::interrupt() {
  ::kill(pid_, SIGINT);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      char buf[4096];
      ssize_t n;
      while ((n = read(err_fd_, buf, sizeof(buf))) > 0) err_.append(buf, static_cast<size_t>(n));
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

void ServeProcess::kill() {
  if (pid_ <= 0 || reaped_) return;
  ::kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  reaped_ = true;
}

}  // namespace keel::testing
