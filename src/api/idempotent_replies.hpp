// api/idempotent_replies.hpp — makes a retried request return the first run's answer instead of
// running the agent (and its tools) again: requests that carry an Idempotency-Key header (the
// official OpenAI and Anthropic clients send one; any client may) are answered once per key.
//
//   std::shared_ptr<HttpResponder> out = replies.claim(request, std::move(responder));
//   if (!out) return;            // answered already: a replay, a wait for the first, or an error
//   ... run and answer through `out` as usual ...
//
// The first request with a key runs; its whole answer (a JSON body, or every event of a stream)
// is kept for `ttl` and sent again, at once, to a later request with the same key and body. A
// request that comes while the first still runs waits for it. The same key with another body is
// a 400 (code idempotency_key_reused). While a keyed run goes on, its client leaving does not stop
// it: the retry that follows gets its answer. Kept in memory, per server process.
//
// Thread-safety: all members may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "server/http_request.hpp"
#include "server/http_responder.hpp"

namespace keel::api {

class IdempotentReplies {
 public:
  explicit IdempotentReplies(std::chrono::seconds ttl = std::chrono::hours(1), size_t max_entries = 512);

  // `out` itself when the request has no Idempotency-Key; a responder that keeps the answer for
  // a new key; nullptr when the request was answered here.
  std::shared_ptr<server::HttpResponder> claim(const server::HttpRequest& request,
                                               std::shared_ptr<server::HttpResponder> out);

  struct State;  // the kept answers, shared with the responders that fill them

 private:
  std::shared_ptr<State> state_;
};

}  // namespace keel::api
