// The shell sandbox's seccomp filter; see seccomp_filter.hpp.
#include "base/seccomp_filter.hpp"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>

namespace keel::detail {
namespace {

// Calls denied outright (names that this architecture lacks are skipped).
// clang-format off
constexpr const char* kDenied[] = {
    "ptrace", "process_vm_readv", "process_vm_writev",                               // other processes
    "mount", "umount", "umount2", "pivot_root", "chroot",                            // the file system view
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "unshare", "setns",                                                              // namespaces
    "keyctl", "add_key", "request_key",                                              // keyrings
    "bpf", "perf_event_open", "userfaultfd",                                         // kernel attack surface
    "io_uring_setup", "io_uring_enter", "io_uring_register",                         // calls past seccomp
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",  // the kernel itself
};
// clang-format on

// Namespace flags a clone() may not carry.
constexpr uint64_t kNamespaceFlags[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,   CLONE_NEWUSER,
                                        CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP};

// libseccomp's context, released on scope exit.
struct Context {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  ~Context() {
    if (ctx != nullptr) seccomp_release(ctx);
  }
};

Status failed(const char* what, int rc) {
  return Status::Internal(std::string("cannot build the sandbox's seccomp filter: ") + what + ": " +
                          std::strerror(rc < 0 ? -rc : rc));
}

// Adds one rule; `syscall` is skipped when this architecture does not have it.
Status add(scmp_filter_ctx ctx, uint32_t action, const char* name, unsigned count = 0,
           const scmp_arg_cmp* args = nullptr) {
  const int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return Status::Ok();
  const int rc = seccomp_rule_add_array(ctx, action, nr, count, args);
  if (rc != 0) return failed(name, rc);
  return Status::Ok();
}

Result<std::string> compile(bool allow_network) {
  Context c;
  if (c.ctx == nullptr) return Status::Internal("cannot build the sandbox's seccomp filter: seccomp_init failed");
  const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
  for (const char* name : kDenied) KEEL_TRY(add(c.ctx, eperm, name));
  for (uint64_t flag : kNamespaceFlags) {
    const scmp_arg_cmp has_flag = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
    KEEL_TRY(add(c.ctx, eperm, "clone", 1, &has_flag));
  }
  KEEL_TRY(add(c.ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3"));
  for (uint64_t request : {static_cast<uint64_t>(TIOCSTI), static_cast<uint64_t>(TIOCLINUX)}) {
    const scmp_arg_cmp is_request = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, request);
    KEEL_TRY(add(c.ctx, eperm, "ioctl", 1, &is_request));
  }
  if (!allow_network) {
    const scmp_arg_cmp not_unix = SCMP_A0(SCMP_CMP_NE, AF_UNIX, 0);  // datum_b unused by SCMP_CMP_NE
    KEEL_TRY(add(c.ctx, eperm, "socket", 1, &not_unix));
  }

  const int fd = ::memfd_create("keel-seccomp", MFD_CLOEXEC);
  if (fd < 0) return failed("memfd_create", errno);
  if (const int rc = seccomp_export_bpf(c.ctx, fd); rc != 0) {
    ::close(fd);
    return failed("seccomp_export_bpf", rc);
  }
  std::string program;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    program.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (program.empty()) return Status::Internal("cannot build the sandbox's seccomp filter: the program is empty");
  return program;
}

}  // namespace

Result<std::string> seccomp_program(bool allow_network) {
  static std::mutex mu;
  static std::optional<Result<std::string>> cached[2];
  std::lock_guard<std::mutex> lock(mu);
  std::optional<Result<std::string>>& slot = cached[allow_network ? 1 : 0];
  if (!slot) slot = compile(allow_network);
  return *slot;
}

Result<int> seccomp_program_fd(bool allow_network) {
  KEEL_ASSIGN_OR_RETURN(const std::string program, seccomp_program(allow_network));
  const int fd = ::memfd_create("keel-seccomp", MFD_CLOEXEC);
  if (fd < 0)
    return Status::Unavailable(std::string("cannot hand the seccomp filter to bwrap: ") + std::strerror(errno));
  size_t done = 0;
  while (done < program.size()) {
    const ssize_t n = ::write(fd, program.data() + done, program.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      return Status::Unavailable(std::string("cannot hand the seccomp filter to bwrap: ") + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

}  // namespace keel::detail
