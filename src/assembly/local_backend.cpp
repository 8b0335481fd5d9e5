#include "assembly/local_backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "keel/local_model.hpp"
#include "keel/model_files.hpp"
#include "keel/store/sqlite_store.hpp"

namespace keel::assembly {
namespace {

LocalLoadOptions load_options(const KeelConfig& config) {
  LocalLoadOptions o;
  o.gpu_layers = config.local.gpu_layers;
  o.chat_family = config.local.chat_template;
  return o;
}

// Where llama.cpp's vocab-only GGUF files are: $KEEL_VOCAB_DIR, else those fetched with the build.
std::string vocab_dir() {
  if (const char* env = std::getenv("KEEL_VOCAB_DIR"); env != nullptr && *env != '\0') return env;
#ifdef KEEL_LLAMA_VOCAB_DIR
  return KEEL_LLAMA_VOCAB_DIR;
#else
  return {};
#endif
}

}  // namespace

Result<std::string> local_model_path(const ModelSettings& model) {
  if (!model.model.starts_with("local/")) return model.model;
  KEEL_ASSIGN_OR_RETURN(std::filesystem::path dir, models_dir());
  KEEL_ASSIGN_OR_RETURN(std::filesystem::path file, resolve_local_model(model.model.substr(6), dir));
  return file.string();
}

Result<std::unique_ptr<LlmClient>> make_local_backend(const ModelSettings& model, const KeelConfig& config) {
  KEEL_ASSIGN_OR_RETURN(std::string path, local_model_path(model));
  KEEL_ASSIGN_OR_RETURN(std::shared_ptr<LocalModel> weights, LocalModel::load(path, load_options(config)));
  LocalClientOptions o;
  o.context_size = config.local.context_size;
  o.threads = config.local.threads;
  o.max_tokens = config.local.max_tokens;
  o.tool_choice = config.local.tool_choice;
  o.max_calls_per_reply = config.local.max_calls_per_reply;
  o.max_string_chars = config.local.max_string_chars;
  o.grammar = config.local.grammar;
  if (config.local.temperature) o.temperature = *config.local.temperature;
  if (config.local.seed) o.seed = static_cast<uint32_t>(*config.local.seed);
  return std::unique_ptr<LlmClient>(std::make_unique<LocalClient>(std::move(weights), o));
}

std::string local_prompt_note(const KeelConfig& config) {
  if (config.model.kind != ModelSettings::Kind::kLocal || !local_inference_available()) return {};
  Result<std::string> path = local_model_path(config.model);
  if (!path.ok()) return {};
  Result<std::shared_ptr<LocalModel>> m = LocalModel::load(*path, load_options(config));  // shared with the backend
  return m.ok() ? (*m)->info().prompt_note : std::string();
}

std::shared_ptr<const TokenCounter> make_token_counter(const KeelConfig& config, std::string* warning) {
  if (!local_inference_available()) return nullptr;
  std::string path;
  LocalLoadOptions o;
  if (!config.local.tokenizer.empty()) {
    path = config.local.tokenizer;
    if (path.find('/') == std::string::npos && !path.ends_with(".gguf")) {
      path = vocab_dir() + "/ggml-vocab-" + path + ".gguf";
    }
    o.vocab_only = true;
  } else if (config.model.kind == ModelSettings::Kind::kLocal) {
    Result<std::string> p = local_model_path(config.model);
    if (!p.ok()) return nullptr;  // the backend reports it
    path = *p;
    o = load_options(config);
  } else {
    return nullptr;
  }
  Result<std::shared_ptr<LocalModel>> m = LocalModel::load(path, o);
  if (!m.ok()) {
    if (warning != nullptr) *warning = "local.tokenizer: " + m.status().message() + "; counting tokens by estimate";
    return nullptr;
  }
  return std::make_shared<LocalTokenCounter>(std::move(m).value());
}

namespace {

class LocalStateHooks final : public Hooks {
 public:
  LocalStateHooks(LocalClient& client, std::filesystem::path dir) : client_(client), dir_(std::move(dir)) {}
  void on_run_started(RunContext& ctx) override {
    std::error_code ec;
    if (ctx.session_id.empty() || !std::filesystem::exists(file(ctx), ec)) return;
    // A file from another model or context size is refused by llama.cpp: the run then evaluates
    // its history as usual.
    (void)client_.load_state(file(ctx).string());
  }
  void on_run_finished(RunContext& ctx, const RunOutcome&) override { save(ctx); }
  void on_run_failed(RunContext& ctx, const RunOutcome&) override { save(ctx); }

 private:
  std::filesystem::path file(const RunContext& ctx) const { return dir_ / (ctx.session_id + ".kv"); }
  void save(const RunContext& ctx) {
    if (ctx.session_id.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    (void)client_.save_state(file(ctx).string());
  }
  LocalClient& client_;
  std::filesystem::path dir_;
};

}  // namespace

std::shared_ptr<Hooks> make_local_state_hooks(LlmClient& llm, const KeelConfig& config) {
  if (!config.local.kv_cache || config.model.kind != ModelSettings::Kind::kLocal) return nullptr;
  auto* local = dynamic_cast<LocalClient*>(&llm);
  if (local == nullptr) return nullptr;  // lanes: the local lane is inside the cascade
  Result<std::filesystem::path> db = default_store_path();
  if (!db.ok()) return nullptr;
  return std::make_shared<LocalStateHooks>(*local, db->parent_path() / "kv");
}

size_t local_context_window(const KeelConfig& config) {
  if (config.model.kind != ModelSettings::Kind::kLocal) return 0;
  if (config.local.context_size > 0) return static_cast<size_t>(config.local.context_size);
  Result<std::string> path = local_model_path(config.model);
  if (!path.ok()) return 0;
  Result<std::shared_ptr<LocalModel>> m = LocalModel::load(*path, load_options(config));  // shared with the backend
  if (!m.ok()) return 0;
  int train = (*m)->info().context_train;
  return static_cast<size_t>(train > 0 ? std::min(train, 8192) : 4096);
}

}  // namespace keel::assembly
