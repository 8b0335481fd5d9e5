// keel_local_bench — the in-process llama.cpp backend on a tiny random-weight model (written by
// test/support/gguf_fixture with a real llama-bpe vocabulary):
//   1. prompt evaluation and generation, tokens per second (free and under the tool-call grammar);
//   2. prompt tokens evaluated per round over a 20-round tool conversation, with and without KV
//      prefix reuse.
//
//   keel_local_bench [--threads N] [--vocab FILE] [--gpu-layers N]
//
// The weights are noise, so the figures measure keel and llama.cpp's plumbing on this machine, not
// a real model's speed; the prefix-reuse counts hold for any model.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "keel/local_model.hpp"
#include "support/gguf_fixture.hpp"
#include "support/temp_dir.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

keel::ToolSpec lookup_tool() {
  keel::ToolSpec t;
  t.name = "lookup";
  t.description = "Looks up a fact about a topic and returns one sentence.";
  t.parameters_schema =
      R"({"type":"object","properties":{"topic":{"type":"string","maxLength":24},"detail":{"enum":["short","long"]}},)"
      R"("required":["topic","detail"]})";
  return t;
}

// The conversation after `rounds` tool rounds (each: an assistant call and its result).
std::vector<keel::Message> conversation(int rounds) {
  std::vector<keel::Message> h = {
      keel::Message::system("You are a research assistant. Use the lookup tool, then answer in one paragraph."),
      keel::Message::user("Collect twenty facts about the history of the printing press and summarise them.")};
  for (int i = 1; i <= rounds; ++i) {
    keel::ToolCall c;
    c.id = "call_" + std::to_string(i);
    c.name = "lookup";
    c.arguments = R"({"topic":"printing press fact )" + std::to_string(i) + R"(","detail":"short"})";
    h.push_back(keel::Message::assistant("", {c}));
    keel::Message r;
    r.role = keel::Role::kTool;
    r.tool_call_id = c.id;
    r.name = "lookup";
    r.content = "Fact " + std::to_string(i) +
                ": movable type spread from Mainz to more than two hundred European cities within fifty years, "
                "and print shops multiplied the number of books in circulation many times over.";
    h.push_back(r);
  }
  return h;
}

