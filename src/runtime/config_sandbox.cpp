// The shell sandbox settings of the config files and --sandbox (see keel/config.hpp): a user file
// sets them freely; a workspace keel.yaml may only tighten them, since a repository someone clones
// must not be able to switch off the confinement of the commands a model runs in it.
#include "runtime/config_file.hpp"

namespace keel::detail {
namespace {

Status user_only(const ConfigLayer& layer, const std::string& what, const std::string& user_config) {
  return Status::InvalidArgument(layer.path + ": " + what + " is only honoured in your user config (" + user_config +
                                 "), so that a repository cannot loosen the shell sandbox; move it there, or pass "
                                 "--sandbox for one run");
}

}  // namespace

Status apply_shell_layer(const ConfigLayer& layer, bool from_workspace, const std::string& user_config,
                         KeelConfig& config) {
  if (layer.shell_sandbox) {
    std::optional<SandboxMode> mode = parse_sandbox_mode(*layer.shell_sandbox);
    if (!mode) {
      return Status::InvalidArgument(layer.path +
                                     ": tools.shell.sandbox must be workspace-write, read-only or off, got '" +
                                     *layer.shell_sandbox + "'");
    }
    if (from_workspace && sandbox_strictness(*mode) < sandbox_strictness(config.shell_sandbox)) {
      return user_only(layer, std::string("tools.shell.sandbox: ") + sandbox_mode_name(*mode), user_config);
    }
    config.shell_sandbox = *mode;
  }
  if (layer.shell_network) {
    if (from_workspace && *layer.shell_network && !config.shell_network) {
      return user_only(layer, "tools.shell.network: true", user_config);
    }
    config.shell_network = *layer.shell_network;
  }
  if (layer.shell_env) {
    for (const std::string& name : *layer.shell_env) {
      if (name.empty() || name.find_first_of("= \t") != std::string::npos) {
        return Status::InvalidArgument(
            layer.path + ": tools.shell.env must list variable names (no '=' or spaces), got '" + name + "'");
      }
    }
    if (from_workspace && !layer.shell_env->empty()) return user_only(layer, "tools.shell.env", user_config);
    if (!from_workspace) config.shell_env = *layer.shell_env;
  }
  if (layer.shell_max_processes) {
    const int cap = *layer.shell_max_processes;
    const bool looser = config.shell_max_processes != 0 && (cap == 0 || cap > config.shell_max_processes);
    if (from_workspace && looser) {
      return user_only(layer, "tools.shell.max_processes: " + std::to_string(cap), user_config);
    }
    config.shell_max_processes = cap;
  }
  return Status::Ok();
}

Status apply_sandbox_flag(const std::optional<std::string>& flag, KeelConfig& config) {
  if (!flag) return Status::Ok();
  std::optional<SandboxMode> mode = parse_sandbox_mode(*flag);
  if (!mode) return Status::InvalidArgument("--sandbox must be workspace-write, read-only or off, got '" + *flag + "'");
  config.shell_sandbox = *mode;
  return Status::Ok();
}

}  // namespace keel::detail
