// The agent's calls to its model (runtime/agent_impl.hpp): the planner call, a round's call with
// its streamed text filtered of call markup, and the context pipeline's summary call; each model
// call is a `chat MODEL` span of the run's trace.
#include <nlohmann/json.hpp>
#include <utility>

#include "base/clock.hpp"
#include "keel/core/call_stream_filter.hpp"
#include "runtime/agent_impl.hpp"
#include "runtime/genai_names.hpp"

namespace keel {

const UniversalToolCallParser* Agent::Impl::stream_parser() {
  if (!stream_parser_made_) {
    stream_parser_made_ = true;
    if (!options_.parser) {
      auto made = UniversalToolCallParser::create("auto");
      if (made.ok()) stream_parser_ = std::move(made).value();
    } else {
      stream_parser_ = std::dynamic_pointer_cast<const UniversalToolCallParser>(options_.parser);
    }
  }
  return stream_parser_.get();
}

// The planner call the machine asks for before round 1: no streaming, the machine's deadline. An
// empty reply, an error or a timeout is handed back as it is; the machine goes on without a plan.
Event Agent::Impl::call_planner(RunContext& ctx, const CallPlanner& p, std::stop_token stop, RunOutcome& outcome) {
  set_status(ctx, RunStatus::kPlanning);
  CallOptions call;
  call.stream = false;
  call.stop = stop;
  call.timeout_ms = p.timeout_ms;
  ++outcome.model_calls;
  Result<ModelReply> reply = llm_.complete(p.request, call);
  if (!reply.ok()) return ModelFailed{redacted(reply.status())};
  if (!reply->text.empty()) {
    outcome.usage.prompt_tokens += reply->usage.prompt_tokens;
    outcome.usage.completion_tokens += reply->usage.completion_tokens;
  }
  return ModelReplied{std::move(reply).value()};
}

const nlohmann::json& Agent::Impl::backend_span_attributes(const std::string& description) {
  if (backend_attributes_.is_null() || backend_described_ != description) {
    backend_attributes_ = detail::backend_attributes(description);
    backend_described_ = description;
  }
  return backend_attributes_;
}

Event Agent::Impl::call_model(RunContext& ctx, ModelRequest request, detail::SessionRecorder* recorder,
                              std::stop_token stop, RunOutcome& outcome) {
  ctx.round = request.round;
  set_status(ctx, RunStatus::kCallingModel);
  emit([&](Hooks& h) { h.on_process_prompts(ctx, request); });
  if (stop.stop_requested()) return Aborted{"interrupted before the model call"};
  CallOptions call;
  call.stream = options_.stream;
  call.stop = stop;
  // With tools offered, a model may write its calls as text: only what cannot be call markup is
  // shown while it streams, and a call's name is announced once written.
  std::optional<CallStreamFilter> filter;
  if (call.stream && !request.tools.empty()) {
    if (const UniversalToolCallParser* p = stream_parser()) filter.emplace(*p, request.tools);
  }
  auto show = [&](const CallStreamFilter::Output& o) {
    emit([&](Hooks& h) {
      if (!o.reasoning.empty()) h.on_reasoning_delta(ctx, o.reasoning);
      for (const std::string& name : o.announced) h.on_call_announced(ctx, name);
      if (!o.text.empty()) h.on_model_delta(ctx, o.text);
    });
  };
  call.on_text = [&](std::string_view t) {
    if (filter) {
      show(filter->feed(t));
    } else {
      emit([&](Hooks& h) { h.on_model_delta(ctx, t); });
    }
  };
  call.on_reasoning = [&](std::string_view t) { emit([&](Hooks& h) { h.on_reasoning_delta(ctx, t); }); };
  call.on_retry = [&](int attempt, const Status& why, int64_t delay) {
    if (filter) filter->reset();
    Status shown = redacted(why);
    emit([&](Hooks& h) { h.on_model_retry(ctx, attempt, shown, delay); });
  };
  ++outcome.model_calls;
  int64_t t0 = detail::wall_now_us();
  Result<ModelReply> reply = llm_.complete(request, call);
  if (reply.ok() && filter) show(filter->finish());
  if (!reply.ok()) reply = redacted(reply.status());  // a backend's error may echo a key or token
  if (recorder != nullptr) {
    nlohmann::json attrs = backend_span_attributes(ctx.model);
    attrs["round"] = request.round;
    if (reply.ok()) {
      attrs["prompt_tokens"] = reply->usage.prompt_tokens;
      attrs["completion_tokens"] = reply->usage.completion_tokens;
      if (reply->usage.cached_prompt_tokens > 0) attrs["cached_prompt_tokens"] = reply->usage.cached_prompt_tokens;
      attrs["finish_reason"] = reply->finish_reason;
      if (!reply->model.empty()) attrs["gen_ai.response.model"] = reply->model;
      if (detail::capture_genai_content()) attrs["gen_ai.output.messages"] = detail::output_messages_json(*reply);
    } else {
      attrs["error"] = reply.status().to_string();
    }
    recorder->span("model", detail::chat_span_name(attrs.value("gen_ai.request.model", ctx.model)), t0,
                   detail::wall_now_us(), reply.ok() ? "ok" : "error",
                   attrs.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  if (!reply.ok()) {
    if (stop.stop_requested()) return Aborted{"interrupted while waiting for the model"};
    return ModelFailed{reply.status()};
  }
  outcome.usage.prompt_tokens += reply->usage.prompt_tokens;
  outcome.usage.completion_tokens += reply->usage.completion_tokens;
  emit([&](Hooks& h) { h.on_model_reply(ctx, *reply); });
  return ModelReplied{std::move(reply).value()};
}

// A summary for the context pipeline, as the Summarize decision says: from the store's cache entry
// it names when this span was summarized before (another run of the session, a resume), else one
// model call without tools whose reply is stored there.
Event Agent::Impl::summarize(RunContext& ctx, const Summarize& s, detail::SessionRecorder* recorder,
                             std::stop_token stop, RunOutcome& outcome) {
  set_status(ctx, RunStatus::kCompacting);
  const bool manual = std::exchange(manual_compaction_, false);
  emit([&](Hooks& h) { h.on_compaction_starting(ctx, manual); });
  bool use_cache = options_.store != nullptr && !s.cache_key.empty();
  if (use_cache) {
    Result<std::optional<std::string>> hit = options_.store->cache_get(s.cache_scope, s.cache_key);
    if (hit.ok() && hit->has_value()) {
      ModelReply cached;
      cached.text = std::move(**hit);
      return ModelReplied{std::move(cached)};
    }
  }
  CallOptions call;
  call.stream = false;
  call.stop = stop;
  ++outcome.model_calls;
  int64_t t0 = detail::wall_now_us();
  Result<ModelReply> reply = llm_.complete(s.request, call);
  if (!reply.ok()) reply = redacted(reply.status());
  if (recorder != nullptr) {
    nlohmann::json attrs = backend_span_attributes(ctx.model);
    attrs["purpose"] = "summary";
    attrs["messages"] = s.messages;
    if (!reply.ok()) attrs["error"] = reply.status().to_string();
    recorder->span("model", detail::chat_span_name(attrs.value("gen_ai.request.model", ctx.model)), t0,
                   detail::wall_now_us(), reply.ok() ? "ok" : "error", attrs.dump());
  }
  if (!reply.ok()) {
    if (stop.stop_requested()) return Aborted{"interrupted while summarizing the context"};
    return ModelFailed{reply.status()};
  }
  outcome.usage.prompt_tokens += reply->usage.prompt_tokens;
  outcome.usage.completion_tokens += reply->usage.completion_tokens;
  if (use_cache && !reply->text.empty()) {
    (void)options_.store->cache_put(s.cache_scope, s.cache_key, reply->text);  // a cache: a failed put only costs a call later
  }
  return ModelReplied{std::move(reply).value()};
}

}  // namespace keel
