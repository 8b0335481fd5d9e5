// keel::LocalClient: one llama.cpp context over shared weights (keel/local_model.hpp).
#include "keel/local_model.hpp"

#if KEEL_HAS_LLAMA
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "base/clock.hpp"
#include "keel/core/chat_template.hpp"
#include "keel/core/gbnf_grammar.hpp"
#include "keel/core/tool_call_parser.hpp"
#include "llm/llama_model_impl.hpp"
#include "llm/llama_sampler.hpp"
#include "llm/text_stop_scanner.hpp"

namespace keel {

struct LocalClient::Impl {
  std::shared_ptr<LocalModel> model;
  LocalClientOptions options;
  llama_context* ctx = nullptr;
  int n_ctx = 0;
  std::vector<llama_token> cached;  // tokens whose keys and values are in the context, in order
  int64_t last_evaluated = 0;
  int64_t last_reused = 0;
  bool state_restored = false;
  std::shared_ptr<const ToolCallParser> parser = shared_default_tool_call_parser();

  ~Impl() {
    if (ctx != nullptr) llama_detail::llama().llama_free(ctx);
  }
  const LocalModel::Impl& m() const { return model->impl(); }
  Status ensure_context();
  Status evaluate_prompt(const std::vector<llama_token>& prompt, std::stop_token stop);
  Result<std::vector<llama_token>> render(const ModelRequest& request) const;
  Result<std::vector<llama_token>> tokenize_parts(const std::vector<ModelChatTemplate::Part>& parts) const;
};

namespace {

int default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 4 : static_cast<int>(n);
}

size_t common_prefix(const std::vector<llama_token>& a, const std::vector<llama_token>& b) {
  size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

Status LocalClient::Impl::ensure_context() {
  if (ctx != nullptr) return Status::Ok();
  if (m().info.parameters == 0 || llama_detail::llama().llama_model_n_params(m().model) == 0) {
    return Status::InvalidArgument(m().info.path + " holds a tokenizer only (vocab-only GGUF); it cannot generate text");
  }
  llama_context_params cp = llama_detail::llama().llama_context_default_params();
  int train = m().info.context_train > 0 ? m().info.context_train : 4096;
  n_ctx = options.context_size > 0 ? options.context_size : std::min(train, 8192);
  cp.n_ctx = static_cast<uint32_t>(n_ctx);
  cp.n_batch = static_cast<uint32_t>(std::max(1, options.batch_size));
  cp.n_ubatch = cp.n_batch;
  int threads = options.threads > 0 ? options.threads : default_threads();
  cp.n_threads = threads;
  cp.n_threads_batch = threads;
  cp.no_perf = true;
  llama_detail::take_last_error();
  ctx = llama_detail::llama().llama_init_from_model(m().model, cp);
  if (ctx == nullptr) {
    std::string why = llama_detail::take_last_error();
    return Status::Unavailable("cannot create a llama.cpp context of " + std::to_string(n_ctx) + " tokens for " +
                               m().info.path + (why.empty() ? "" : ": " + why) + " (try a smaller context_size)");
  }
  n_ctx = static_cast<int>(llama_detail::llama().llama_n_ctx(ctx));
  return Status::Ok();
}

Result<std::vector<llama_token>> LocalClient::Impl::render(const ModelRequest& request) const {
  if (m().chat_template) {
    std::vector<Message> all;
    request.for_each_message([&](const Message& msg) { all.push_back(msg); });
    if (m().inject_tools && !request.tools.empty()) {  // the template ignores tools: keel describes them
      std::string section = tool_instructions(m().syntax, request.tools);
      if (!all.empty() && all.front().role == Role::kSystem) all.front().content.append("\n\n").append(section);
      else all.insert(all.begin(), Message::system(std::move(section)));
    }
    ChatTemplateInputs in;
    in.messages = all;
    in.tools = request.tools;  // always described (also on the final call) so the prefix stays the same
    in.add_generation_prompt = true;
    in.bos_token = m().bos_text;
    in.eos_token = m().eos_text;
    KEEL_ASSIGN_OR_RETURN(std::vector<ModelChatTemplate::Part> parts, m().chat_template->render_parts(in));
    return tokenize_parts(parts);
  }
  ChatRenderOptions ro;
  ro.tools = request.tools;  // always described (also on the final call) so the prefix stays the same
  ro.add_generation_prompt = true;
  ro.add_bos = false;
  std::string text;
  if (!request.replaced_history && request.appended.empty()) {
    text = render_chat(m().family, request.history, ro);
  } else {
    std::vector<Message> all;
    request.for_each_message([&](const Message& msg) { all.push_back(msg); });
    text = render_chat(m().family, all, ro);
  }
  return model->tokenize(text, m().add_bos, true);
}

// A rendered prompt's tokens. Special tokens are parsed in the template's text; a piece of a
// message that holds a control token's text (a "<|im_end|>" in a fetched web page) is tokenized
// as plain text, so a message cannot end its own turn or open a system one. Everything else is
// tokenized in one piece, as a whole prompt would be.
Result<std::vector<llama_token>> LocalClient::Impl::tokenize_parts(const std::vector<ModelChatTemplate::Part>& parts) const {
  std::vector<llama_token> out;
  std::string pending;  // text tokenized with special tokens parsed
  bool first = true;
  auto flush = [&](const std::string& text, bool special) -> Status {
    if (text.empty()) return Status::Ok();
    // The template writes the BOS text itself when the model wants one.
    const bool bos = first && m().add_bos && (m().bos_text.empty() || !text.starts_with(m().bos_text));
    first = false;
    KEEL_ASSIGN_OR_RETURN(std::vector<int32_t> ids, model->tokenize(text, bos, special));
    out.insert(out.end(), ids.begin(), ids.end());
    return Status::Ok();
  };
  for (const ModelChatTemplate::Part& p : parts) {
    if (p.from_messages && m().control_tokens.found_in(p.text)) {
      KEEL_TRY(flush(pending, true));
      pending.clear();
      KEEL_TRY(flush(p.text, false));
    } else {
      pending.append(p.text);
    }
  }
  KEEL_TRY(flush(pending, true));
  return out;
}

// Evaluates `prompt`, reusing the cached tokens it starts with. Leaves the last token's logits ready.
Status LocalClient::Impl::evaluate_prompt(const std::vector<llama_token>& prompt, std::stop_token stop) {
  llama_memory_t mem = llama_detail::llama().llama_get_memory(ctx);
  size_t keep = options.prefix_reuse ? common_prefix(cached, prompt) : 0;
  if (keep == prompt.size()) --keep;  // the last token is evaluated again for its logits
  if (keep < cached.size() && !llama_detail::llama().llama_memory_seq_rm(mem, 0, static_cast<llama_pos>(keep), -1)) {
    keep = 0;  // this model's cache cannot drop a suffix: start over
  }
  if (keep == 0) llama_detail::llama().llama_memory_clear(mem, true);
  cached.resize(keep);
  last_reused = static_cast<int64_t>(keep);
  last_evaluated = static_cast<int64_t>(prompt.size() - keep);
  size_t batch = static_cast<size_t>(std::max(1, options.batch_size));
  for (size_t at = keep; at < prompt.size(); at += batch) {
    if (stop.stop_requested()) return Status::Cancelled("stopped while evaluating the prompt");
    size_t n = std::min(batch, prompt.size() - at);
    llama_batch b = llama_detail::llama().llama_batch_get_one(const_cast<llama_token*>(prompt.data() + at), static_cast<int32_t>(n));
    if (int rc = llama_detail::llama().llama_decode(ctx, b); rc != 0) {
      cached.clear();
      llama_detail::llama().llama_memory_clear(mem, true);
      return Status::Unavailable("llama.cpp could not evaluate the prompt (decode returned " + std::to_string(rc) + ")");
    }
    cached.insert(cached.end(), prompt.begin() + static_cast<std::ptrdiff_t>(at),
                  prompt.begin() + static_cast<std::ptrdiff_t>(at + n));
  }
  return Status::Ok();
}

LocalClient::LocalClient(std::shared_ptr<LocalModel> model, LocalClientOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->model = std::move(model);
  impl_->options = std::move(options);
}
LocalClient::~LocalClient() = default;

std::string LocalClient::describe() const {
  const LocalModelInfo& i = impl_->m().info;
  return "local llama.cpp " + i.path + " (" + i.description + ", " +
         (i.prompt_format == "template" ? std::string("the file's chat template") : i.chat_family + " format") + ")";
}
Result<std::vector<int32_t>> LocalClient::prompt_tokens(const ModelRequest& request) const { return impl_->render(request); }
int64_t LocalClient::last_prompt_evaluated() const { return impl_->last_evaluated; }
int64_t LocalClient::last_prompt_reused() const { return impl_->last_reused; }

Result<ModelReply> LocalClient::complete(const ModelRequest& request, const CallOptions& call) {
  using Clock = std::chrono::steady_clock;
  Impl& s = *impl_;
  const auto started = Clock::now();
  KEEL_TRY(s.ensure_context());
  if (!s.state_restored && !s.options.state_file.empty()) {
    s.state_restored = true;
    std::error_code ec;
    if (std::filesystem::exists(s.options.state_file, ec)) (void)load_state(s.options.state_file);
  }
  KEEL_ASSIGN_OR_RETURN(std::vector<llama_token> prompt, s.render(request));
  if (prompt.empty()) return Status::InvalidArgument("the request renders to an empty prompt");
  int max_tokens = request.sampling.max_tokens.value_or(s.options.max_tokens);
  if (static_cast<int>(prompt.size()) + 1 > s.n_ctx) {
    return Status::InvalidArgument("the prompt has " + std::to_string(prompt.size()) + " tokens but the context holds " +
                                   std::to_string(s.n_ctx) + "; raise the context size or set a context window so keel compacts");
  }
  const bool tools_on =
      request.tools_enabled && !request.final_round && !request.tools.empty() && request.tool_choice != "none";
  // The call format: derived from the model's template, or the built-in family's.
  const bool derived = s.m().read_with_syntax;
  const CallSyntax& syntax = s.m().syntax;
  const bool grammar_fits = s.m().grammar_fits;  // a template whose calls keel cannot describe runs free
  SamplerGrammar grammar;
  if (tools_on && s.options.grammar && grammar_fits) {
    const std::string& wanted = request.tool_choice.empty() || request.tool_choice == "auto" ? s.options.tool_choice
                                                                                           : request.tool_choice;
    ToolChoice choice = wanted == "auto" || wanted.empty() ? ToolChoice::kAuto : ToolChoice::kRequired;
    Result<ToolGrammar> g = tool_call_grammar(request.tools, syntax, choice, s.options.max_calls_per_reply,
                                                s.options.max_string_chars);
    if (!g.ok()) return Status::InvalidArgument("cannot build the tool-call grammar: " + g.status().message());
    grammar.gbnf = std::move(g->gbnf);
    grammar.triggers = std::move(g->triggers);
  } else if (!request.response_schema.empty() && s.options.grammar) {
    Result<std::string> g = json_output_grammar(request.response_schema, s.options.max_string_chars);
    if (!g.ok()) return Status::InvalidArgument("cannot build the output grammar: " + g.status().message());
    grammar.gbnf = std::move(g).value();
  }
  KEEL_ASSIGN_OR_RETURN(LocalSampler sampler, LocalSampler::make(s.m().vocab, s.options, request.sampling, grammar));
  KEEL_TRY(s.evaluate_prompt(prompt, call.stop));

  std::vector<std::string> stops = s.m().stops;
  stops.insert(stops.end(), request.sampling.stop.begin(), request.sampling.stop.end());
  std::vector<std::string> hold;
  if (tools_on && !syntax.trigger().empty() && grammar_fits) hold.push_back(syntax.trigger());
  TextStopScanner scanner(std::move(stops), std::move(hold));
  const int64_t deadline_ms = call.timeout_ms;
  ModelReply reply;
  reply.model = s.m().info.path;
  reply.finish_reason = "length";
  int generated = 0;
  while (generated < max_tokens) {
    if (call.stop.stop_requested()) return Status::Cancelled("stopped while generating");
    if (deadline_ms > 0 && detail::ms_since(started) > deadline_ms) {
      return Status::DeadlineExceeded("the local model did not finish within " + std::to_string(deadline_ms) + " ms");
    }
    KEEL_ASSIGN_OR_RETURN(llama_token t, sampler.sample(s.ctx));
    ++generated;
    if (llama_detail::llama().llama_vocab_is_eog(s.m().vocab, t)) {
      reply.finish_reason = "stop";
      break;
    }
    bool stopped = scanner.add(llama_detail::token_piece(s.m().vocab, t));
    if (call.on_text && call.stream) {
      std::string_view piece = scanner.take_streamable();
      if (!piece.empty()) call.on_text(piece);
    }
    if (stopped) {
      reply.finish_reason = "stop";
      break;
    }
    if (static_cast<int>(s.cached.size()) + 1 >= s.n_ctx) break;  // the context is full: "length"
    llama_batch b = llama_detail::llama().llama_batch_get_one(&t, 1);
    if (int rc = llama_detail::llama().llama_decode(s.ctx, b); rc != 0) {
      return Status::Unavailable("llama.cpp could not evaluate a generated token (decode returned " + std::to_string(rc) + ")");
    }
    s.cached.push_back(t);
  }
  if (call.on_text && call.stream) {
    std::string_view rest = scanner.take_rest();
    if (!rest.empty()) call.on_text(rest);
  }
  reply.text = scanner.text();
  std::string before;
  std::optional<std::vector<ToolCall>> calls =
      derived && tools_on ? read_tool_calls(syntax, reply.text, &before) : std::nullopt;
  if (calls) {  // written in the template's own format, as the grammar made it
    reply.tool_calls = std::move(*calls);
    reply.text = std::move(before);
    reply.finish_reason = "tool_calls";
  } else if (ParsedReply parsed = s.parser->parse(reply.text, request.tools);
             !parsed.calls.empty() && parsed.errors.empty() && parsed.repairs.empty()) {
    reply.tool_calls = std::move(parsed.calls);
    reply.text = std::move(parsed.text);
    reply.reasoning = std::move(parsed.reasoning);
    reply.finish_reason = "tool_calls";
  }  // otherwise the text goes back as written: the agent reports what is wrong with it
  reply.usage.prompt_tokens = static_cast<int64_t>(prompt.size());
  reply.usage.cached_prompt_tokens = s.last_reused;
  reply.usage.completion_tokens = generated;
  if (!s.options.state_file.empty()) (void)save_state(s.options.state_file);
  return reply;
}

Status LocalClient::save_state(const std::string& path) {
  Impl& s = *impl_;
  KEEL_TRY(s.ensure_context());
  std::string tmp = path + ".tmp";
  size_t n = llama_detail::llama().llama_state_seq_save_file(s.ctx, tmp.c_str(), 0, s.cached.data(), s.cached.size());
  std::error_code ec;
  if (n == 0) {
    std::filesystem::remove(tmp, ec);
    return Status::Unavailable("cannot write the model state to " + path);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::Unavailable("cannot write the model state to " + path + ": " + ec.message());
  return Status::Ok();
}

Status LocalClient::load_state(const std::string& path) {
  Impl& s = *impl_;
  KEEL_TRY(s.ensure_context());
  std::vector<llama_token> tokens(static_cast<size_t>(s.n_ctx));
  size_t count = 0;
  llama_detail::llama().llama_memory_clear(llama_detail::llama().llama_get_memory(s.ctx), true);
  s.cached.clear();
  llama_detail::take_last_error();
  size_t n = llama_detail::llama().llama_state_seq_load_file(s.ctx, path.c_str(), 0, tokens.data(), tokens.size(), &count);
  if (n == 0) {
    llama_detail::llama().llama_memory_clear(llama_detail::llama().llama_get_memory(s.ctx), true);
    std::string why = llama_detail::take_last_error();
    return Status::InvalidArgument("cannot restore the model state from " + path + (why.empty() ? "" : ": " + why) +
                                   " (written by another model or context size?)");
  }
  tokens.resize(count);
  s.cached = std::move(tokens);
  return Status::Ok();
}

}  // namespace keel
#endif  // KEEL_HAS_LLAMA
