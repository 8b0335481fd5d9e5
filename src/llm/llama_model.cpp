// Loading GGUF weights once per process and sharing them (keel/local_model.hpp).
#include "keel/local_model.hpp"

#if KEEL_HAS_LLAMA
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

#include "llm/llama_model_impl.hpp"

namespace keel {
namespace llama_detail {
namespace {

thread_local std::string t_last_error;

void log_sink(ggml_log_level level, const char* text, void* /*user*/) {
  if (level == GGML_LOG_LEVEL_ERROR) {
    t_last_error = text == nullptr ? "" : text;
    while (!t_last_error.empty() && (t_last_error.back() == '\n' || t_last_error.back() == ' ')) t_last_error.pop_back();
  }
  static const bool verbose = std::getenv("KEEL_LLAMA_LOG") != nullptr;
  if (verbose || level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}

// The folder libllama was loaded from: ggml's CPU/GPU backend variants sit beside it.
std::string backend_dir() {
  if (const char* env = std::getenv("KEEL_LLAMA_BACKEND_DIR"); env != nullptr && *env != '\0') return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(llama().llama_backend_init), &info) != 0 && info.dli_fname != nullptr) {
    std::filesystem::path p(info.dli_fname);
    if (p.has_parent_path()) return p.parent_path().string();
  }
  return KEEL_LLAMA_BACKEND_DIR;
}

}  // namespace

Status ensure_backend() {
  Result<const LlamaLibrary*> library = load_llama_library();
  if (!library.ok()) return library.status();
  static std::once_flag once;
  std::call_once(once, [] {
    llama().llama_log_set(log_sink, nullptr);
    llama().ggml_backend_load_all_from_path(backend_dir().c_str());
    llama().llama_backend_init();
  });
  return Status::Ok();
}

std::string take_last_error() { return std::exchange(t_last_error, std::string()); }

std::string token_piece(const llama_vocab* vocab, llama_token token) {
  char buf[256];
  int n = llama_detail::llama().llama_token_to_piece(vocab, token, buf, sizeof buf, 0, true);
  if (n >= 0) return std::string(buf, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(-n), '\0');
  n = llama_detail::llama().llama_token_to_piece(vocab, token, big.data(), static_cast<int32_t>(big.size()), 0, true);
  big.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return big;
}

}  // namespace llama_detail

namespace {


using RegistryKey = std::tuple<std::string, int, bool, std::string>;
std::mutex g_registry_mu;
std::map<RegistryKey, std::weak_ptr<LocalModel>> g_registry;

}  // namespace

LocalModel::Impl::~Impl() {
  if (model != nullptr) llama_detail::llama().llama_model_free(model);
}

bool local_inference_available() { return true; }

LocalModel::LocalModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LocalModel::~LocalModel() = default;
const LocalModelInfo& LocalModel::info() const { return impl_->info; }