// The reply and its wall time in seconds; nullopt (the error printed) when the call failed.
std::optional<std::pair<keel::ModelReply, double>> timed_complete(keel::LocalClient& client, const keel::ModelRequest& r) {
  auto t0 = Clock::now();
  keel::Result<keel::ModelReply> reply = client.complete(r, {});
  double s = seconds_since(t0);
  if (!reply.ok()) {
    std::fprintf(stderr, "keel_local_bench: %s\n", reply.status().to_string().c_str());
    return std::nullopt;
  }
  return std::pair{std::move(reply).value(), s};
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  int gpu_layers = -1;
  std::string vocab = std::string(KEEL_LLAMA_MODELS_DIR) + "/ggml-vocab-llama-bpe.gguf";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--threads") threads = std::atoi(argv[i + 1]);
    else if (a == "--vocab") vocab = argv[i + 1];
    else if (a == "--gpu-layers") gpu_layers = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: keel_local_bench [--threads N] [--vocab FILE] [--gpu-layers N]\n");
      return 2;
    }
  }
  keel::testing::TempDir dir;
  std::string path = (dir.path() / "bench.gguf").string();
  keel::testing::GgufFixtureOptions fo;
  fo.n_embd = 256;
  fo.n_layer = 4;
  fo.n_head = 8;
  fo.n_head_kv = 4;
  fo.n_ff = 512;
  auto t0 = Clock::now();
  if (std::string err = keel::testing::write_random_gguf(vocab, path, fo); !err.empty()) {
    std::fprintf(stderr, "keel_local_bench: %s\n", err.c_str());
    return 1;
  }
  double write_s = seconds_since(t0);
  keel::LocalLoadOptions lo;
  lo.gpu_layers = gpu_layers;
  t0 = Clock::now();
  auto model = keel::LocalModel::load(path, lo);
  if (!model.ok()) {
    std::fprintf(stderr, "keel_local_bench: %s\n", model.status().to_string().c_str());
    return 1;
  }
  double load_s = seconds_since(t0);
  const keel::LocalModelInfo& info = (*model)->info();
  std::printf("model: %s, %.1f M parameters, vocab %d, %.1f MB (written in %.0f ms, loaded in %.0f ms), threads %d\n",
              info.description.c_str(), info.parameters / 1e6, info.vocab_size, info.size_bytes / 1e6, write_s * 1e3,
              load_s * 1e3, threads);

  keel::LocalClientOptions co;
  co.threads = threads;
  co.context_size = 8192;
  co.temperature = 0;
  std::vector<keel::ToolSpec> tools = {lookup_tool()};

  // 1. Throughput. Prompt: a fresh context evaluates the 20-round conversation (one reply token).
  {
    keel::LocalClientOptions o = co;
    o.prefix_reuse = false;
    keel::LocalClient client(*model, o);
    std::vector<keel::Message> h = conversation(20);
    keel::ModelRequest r;
    r.history = h;
    r.tools = tools;
    r.tools_enabled = false;
    r.sampling.max_tokens = 1;
    (void)client.complete(r, {});  // warm-up
    auto timed = timed_complete(client, r);
    if (!timed) return 1;
    const auto& [reply_value, s] = *timed;
    const keel::ModelReply* reply = &reply_value;
    std::printf("prompt evaluation: %lld tokens in %.1f ms = %.0f tokens/s\n",
                static_cast<long long>(reply->usage.prompt_tokens), s * 1e3, reply->usage.prompt_tokens / s);
  }
  for (const char* mode : {"free text", "tool-call grammar"}) {
    keel::LocalClientOptions o = co;
    o.max_tokens = 128;
    o.max_string_chars = 24;
    bool grammar = std::string(mode) != "free text";
    o.tool_choice = grammar ? "required" : "auto";
    o.max_calls_per_reply = 16;
    keel::LocalClient client(*model, o);
    std::vector<keel::Message> h = conversation(1);
    keel::ModelRequest r;
    r.history = h;
    r.tools = tools;
    r.tools_enabled = grammar;
    (void)client.complete(r, {});  // the prompt is cached after this
    auto timed = timed_complete(client, r);
    if (!timed) return 1;
    const auto& [reply_value, s] = *timed;
    const keel::ModelReply* reply = &reply_value;
    std::printf("generation (%s): %lld tokens in %.1f ms = %.0f tokens/s\n", mode,
                static_cast<long long>(reply->usage.completion_tokens), s * 1e3, reply->usage.completion_tokens / s);
  }

  // 2. Prompt tokens evaluated per round of a 20-round run, with and without prefix reuse.
  std::printf("\nround  prompt  evaluated(reuse)  evaluated(no reuse)\n");
  long long total_reuse = 0;
  long long total_plain = 0;
  long long total_prompt = 0;
  double time_reuse = 0;
  double time_plain = 0;
  keel::LocalClientOptions on = co;
  on.max_tokens = 8;
  keel::LocalClientOptions off = on;
  off.prefix_reuse = false;
  keel::LocalClient reuse(*model, on);
  keel::LocalClient plain(*model, off);
  for (int round = 1; round <= 20; ++round) {
    std::vector<keel::Message> h = conversation(round - 1);
    keel::ModelRequest r;
    r.history = h;
    r.tools = tools;
    r.tools_enabled = false;
    r.round = round;
    t0 = Clock::now();
    auto a = reuse.complete(r, {});
    time_reuse += seconds_since(t0);
    t0 = Clock::now();
    auto b = plain.complete(r, {});
    time_plain += seconds_since(t0);
    if (!a.ok() || !b.ok()) {
      std::fprintf(stderr, "keel_local_bench: %s\n", (!a.ok() ? a.status() : b.status()).to_string().c_str());
      return 1;
    }
    long long evaluated = a->usage.prompt_tokens - a->usage.cached_prompt_tokens;
    std::printf("%5d  %6lld  %16lld  %19lld\n", round, static_cast<long long>(a->usage.prompt_tokens), evaluated,
                static_cast<long long>(b->usage.prompt_tokens));
    total_reuse += evaluated;
    total_plain += b->usage.prompt_tokens;
    total_prompt += a->usage.prompt_tokens;
  }
  std::printf("total  %6lld  %16lld  %19lld\n", total_prompt, total_reuse, total_plain);
  std::printf("prefix reuse evaluates %.1f%% of the prompt tokens (%.1fx fewer); 20 rounds took %.0f ms with reuse, "
              "%.0f ms without\n",
              100.0 * total_reuse / total_plain, static_cast<double>(total_plain) / total_reuse, time_reuse * 1e3,
              time_plain * 1e3);
  return 0;
}
