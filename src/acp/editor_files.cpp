#include "acp/editor_files.hpp"

namespace keel::acp {

using nlohmann::json;

void EditorFiles::set_session(std::string id) {
  std::lock_guard<std::mutex> lock(mu_);
  session_ = std::move(id);
}

std::string EditorFiles::session() {
  std::lock_guard<std::mutex> lock(mu_);
  return session_;
}

Result<std::string> EditorFiles::read(const std::string& path) {
  Result<json> got = peer_.request("fs/read_text_file", {{"sessionId", session()}, {"path", path}}, {}, timeout_);
  if (!got.ok()) return Status::Unavailable("the editor could not read " + path + ": " + got.status().message());
  if (!got->is_object() || !got->value("content", json()).is_string())
    return Status::Unavailable("the editor's answer to reading " + path + " has no text content");
  return (*got)["content"].get<std::string>();
}

Status EditorFiles::write(const std::string& path, const std::string& content) {
  Result<json> got =
      peer_.request("fs/write_text_file", {{"sessionId", session()}, {"path", path}, {"content", content}}, {}, timeout_);
  if (!got.ok()) return Status::Unavailable("the editor could not write " + path + ": " + got.status().message());
  return Status::Ok();
}

}  // namespace keel::acp
