// Where a host's agent works: the workspace folder, the configuration resolved in it, the folder
// a stored session worked in, and the editable prompts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "assembly/store_access.hpp"
#include "keel/assembly.hpp"

namespace keel::assembly {

Result<std::string> resolve_workspace(const std::optional<std::string>& flag) {
  std::error_code ec;
  std::filesystem::path p = flag ? std::filesystem::path(*flag) : std::filesystem::current_path(ec);
  std::filesystem::path canonical = std::filesystem::canonical(p, ec);
  if (ec || !std::filesystem::is_directory(canonical, ec)) {
    return Status::InvalidArgument("workspace '" + p.string() + "' is not an existing directory");
  }
  return canonical.string();
}

Result<KeelConfig> resolve_host_config(const HostInputs& in, const std::string& workspace) {
  ConfigInputs inputs;
  inputs.model = in.model;
  inputs.base_url = in.base_url;
  inputs.api_key = in.api_key;
  inputs.max_rounds = in.max_rounds;
  inputs.max_tokens = in.max_tokens;
  inputs.max_cost = in.max_cost;
  inputs.stream = in.stream;
  inputs.approve_mode = in.approve_mode;
  inputs.sandbox = in.sandbox;
  inputs.env = current_environment();
  inputs.workspace = workspace;
  if (const char* home = std::getenv("HOME")) inputs.home = home;
  return resolve_config(inputs);
}

std::optional<std::string> stored_workspace(const std::string& id) {
  Result<std::unique_ptr<Store>> store = open_default_store();
  if (!store.ok()) return std::nullopt;
  std::string session_id = id;
  if (id.rfind("r_", 0) == 0) {
    Result<RunRecord> run = (*store)->get_run(id);
    if (!run.ok()) return std::nullopt;
    session_id = run->session_id;
  }
  Result<SessionRecord> session = (*store)->get_session(session_id);
  std::error_code ec;
  if (!session.ok() || session->workspace.empty() || !std::filesystem::is_directory(session->workspace, ec)) {
    return std::nullopt;
  }
  return session->workspace;
}

std::string load_prompt(const std::string& name, const std::string& workspace,
                        const std::map<std::string, std::string>& env) {
  std::vector<std::filesystem::path> candidates = {std::filesystem::path(workspace) / ".keel/prompts" / name};
  auto xdg = env.find("XDG_CONFIG_HOME");
  auto home = env.find("HOME");
  if (xdg != env.end() && !xdg->second.empty()) {
    candidates.push_back(std::filesystem::path(xdg->second) / "keel/prompts" / name);
  } else if (home != env.end() && !home->second.empty()) {
    candidates.push_back(std::filesystem::path(home->second) / ".config/keel/prompts" / name);
  }
  for (const auto& path : candidates) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  return {};
}

}  // namespace keel::assembly
