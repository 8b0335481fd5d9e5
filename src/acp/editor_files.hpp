// acp/editor_files.hpp — fs_read and fs_write through the editor when it offers ACP's fs
// capability (fs/read_text_file, fs/write_text_file): the agent reads unsaved buffers and its
// writes land in the editor. The tools confine paths to the workspace before asking.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "acp/json_rpc_peer.hpp"
#include "keel/builtin_tools.hpp"

namespace keel::acp {

class EditorFiles final : public TextFileAccess {
 public:
  EditorFiles(JsonRpcPeer& peer, bool reads, bool writes, std::chrono::milliseconds timeout)
      : peer_(peer), reads_(reads), writes_(writes), timeout_(timeout) {}
  // The session the requests name; set once the session exists, before its first turn.
  void set_session(std::string id);

  bool reads() const override { return reads_; }
  bool writes() const override { return writes_; }
  Result<std::string> read(const std::string& path) override;
  Status write(const std::string& path, const std::string& content) override;

 private:
  std::string session();

  JsonRpcPeer& peer_;
  const bool reads_;
  const bool writes_;
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::string session_;
};

}  // namespace keel::acp
