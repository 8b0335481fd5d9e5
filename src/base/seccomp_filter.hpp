// base/seccomp_filter.hpp — the seccomp filter of the shell sandbox, compiled with libseccomp into
// the BPF program bubblewrap installs (`bwrap --seccomp FD`) just before it runs the command.
//
// Everything is allowed except calls a shell command has no business making and that would let it
// leave or weaken the sandbox, each failing with EPERM:
//   ptrace, process_vm_readv/writev       reading or steering other processes
//   mount, umount2, pivot_root, chroot and the new mount API (fsopen, fsmount, move_mount, ...)
//                                         uncovering what the sandbox hides
//   unshare, setns, and clone with any CLONE_NEW* flag
//                                         new namespaces (clone3 fails with ENOSYS instead, since
//                                         its flags cannot be inspected; libc then uses clone)
//   keyctl, add_key, request_key          the kernel keyrings, where credentials live
//   bpf, perf_event_open, userfaultfd     kernel attack surface
//   io_uring_setup/enter/register         io_uring runs socket and file operations past seccomp
//   kexec_load, kexec_file_load, init_module, finit_module, delete_module
//   ioctl TIOCSTI and TIOCLINUX           typing into the controlling terminal
//   socket() for every domain but AF_UNIX, when the network is off
// Calls of another architecture (32-bit x86 on x86-64) kill the process: libseccomp's default.
//
// Thread-safety: safe from any thread; the programs are compiled once and cached.
#pragma once

#include <string>

#include "keel/result.hpp"

namespace keel::detail {

// The BPF program (struct sock_filter entries, as bwrap reads them) for the given network switch.
// An error when libseccomp cannot build it (an architecture it does not know).
Result<std::string> seccomp_program(bool allow_network);

// A close-on-exec memfd holding seccomp_program(allow_network), positioned at its start, for
// bwrap's --seccomp. The caller closes it.
Result<int> seccomp_program_fd(bool allow_network);

}  // namespace keel::detail
