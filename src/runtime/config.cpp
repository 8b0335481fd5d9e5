// resolve_config(): layers defaults < user file < workspace file < environment < flags. Files are
// parsed in config_file.cpp, model names in model_spec.cpp; this file only decides who wins.
#include "keel/config.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "runtime/approval_rules.hpp"
#include "runtime/config_file.hpp"
#include "runtime/mcp_servers_config.hpp"
#include "runtime/model_spec.hpp"

extern char** environ;  // POSIX; declared here because <unistd.h> only does so with _GNU_SOURCE

namespace keel {
namespace {

using detail::ConfigLayer;
using detail::env_value;
using detail::user_config_path;

// Where skills are looked up, highest precedence first (see KeelConfig::skill_dirs).
std::vector<std::string> skill_dirs(const ConfigInputs& in) {
  std::vector<std::string> dirs;
  if (!in.workspace.empty()) {
    dirs.push_back((std::filesystem::path(in.workspace) / ".keel" / "skills").string());
    dirs.push_back((std::filesystem::path(in.workspace) / ".agents" / "skills").string());
  }
  if (std::string user = user_config_path(in); !user.empty()) {
    dirs.push_back((std::filesystem::path(user).parent_path() / "skills").string());
  }
  return dirs;
}

// A later file's approvals over an earlier one's: its modes win, patterns of both apply.
void merge_approvals(const ApprovalPolicy& layer, ApprovalPolicy& into) {
  if (layer.default_mode) {
    into.default_mode = layer.default_mode;
    into.default_source = layer.default_source;
  }
  if (layer.client_may_loosen) {
    into.client_may_loosen = layer.client_may_loosen;
    into.client_may_loosen_source = layer.client_may_loosen_source;
  }
  for (const auto& [name, tool] : layer.tools) {
    ToolApprovalPolicy& t = into.tools[name];
    if (tool.mode) t.mode = tool.mode;
    t.allow_patterns.insert(t.allow_patterns.end(), tool.allow_patterns.begin(), tool.allow_patterns.end());
    t.deny_patterns.insert(t.deny_patterns.end(), tool.deny_patterns.begin(), tool.deny_patterns.end());
    t.source = t.source.empty() || t.source == tool.source ? tool.source : t.source + " and " + tool.source;
  }
}

// What in an approvals section would let calls run without asking: mode auto (for all tools or
// one) or an allow pattern; nullopt when it only tightens.
std::optional<std::string> loosens_approvals(const ApprovalPolicy& p) {
  if (p.default_mode == ApprovalMode::kAuto) return "approvals.default_mode: auto";
  if (p.client_may_loosen.value_or(false)) return "approvals.client_may_loosen: true";
  for (const auto& [tool, t] : p.tools) {
    if (t.mode == ApprovalMode::kAuto) return "approvals.tools." + tool + ".mode: auto";
    if (!t.allow_patterns.empty()) return "approvals.tools." + tool + ".allow_patterns";
  }
  return std::nullopt;
}

// Copies every setting the layer has onto `cfg` (the layer wins).
void apply_layer(const ConfigLayer& layer, KeelConfig& cfg) {
  if (layer.max_rounds) cfg.max_rounds = *layer.max_rounds;
  if (layer.stream) cfg.stream = *layer.stream;
  if (layer.request_timeout_ms) cfg.request_timeout_ms = *layer.request_timeout_ms;
  if (layer.stream_idle_timeout_ms) cfg.stream_idle_timeout_ms = *layer.stream_idle_timeout_ms;
  if (layer.connect_timeout_ms) cfg.connect_timeout_ms = *layer.connect_timeout_ms;
  if (layer.retry_max_attempts) cfg.retry.max_attempts = *layer.retry_max_attempts;
  if (layer.retry_initial_delay_ms) cfg.retry.initial_delay_ms = *layer.retry_initial_delay_ms;
  if (layer.retry_max_delay_ms) cfg.retry.max_delay_ms = *layer.retry_max_delay_ms;
  if (layer.shell_enabled) cfg.shell_enabled = *layer.shell_enabled;
  if (layer.shell_timeout_ms) cfg.shell_timeout_ms = *layer.shell_timeout_ms;
  if (layer.web_enabled) cfg.web_enabled = *layer.web_enabled;
  if (layer.web_timeout_ms) cfg.web_timeout_ms = *layer.web_timeout_ms;
  if (layer.mcp_defer_above_tokens) cfg.mcp_defer_above_tokens = *layer.mcp_defer_above_tokens;
  if (layer.budget_max_tokens) cfg.max_run_tokens = *layer.budget_max_tokens;
  if (layer.budget_max_cost) cfg.max_run_cost = *layer.budget_max_cost;
  for (const auto& [model, price] : layer.prices) cfg.prices[model] = price;
  if (layer.autopilot) cfg.autopilot = *layer.autopilot;
  for (const auto& a : layer.web_allowed) cfg.web_allowed.push_back(a);
  for (const auto& r : layer.fs_roots) cfg.fs_roots.push_back(r);
  if (layer.planner_enabled) cfg.planner_enabled = *layer.planner_enabled;
  if (layer.planner_timeout_ms) cfg.planner_timeout_ms = *layer.planner_timeout_ms;
  if (layer.context_window) cfg.context_window = *layer.context_window;
  if (layer.context_threshold_percent) cfg.context_threshold_percent = *layer.context_threshold_percent;
  if (layer.context_recency_rounds) cfg.context_recency_rounds = *layer.context_recency_rounds;
  if (layer.context_summary_cooldown_rounds) cfg.context_summary_cooldown_rounds = *layer.context_summary_cooldown_rounds;
  cfg.intents.insert(cfg.intents.end(), layer.intents.begin(), layer.intents.end());
  for (const std::string& name : layer.secrets) {
    if (std::find(cfg.secrets.begin(), cfg.secrets.end(), name) == cfg.secrets.end()) cfg.secrets.push_back(name);
  }
  merge_approvals(layer.approvals, cfg.approvals);
  detail::apply_skills_layer(layer, cfg);
  for (const AgentProfileConfig& p : layer.profiles) {
    std::erase_if(cfg.profiles, [&](const AgentProfileConfig& q) { return q.name == p.name; });
    cfg.profiles.push_back(p);
  }
  if (layer.lanes) cfg.lanes = *layer.lanes;
  LocalModelConfig& local = cfg.local;
  if (layer.local_context_size) local.context_size = *layer.local_context_size;
  if (layer.local_gpu_layers) local.gpu_layers = *layer.local_gpu_layers;
  if (layer.local_threads) local.threads = *layer.local_threads;
  if (layer.local_max_tokens) local.max_tokens = *layer.local_max_tokens;
  if (layer.local_max_calls) local.max_calls_per_reply = *layer.local_max_calls;
  if (layer.local_max_string_chars) local.max_string_chars = *layer.local_max_string_chars;
  if (layer.local_tool_choice) local.tool_choice = *layer.local_tool_choice;
  if (layer.local_grammar) local.grammar = *layer.local_grammar;
  if (layer.local_kv_cache) local.kv_cache = *layer.local_kv_cache;
  if (layer.local_chat_template) local.chat_template = *layer.local_chat_template;
  if (layer.local_tokenizer) local.tokenizer = *layer.local_tokenizer;
  if (layer.local_temperature) local.temperature = *layer.local_temperature;
  if (layer.local_seed) local.seed = *layer.local_seed;
}

// Resolves each lane's model like a --model name with the lane's base_url. A lane that does not
// resolve keeps the reason: the cascade reports it as that lane's load failure and goes on.
void resolve_lanes(const detail::ModelInputs& top, const ConfigLayer* workspace_file,
                   const std::map<std::string, std::string>& env, std::vector<LaneConfig>& lanes) {
  for (LaneConfig& lane : lanes) {
    detail::ModelInputs mi;
    mi.name = lane.model;
    mi.source = lane.source;
    mi.source.append(": lanes");
    mi.config_api_key = top.config_api_key;
    mi.config_api_key_env = top.config_api_key_env;
    mi.config_api_key_source = top.config_api_key_source;
    std::map<std::string, std::string> lane_env = env;
    if (lane.base_url) {
      // The lane's own server wins over the variables that only pick a provider's default.
      mi.config_base_url = lane.base_url;
      mi.config_base_url_source = mi.source;
      mi.base_url_from_workspace = workspace_file != nullptr && lane.source == workspace_file->path;
      lane_env.erase("OPENAI_BASE_URL");
      lane_env.erase("OLLAMA_HOST");
    }
    Result<ModelSettings> settings = detail::resolve_model(mi, lane_env);
    if (settings.ok()) {
      lane.settings = std::move(*settings);
    } else {
      lane.load_error = settings.status().message();
    }
  }
}

Result<int> parse_max_rounds(const std::string& text, const std::string& what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > 1000) {
    return Status::InvalidArgument(what + " must be an integer >= 1 and <= 1000, got '" + text + "'");
  }
  return value;
}

// The model name, highest precedence first, and the model-related settings of the files.
Result<detail::ModelInputs> model_inputs(const ConfigInputs& in, const std::vector<const ConfigLayer*>& files,
                                         const ConfigLayer* workspace_file, const std::string& user_config) {
  detail::ModelInputs mi;
  mi.flag_base_url = in.base_url;
  mi.flag_api_key = in.api_key;
  std::string env_model = env_value(in.env, "KEEL_MODEL");
  if (in.model) {
    if (in.model->empty()) return Status::InvalidArgument("--model must not be empty; e.g. --model ollama/qwen2.5:7b");
    mi.name = *in.model;
    mi.source = "--model";
  } else if (!env_model.empty()) {
    mi.name = env_model;
    mi.source = "KEEL_MODEL";
  }
  // `files` is highest precedence first (workspace, then user).
  for (const ConfigLayer* f : files) {
    if (mi.name.empty() && f->model) {
      if (f->model->empty()) return Status::InvalidArgument(f->path + ": model must not be empty");
      mi.name = *f->model;
      mi.source = f->path;
    }
    if (!mi.config_base_url && f->base_url) {
      mi.config_base_url = f->base_url;
      mi.config_base_url_source = f->path;
      mi.base_url_from_workspace = f == workspace_file;
    }
    // What widens the tools' reach (private addresses, folders outside the workspace) is the
    // user's to grant, never a repository's.
    if (f == workspace_file && !f->web_allowed.empty()) {
      return Status::InvalidArgument(f->path + ": tools.web.allowed is only honoured in your user config (" +
                                     user_config + "), so that a repository cannot open your private network; move it there");
    }
    if (f == workspace_file && loosens_approvals(f->approvals)) {
      return Status::InvalidArgument(f->path + ": " + loosens_approvals(f->approvals).value() +
                                     " is only honoured in your user config (" + user_config +
                                     "), so that a repository cannot switch off your confirmations; a workspace may "
                                     "only add deny patterns and confirm or deny modes");
    }
    if (f == workspace_file) {
      for (const AgentProfileConfig& p : f->profiles) {
        if (p.approve_mode && parse_approval_mode(*p.approve_mode) == ApprovalMode::kAuto) {
          return Status::InvalidArgument(f->path + ": profiles." + p.name + ".approve_mode: auto is only honoured in your user config (" +
                                         user_config + "), so that a repository cannot switch off your confirmations; "
                                         "a workspace profile may only use confirm or deny");
        }
      }
    }
    if (f == workspace_file && !f->fs_roots.empty()) {
      return Status::InvalidArgument(f->path + ": tools.fs.roots is only honoured in your user config (" + user_config +
                                     "), so that a repository cannot reach folders outside it; move it there");
    }
    if (f == workspace_file && f->api_key_env) {
      return Status::InvalidArgument(f->path + ": api_key_env is only honoured in your user config (" + user_config +
                                     "), so that a repository cannot read your environment; move it there");
    }
    if (!mi.config_api_key && !mi.config_api_key_env && (f->api_key || f->api_key_env)) {
      mi.config_api_key = f->api_key;
      mi.config_api_key_env = f->api_key_env;
      mi.config_api_key_source = f->path;
    }
  }
  if (mi.name.empty()) {
    mi.name = "rules";
    mi.source = "default";
  }
  return mi;
}

}  // namespace

