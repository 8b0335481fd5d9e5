// The sampler chain and the grammar check of the local backend (llm/llama_sampler.hpp).
#if KEEL_HAS_LLAMA
#include "llm/llama_sampler.hpp"

#include <cmath>
#include <random>
#include <regex>

#include "llm/llama_model_impl.hpp"

namespace keel {
namespace {

// A lazy grammar's trigger as a pattern: the grammar is fed the text from the first group on.
std::string trigger_pattern(const std::string& word) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return "[\\s\\S]*?(" + std::regex_replace(word, special, R"(\$&)") + "[\\s\\S]*)";
}

}  // namespace

Result<LocalSampler> LocalSampler::make(const llama_vocab* vocab, const LocalClientOptions& d, const SamplingParams& r,
                                        const SamplerGrammar& grammar) {
  LocalSampler out;
  out.n_vocab_ = llama_detail::llama().llama_vocab_n_tokens(vocab);
  llama_sampler_chain_params cp = llama_detail::llama().llama_sampler_chain_default_params();
  cp.no_perf = true;
  out.chain_.reset(llama_detail::llama().llama_sampler_chain_init(cp));
  llama_sampler* chain = out.chain_.get();
  double repeat = r.repeat_penalty.value_or(d.repeat_penalty);
  if (repeat != 1.0) {
    llama_detail::llama().llama_sampler_chain_add(chain, llama_detail::llama().llama_sampler_init_penalties(llama_detail::llama().llama_vocab_n_tokens(vocab), d.repeat_last_n, static_cast<float>(repeat), 0.0f, 0.0f));
  }
  if (!grammar.gbnf.empty()) {
    llama_detail::take_last_error();
    llama_sampler* g = nullptr;
    if (grammar.triggers.empty()) {
      g = llama_detail::llama().llama_sampler_init_grammar(vocab, grammar.gbnf.c_str(), "root");
    } else {
      std::vector<std::string> patterns;
      for (const auto& t : grammar.triggers) patterns.push_back(trigger_pattern(t));
      std::vector<const char*> ptrs;
      for (const auto& p : patterns) ptrs.push_back(p.c_str());
      g = llama_detail::llama().llama_sampler_init_grammar_lazy_patterns(vocab, grammar.gbnf.c_str(), "root", ptrs.data(), ptrs.size(),
                                                   nullptr, 0);
    }
    if (g == nullptr) {
      std::string why = llama_detail::take_last_error();
      return Status::Internal("llama.cpp rejected the tool-call grammar" + (why.empty() ? std::string() : ": " + why));
    }
    out.grammar_.reset(g);
  }
  double temperature = r.temperature.value_or(d.temperature);
  if (temperature <= 0.0) {
    llama_detail::llama().llama_sampler_chain_add(chain, llama_detail::llama().llama_sampler_init_greedy());
    return out;
  }
  int top_k = r.top_k.value_or(d.top_k);
  if (top_k > 0) llama_detail::llama().llama_sampler_chain_add(chain, llama_detail::llama().llama_sampler_init_top_k(top_k));
  double top_p = r.top_p.value_or(d.top_p);
  if (top_p < 1.0) llama_detail::llama().llama_sampler_chain_add(chain, llama_detail::llama().llama_sampler_init_top_p(static_cast<float>(top_p), 1));
  double min_p = r.min_p.value_or(d.min_p);
  if (min_p > 0.0) llama_detail::llama().llama_sampler_chain_add(chain, llama_detail::llama().llama_sampler_init_min_p(static_cast<float>(min_p), 1));
  llama_detail::llama().llama_sampler_chain_add(chain, llama_detail::llama().llama_sampler_init_temp(static_cast<float>(temperature)));
  uint32_t seed = r.seed ? static_cast<uint32_t>(*r.seed) : d.seed;
  if (seed == 0xFFFFFFFFu) seed = std::random_device{}();
  llama_detail::llama().llama_sampler_chain_add(chain, llama_detail::llama().llama_sampler_init_dist(seed));
  return out;
}

Result<llama_token> LocalSampler::sample(llama_context* ctx) {
  const float* logits = llama_detail::llama().llama_get_logits_ith(ctx, -1);
  if (logits == nullptr) return Status::Internal("llama.cpp has no logits to sample from");
  auto fill = [&] {
    candidates_.resize(static_cast<size_t>(n_vocab_));
    for (int i = 0; i < n_vocab_; ++i) candidates_[static_cast<size_t>(i)] = {i, logits[i], 0.0f};
    return llama_token_data_array{candidates_.data(), candidates_.size(), -1, false};
  };
  try {
    llama_token_data_array all = fill();
    llama_detail::llama().llama_sampler_apply(chain_.get(), &all);
    if (all.selected < 0 || static_cast<size_t>(all.selected) >= all.size) return Status::Internal("no token was sampled");
    llama_token token = all.data[all.selected].id;
    if (grammar_) {
      llama_token_data one = {token, 1.0f, 0.0f};
      llama_token_data_array single = {&one, 1, -1, false};
      llama_detail::llama().llama_sampler_apply(grammar_.get(), &single);
      if (std::isinf(single.data[0].logit)) {  // rejected: constrain the whole vocabulary, then draw
        all = fill();
        llama_detail::llama().llama_sampler_apply(grammar_.get(), &all);
        llama_detail::llama().llama_sampler_apply(chain_.get(), &all);
        if (all.selected < 0 || static_cast<size_t>(all.selected) >= all.size ||
            std::isinf(all.data[all.selected].logit)) {
          return Status::Internal("the grammar allows no token here (a grammar that cannot be completed)");
        }
        token = all.data[all.selected].id;
      }
      llama_detail::llama().llama_sampler_accept(grammar_.get(), token);
    }
    llama_detail::llama().llama_sampler_accept(chain_.get(), token);
    return token;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("llama.cpp failed while sampling: ") + e.what());
  }
}

}  // namespace keel
#endif  // KEEL_HAS_LLAMA
