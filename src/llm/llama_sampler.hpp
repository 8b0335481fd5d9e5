// The sampler chain of one local reply: penalties, the tool-call grammar, top-k/top-p/min-p,
// temperature and a seeded draw (or greedy at temperature 0).
#pragma once

#include "llm/llama_library.hpp"

#include <memory>
#include <string>
#include <vector>

#include "keel/local_model.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel {

struct SamplerFree {
  void operator()(llama_sampler* s) const { llama_detail::llama().llama_sampler_free(s); }
};
using SamplerPtr = std::unique_ptr<llama_sampler, SamplerFree>;

struct SamplerGrammar {
  std::string gbnf;                   // empty: none
  std::vector<std::string> triggers;  // literal words that start it; empty: active from the first token
};

// Draws tokens. The grammar is checked against the token the chain picked and applied to the
// whole vocabulary only when it rejects that token, so unconstrained stretches cost no more than
// plain sampling (a grammar pass over a 150k-token vocabulary costs milliseconds).
class LocalSampler {
 public:
  // Request settings win over the client's defaults.
  static Result<LocalSampler> make(const llama_vocab* vocab, const LocalClientOptions& defaults,
                                   const SamplingParams& request, const SamplerGrammar& grammar);
  // The next token from the context's last logits; accepted by the grammar and the chain.
  Result<llama_token> sample(llama_context* ctx);

 private:
  SamplerPtr chain_;
  SamplerPtr grammar_;
  int n_vocab_ = 0;
  std::vector<llama_token_data> candidates_;
};

}  // namespace keel