std::string_view approval_mode_name(ApprovalMode mode) {
  switch (mode) {
    case ApprovalMode::kAuto: return "auto";
    case ApprovalMode::kConfirm: return "confirm";
    case ApprovalMode::kDeny: return "deny";
  }
  return "confirm";
}

std::optional<ApprovalMode> parse_approval_mode(std::string_view name) {
  for (ApprovalMode m : {ApprovalMode::kAuto, ApprovalMode::kConfirm, ApprovalMode::kDeny}) {
    if (approval_mode_name(m) == name) return m;
  }
  return std::nullopt;
}

Status apply_requested_approval_mode(ApprovalPolicy& policy, std::string_view mode, const std::string& source) {
  std::optional<ApprovalMode> parsed = parse_approval_mode(mode);
  if (!parsed) {
    return Status::InvalidArgument("approval_mode must be auto, confirm or deny, got '" + std::string(mode) + "'");
  }
  if (policy.client_may_loosen.value_or(false)) {
    policy.override_mode = parsed;
    policy.override_source = source + ", allowed by approvals.client_may_loosen" +
                             (policy.client_may_loosen_source.empty() ? "" : " in " + policy.client_may_loosen_source);
    return Status::Ok();
  }
  policy.floor_mode = parsed;
  policy.floor_source = source;
  return Status::Ok();
}