namespace {

// Renders prompts with the file's own template `tmpl` (named `name` in errors): parses it, derives
// its call format and end of turn, and indexes the control tokens messages must not forge.
Status adopt_template(LocalModel::Impl& impl, const char* tmpl, const std::string& name) {
  auto token_text = [&](llama_token t) { return t < 0 ? std::string() : llama_detail::token_piece(impl.vocab, t); };
  impl.bos_text = token_text(llama_detail::llama().llama_vocab_bos(impl.vocab));
  impl.eos_text = token_text(llama_detail::llama().llama_vocab_eos(impl.vocab));
  Result<ModelChatTemplate> parsed = ModelChatTemplate::parse(tmpl, name);
  if (!parsed.ok()) {
    return Status::InvalidArgument(parsed.status().message() +
                                   " (set local.chat_template to chatml, llama3, mistral or gemma to use a built-in format)");
  }
  for (llama_token t = 0; t < impl.info.vocab_size; ++t) {
    if (llama_detail::llama().llama_vocab_is_control(impl.vocab, t)) impl.control_tokens.add(llama_detail::token_piece(impl.vocab, t));
  }
  const TemplateCallFormat f = derive_call_format(*parsed, impl.bos_text, impl.eos_text);
  impl.chat_template = std::move(parsed).value();
  for (const std::string& stop : {f.end_of_turn, impl.eos_text}) {
    if (!stop.empty()) impl.stops.push_back(stop);
  }
  LocalModelInfo& info = impl.info;
  info.prompt_format = "template";
  if (f.grammar) {
    impl.syntax = f.syntax;
    impl.read_with_syntax = true;
    info.call_format = "derived from the template (grammar from " + f.syntax.trigger() + ")";
  } else if (f.writes_calls) {
    impl.grammar_fits = false;
    info.call_format = "the template's, read by the universal parser (no grammar: " + f.note + ")";
  } else {  // a template without calls: the family's convention (Hermes' <tool_call> for ChatML)
    impl.syntax = call_syntax(impl.family);
    impl.read_with_syntax = true;
    info.call_format = "the " + info.chat_family + " convention (" + f.note + ")";
  }
  impl.inject_tools = !f.describes_tools && !impl.syntax.name_first;
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<LocalModel>> LocalModel::load(const std::string& path, const LocalLoadOptions& options) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec || !std::filesystem::is_regular_file(abs, ec)) {
    return Status::NotFound("model file " + path + " does not exist (give a GGUF file: --model gguf:/path/model.gguf)");
  }
  if (!options.chat_family.empty() && !chat_family_from_name(options.chat_family)) {
    return Status::InvalidArgument("unknown chat template family '" + options.chat_family +
                                   "' (use chatml, llama3, mistral or gemma)");
  }
  RegistryKey key{abs.lexically_normal().string(), options.gpu_layers, options.vocab_only, options.chat_family};
  std::lock_guard lock(g_registry_mu);
  if (auto it = g_registry.find(key); it != g_registry.end()) {
    if (auto existing = it->second.lock()) return existing;
  }
  if (Status backend = llama_detail::ensure_backend(); !backend.ok()) return backend;
  llama_model_params params = llama_detail::llama().llama_model_default_params();
  params.vocab_only = options.vocab_only;
  if (options.gpu_layers >= 0) params.n_gpu_layers = options.gpu_layers;
  llama_detail::take_last_error();
  llama_model* model = llama_detail::llama().llama_model_load_from_file(std::get<0>(key).c_str(), params);
  if (model == nullptr) {
    std::string why = llama_detail::take_last_error();
    return Status::InvalidArgument("cannot load " + path + " as a GGUF model" + (why.empty() ? "" : ": " + why) +
                                   " (is the file complete and a llama.cpp model?)");
  }
  auto impl = std::make_unique<Impl>();
  impl->model = model;
  impl->vocab = llama_detail::llama().llama_model_get_vocab(model);
  impl->add_bos = llama_detail::llama().llama_vocab_get_add_bos(impl->vocab);
  LocalModelInfo& info = impl->info;
  info.path = std::get<0>(key);
  char desc[256];
  if (int n = llama_detail::llama().llama_model_desc(model, desc, sizeof desc); n > 0) info.description.assign(desc, std::min<size_t>(n, sizeof desc - 1));
  info.parameters = static_cast<int64_t>(llama_detail::llama().llama_model_n_params(model));
  info.size_bytes = static_cast<int64_t>(std::filesystem::file_size(abs, ec));
  info.context_train = llama_detail::llama().llama_model_n_ctx_train(model);
  info.vocab_size = llama_detail::llama().llama_vocab_n_tokens(impl->vocab);
  const char* tmpl = llama_detail::llama().llama_model_chat_template(model, nullptr);
  std::optional<ChatFamily> family;
  if (tmpl != nullptr) family = detect_chat_family(tmpl);
  info.template_from_file = family.has_value();
  if (!options.chat_family.empty()) family = chat_family_from_name(options.chat_family);
  impl->family = family.value_or(ChatFamily::kChatML);
  info.chat_family = std::string(chat_family_name(impl->family));
  info.prompt_format = "built-in";
  if (!options.chat_family.empty()) {
    info.prompt_note = "prompts use keel's built-in " + info.chat_family + " format (local.chat_template), not the file's template";
  } else if (tmpl == nullptr || *tmpl == '\0') {
    info.prompt_note = path + " has no chat template; prompts use keel's built-in " + info.chat_family + " format";
  } else if (!chat_template_engine_available()) {
    info.prompt_note = "this keel cannot execute chat templates; prompts use keel's built-in " + info.chat_family + " format";
  } else if (!options.vocab_only) {
    KEEL_TRY(adopt_template(*impl, tmpl, std::filesystem::path(path).filename().string()));
  }
  if (!impl->chat_template) {
    impl->syntax = call_syntax(impl->family);
    impl->stops = stop_strings(impl->family);
  }
  std::shared_ptr<LocalModel> shared(new LocalModel(std::move(impl)));
  g_registry[key] = shared;
  return shared;
}

Result<std::vector<int32_t>> LocalModel::tokenize(std::string_view text, bool add_bos, bool parse_special) const {
  if (text.size() > static_cast<size_t>(INT32_MAX / 2)) return Status::InvalidArgument("text too long to tokenize");
  std::vector<int32_t> out(text.size() + 8);
  int n = llama_detail::llama().llama_tokenize(impl_->vocab, text.data(), static_cast<int32_t>(text.size()), out.data(),
                         static_cast<int32_t>(out.size()), add_bos, parse_special);
  if (n < 0) {
    out.resize(static_cast<size_t>(-n));
    n = llama_detail::llama().llama_tokenize(impl_->vocab, text.data(), static_cast<int32_t>(text.size()), out.data(),
                       static_cast<int32_t>(out.size()), add_bos, parse_special);
    if (n < 0) return Status::Internal("the tokenizer failed on a text of " + std::to_string(text.size()) + " bytes");
  }
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string LocalModel::detokenize(const std::vector<int32_t>& tokens) const {
  std::string out;
  for (int32_t t : tokens) out += llama_detail::token_piece(impl_->vocab, t);
  return out;
}

LocalTokenCounter::LocalTokenCounter(std::shared_ptr<const LocalModel> model, size_t per_message_overhead)
    : model_(std::move(model)), overhead_(per_message_overhead) {}

size_t LocalTokenCounter::count(std::string_view text) const {
  if (text.empty()) return 0;
  Result<std::vector<int32_t>> ids = model_->tokenize(text, false, false);
  return ids.ok() ? ids->size() : EstimatingTokenCounter().count(text);
}

}  // namespace keel
#endif  // KEEL_HAS_LLAMA