Status check_approval_pattern(std::string_view pattern) {
  if (pattern.empty()) return Status::Ok();
  return detail::check_approval_pattern(std::string(pattern), "the pattern");
}

const ModelPrice* model_price(const KeelConfig& config) {
  for (const std::string& name : {config.model.name, config.model.model}) {
    auto it = config.prices.find(name);
    if (it != config.prices.end()) return &it->second;
  }
  return nullptr;
}

Result<KeelConfig> resolve_config(const ConfigInputs& in) {
  KeelConfig cfg;
  std::optional<ConfigLayer> user_file;
  std::optional<ConfigLayer> workspace_file;
  if (std::string path = user_config_path(in); !path.empty()) {
    KEEL_ASSIGN_OR_RETURN(user_file, detail::load_config_file(path));
  }
  if (!in.workspace.empty()) {
    std::string path = (std::filesystem::path(in.workspace) / "keel.yaml").string();
    KEEL_ASSIGN_OR_RETURN(workspace_file, detail::load_config_file(path));
  }
  if (workspace_file && workspace_file->store_url) {
    const std::string user = user_config_path(in);
    return Status::InvalidArgument(workspace_file->path + ": store is honoured in the user file only (" +
                                   (user.empty() ? std::string("~/.config/keel/config.yaml") : user) +
                                   ") or KEEL_DATABASE_URL, so a repository cannot send its runs to another database");
  }
  std::vector<const ConfigLayer*> by_precedence;  // highest first
  if (workspace_file) by_precedence.push_back(&*workspace_file);
  if (user_file) by_precedence.push_back(&*user_file);

  for (const std::optional<ConfigLayer>* file : {&user_file, &workspace_file}) {
    if (!*file) continue;
    apply_layer(**file, cfg);
    KEEL_TRY(detail::apply_shell_layer(**file, file == &workspace_file, user_config_path(in), cfg));
    KEEL_TRY(detail::apply_a2a_layer(**file, file == &workspace_file, user_config_path(in), cfg));
    cfg.loaded_files.push_back((*file)->path);
  }

  if (std::string rounds = env_value(in.env, "KEEL_MAX_ROUNDS"); !rounds.empty()) {
    KEEL_ASSIGN_OR_RETURN(cfg.max_rounds, parse_max_rounds(rounds, "KEEL_MAX_ROUNDS"));
  }
  if (in.max_rounds) {
    if (*in.max_rounds < 1 || *in.max_rounds > 1000) {
      return Status::InvalidArgument("--max-rounds must be an integer >= 1 and <= 1000, got " +
                                     std::to_string(*in.max_rounds));
    }
    cfg.max_rounds = *in.max_rounds;
  }
  if (in.stream) cfg.stream = *in.stream;
  if (in.max_tokens) {
    if (*in.max_tokens < 1) return Status::InvalidArgument("--max-tokens must be an integer >= 1");
    cfg.max_run_tokens = *in.max_tokens;
  }
  if (in.max_cost) {
    if (!(*in.max_cost > 0)) return Status::InvalidArgument("--max-cost must be a number > 0, e.g. 0.50");
    cfg.max_run_cost = *in.max_cost;
  }
  KEEL_TRY(detail::apply_sandbox_flag(in.sandbox, cfg));
  if (in.approve_mode) {
    std::optional<ApprovalMode> mode = parse_approval_mode(*in.approve_mode);
    if (!mode) {
      return Status::InvalidArgument("--approve-mode must be auto, confirm or deny, got '" + *in.approve_mode + "'");
    }
    cfg.approvals.override_mode = mode;
    cfg.approvals.override_source = "--approve-mode";
  }
  if (std::string window = env_value(in.env, "KEEL_CONTEXT_WINDOW"); !window.empty()) {
    int64_t value = 0;
    auto [end, ec] = std::from_chars(window.data(), window.data() + window.size(), value);
    if (ec != std::errc() || end != window.data() + window.size() || value < 0 || value > INT32_MAX) {
      return Status::InvalidArgument("KEEL_CONTEXT_WINDOW must be a number of tokens (0: unknown), got '" + window + "'");
    }
    cfg.context_window = value;
  }

  KEEL_ASSIGN_OR_RETURN(cfg.mcp_servers,
                        detail::load_mcp_servers(user_file ? &*user_file : nullptr,
                                                 workspace_file ? &*workspace_file : nullptr, in.workspace, in.env));
  KEEL_ASSIGN_OR_RETURN(detail::ModelInputs mi, model_inputs(in, by_precedence, workspace_file ? &*workspace_file : nullptr,
                                                             user_config_path(in)));
  KEEL_ASSIGN_OR_RETURN(cfg.model, detail::resolve_model(mi, in.env));
  resolve_lanes(mi, workspace_file ? &*workspace_file : nullptr, in.env, cfg.lanes);
  cfg.skill_dirs = skill_dirs(in);
  if (cfg.max_run_cost > 0 && model_price(cfg) == nullptr) {
    return Status::InvalidArgument("a cost cap needs the price of model '" + cfg.model.name +
                                   "': add it to keel.yaml, e.g. prices: {\"" + cfg.model.name +
                                   "\": {input: 3.0, output: 15.0}} (per million tokens)");
  }
  return cfg;
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

}  // namespace keel
