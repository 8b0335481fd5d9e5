// keel_fault_mcp_server — a small MCP server over stdio for tests, well-behaved by default and
// misbehaving on request. Depends on nlohmann/json and the standard library only.
//
// Usage: keel_fault_mcp_server [options]
//   --mode normal          the only mode (the default): a working server, shaped by the options below
//   --page-size N          tools/list returns N tools per page, with an opaque nextCursor
//   --list-changed         after the first tools/call: sends notifications/tools/list_changed and from
//                          then on also lists the tool `extra` (answers "extra")
//   --hang-on METHOD       never answers requests of METHOD (e.g. initialize, tools/call); keeps reading
//   --crash-on METHOD      on a request of METHOD: writes "fatal: crashing on purpose" to stderr, exits 3
//   --garbage              writes the line "this is not json" to stdout before every response
//   --huge-bytes N         the text of `echo`'s answer is padded with '.' to N bytes
//   --slow-start MS        sleeps MS milliseconds before reading anything
//   --stderr-noise         writes "fault-server: received <method>" to stderr for every message
//   --ignore-stdin-eof     keeps running after stdin closes, and ignores SIGTERM (only SIGKILL ends it)
//   --no-read MS           after answering initialize, reads nothing for MS milliseconds
//   --echo-description T   the description `echo` is listed with (a server that changed a tool)
// --hang-on and --crash-on may be repeated. At start it writes "fault-server: started, pid N" to stderr.
//
// Protocol: initialize (echoes protocolVersion 2025-06-18 or 2025-11-25, else answers 2025-11-25;
// serverInfo {name: "fault-server", version: "1.0"}; capabilities tools {listChanged: true},
// resources, prompts, logging), ping, logging/setLevel, tools/list, tools/call, resources/list,
// resources/read, prompts/list, prompts/get. Unknown method: error -32601; unknown tool, prompt or
// bad arguments: error -32602; unknown resource: error -32002; a line that is not JSON: error -32700.
// Tools:
//   echo {text: string}        text "echo: <text>"
//   add {a: number, b: number} text "<sum>", structuredContent {"sum": <sum>}
//   slow {ms: integer}         text "slept <ms>" after ms milliseconds; nothing at all once the client
//                              sends notifications/cancelled for it (runs on its own thread, so a
//                              ping is answered meanwhile)
//   fail {}                    result with isError true, text "it failed"
//   image {}                   an image content block (a few base64 bytes, image/png)
//   env {name: string}         text: the value of that environment variable (isError when unset)
//   cwd {}                     text: the working directory
//   progress {}                notifications/progress x3 (token from params._meta.progressToken, when
//                              given) and one notifications/message (logging), then text "done"
// Resource: file:///greeting.txt (text/plain, "hello"). Prompt: greet {name} -> user message
// "Hello, <name>!".
// On stdin EOF it exits with code 0 (unless --ignore-stdin-eof).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

struct Options {
  std::string echo_description = "Answers with the text it was given.";
  size_t page_size = 0;  // 0: one page
  bool list_changed = false;
  std::set<std::string> hang_on;
  std::set<std::string> crash_on;
  bool garbage = false;
  size_t huge_bytes = 0;
  long slow_start_ms = 0;
  bool stderr_noise = false;
  bool ignore_stdin_eof = false;
  long no_read_ms = 0;
};

Options g_options;
std::mutex g_out_mu;  // one writer of stdout at a time: lines never interleave
std::atomic<bool> g_extra_tool{false};
std::atomic<bool> g_first_call_seen{false};

// A `slow` call that notifications/cancelled may end early.
struct SlowCall {
  std::mutex mu;
  std::condition_variable cv;
  bool cancelled = false;
};
std::mutex g_slow_mu;
std::map<std::string, std::shared_ptr<SlowCall>> g_slow_calls;  // by the request id's JSON text

void write_raw(const std::string& text) {
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + off, text.size() - off);
    if (n <= 0) return;  // the client is gone
    off += static_cast<size_t>(n);
  }
}

void send_message(const json& message, bool is_response) {
  std::string line;
  if (is_response && g_options.garbage) line = "this is not json\n";
  line.append(message.dump());
  line.push_back('\n');
  std::lock_guard lk(g_out_mu);
  write_raw(line);
}

void log_err(const std::string& text) {
  std::string line = text;
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void respond(const json& id, json result) {
  send_message({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}, true);
}

void respond_error(const json& id, int code, const std::string& message) {
  send_message({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}, true);
}

void notify(const std::string& method, json params) {
  send_message({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}, false);
}

json text_result(const std::string& text, bool is_error = false) {
  json r = {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
  if (is_error) r["isError"] = true;
  return r;
}

json object_schema(json properties, json required) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

json tool_list() {
  json tools = json::array();
  tools.push_back({{"name", "echo"},
                   {"description", g_options.echo_description},
                   {"inputSchema", object_schema({{"text", {{"type", "string"}}}}, {"text"})}});
  tools.push_back(
      {{"name", "add"},
       {"description", "Adds two numbers."},
       {"inputSchema", object_schema({{"a", {{"type", "number"}}}, {"b", {{"type", "number"}}}}, {"a", "b"})},
       {"outputSchema", object_schema({{"sum", {{"type", "number"}}}}, {"sum"})}});
  tools.push_back({{"name", "slow"},
                   {"description", "Sleeps ms milliseconds."},
                   {"inputSchema", object_schema({{"ms", {{"type", "integer"}}}}, {"ms"})}});
  tools.push_back({{"name", "fail"},
                   {"description", "Always fails."},
                   {"inputSchema", object_schema(json::object(), json::array())}});
  tools.push_back({{"name", "image"},
                   {"description", "Returns a tiny image."},
                   {"inputSchema", object_schema(json::object(), json::array())}});
  tools.push_back({{"name", "env"},
                   {"description", "Returns an environment variable."},
                   {"inputSchema", object_schema({{"name", {{"type", "string"}}}}, {"name"})}});
  tools.push_back({{"name", "cwd"},
                   {"description", "Returns the working directory."},
                   {"inputSchema", object_schema(json::object(), json::array())}});
  tools.push_back({{"name", "progress"},
                   {"description", "Reports progress, then answers."},
                   {"inputSchema", object_schema(json::object(), json::array())}});
  if (g_extra_tool) {
    tools.push_back({{"name", "extra"},
                     {"description", "Appears after the first call."},
                     {"inputSchema", object_schema(json::object(), json::array())}});
  }
  return tools;
}

void handle_tools_list(const json& id, const json& params) {
  const json tools = tool_list();
  size_t offset = 0;
  if (params.is_object() && params.contains("cursor")) {
    const json& c = params["cursor"];
    const std::string prefix = "after:";
    if (!c.is_string() || c.get<std::string>().rfind(prefix, 0) != 0)
      return respond_error(id, -32602, "Invalid cursor");
    try {
      offset = std::stoul(c.get<std::string>().substr(prefix.size()));
    } catch (const std::exception&) {
      return respond_error(id, -32602, "Invalid cursor");
    }
    if (offset > tools.size()) return respond_error(id, -32602, "Invalid cursor");
  }
  const size_t page = g_options.page_size == 0 ? tools.size() : g_options.page_size;
  const size_t end = std::min(tools.size(), offset + page);
  json result = {{"tools", json::array()}};
  for (size_t i = offset; i < end; ++i) result["tools"].push_back(tools[i]);
  if (end < tools.size()) result["nextCursor"] = "after:" + std::to_string(end);
  respond(id, std::move(result));
}

void run_slow(json id, long ms, std::shared_ptr<SlowCall> call) {
  bool cancelled = false;
  {
    std::unique_lock lk(call->mu);
    cancelled = call->cv.wait_for(lk, milliseconds(ms), [&] { return call->cancelled; });
  }
  {
    std::lock_guard lk(g_slow_mu);
    g_slow_calls.erase(id.dump());
  }
  if (!cancelled) respond(id, text_result("slept " + std::to_string(ms)));
}

void handle_tools_call(const json& id, const json& params) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    return respond_error(id, -32602, "tools/call needs params.name");
  }
  const std::string name = params["name"];
  const json args =
      params.contains("arguments") && params["arguments"].is_object() ? params["arguments"] : json::object();
  const bool first_call = !g_first_call_seen.exchange(true);
  const auto after_first_call = [&] {
    if (first_call && g_options.list_changed) {
      g_extra_tool = true;
      notify("notifications/tools/list_changed", json::object());
    }
  };
  if (name == "echo") {
    if (!args.contains("text") || !args["text"].is_string())
      return respond_error(id, -32602, "echo needs a string 'text'");
    std::string text = "echo: " + args["text"].get<std::string>();
    if (text.size() < g_options.huge_bytes) text.append(g_options.huge_bytes - text.size(), '.');
    respond(id, text_result(text));
  } else if (name == "add") {
    if (!args.contains("a") || !args["a"].is_number() || !args.contains("b") || !args["b"].is_number()) {
      return respond_error(id, -32602, "add needs numbers 'a' and 'b'");
    }
    json sum;
    if (args["a"].is_number_integer() && args["b"].is_number_integer()) {
      sum = args["a"].get<long long>() + args["b"].get<long long>();
    } else {
      sum = args["a"].get<double>() + args["b"].get<double>();
    }
    json result = text_result(sum.dump());
    result["structuredContent"] = {{"sum", sum}};
    respond(id, std::move(result));
  } else if (name == "slow") {
    if (!args.contains("ms") || !args["ms"].is_number_integer())
      return respond_error(id, -32602, "slow needs an integer 'ms'");
    auto call = std::make_shared<SlowCall>();
    {
      std::lock_guard lk(g_slow_mu);
      g_slow_calls[id.dump()] = call;
    }
    std::thread(run_slow, id, args["ms"].get<long>(), call).detach();
  } else if (name == "fail") {
    respond(id, text_result("it failed", true));
  } else if (name == "image") {
    json content = {{"type", "image"}, {"data", "iVBORw0KGgo="}, {"mimeType", "image/png"}};  // the PNG signature
    respond(id, {{"content", json::array({content})}});
  } else if (name == "env") {
    if (!args.contains("name") || !args["name"].is_string())
      return respond_error(id, -32602, "env needs a string 'name'");
    const std::string var = args["name"];
    const char* value = std::getenv(var.c_str());
    respond(id, value != nullptr ? text_result(value) : text_result(var + " is not set", true));
  } else if (name == "cwd") {
    char buf[4096];
    respond(id, text_result(::getcwd(buf, sizeof buf) != nullptr ? buf : "?"));
  } else if (name == "progress") {
    json token;
    if (params.contains("_meta") && params["_meta"].is_object()) token = params["_meta"].value("progressToken", json());
    for (int i = 1; i <= 3; ++i) {
      if (token.is_null()) continue;
      notify("notifications/progress",
             {{"progressToken", token}, {"progress", i}, {"total", 3}, {"message", "step " + std::to_string(i)}});
    }
    notify("notifications/message", {{"level", "info"}, {"logger", "fault-server"}, {"data", "progress tool ran"}});
    respond(id, text_result("done"));
  } else if (name == "extra" && g_extra_tool) {
    respond(id, text_result("extra"));
  } else {
    return respond_error(id, -32602, "Unknown tool: " + name);
  }
  after_first_call();
}

void handle_cancelled(const json& params) {
  if (!params.is_object() || !params.contains("requestId")) return;
  std::shared_ptr<SlowCall> call;
  {
    std::lock_guard lk(g_slow_mu);
    auto it = g_slow_calls.find(params["requestId"].dump());
    if (it != g_slow_calls.end()) call = it->second;
  }
  if (!call) return;
  std::lock_guard lk(call->mu);
  call->cancelled = true;
  call->cv.notify_all();
}

json initialize_result(const json& params) {
  std::string version = "2025-11-25";
  if (params.is_object() && params.contains("protocolVersion") && params["protocolVersion"].is_string()) {
    const std::string asked = params["protocolVersion"];
    if (asked == "2025-06-18" || asked == "2025-11-25") version = asked;
  }
  return {{"protocolVersion", version},
          {"capabilities",
           {{"tools", {{"listChanged", true}}},
            {"resources", json::object()},
            {"prompts", json::object()},
            {"logging", json::object()}}},
          {"serverInfo", {{"name", "fault-server"}, {"version", "1.0"}}}};
}

// Handles one request; false when the reader should pause afterwards (--no-read after initialize).
bool handle_request(const std::string& method, const json& id, const json& params) {
  if (g_options.crash_on.count(method) != 0) {
    log_err("fatal: crashing on purpose");
    std::fflush(stdout);
    std::_Exit(3);
  }
  if (g_options.hang_on.count(method) != 0) return true;
  if (method == "initialize") {
    respond(id, initialize_result(params));
    return false;
  }
  if (method == "ping" || method == "logging/setLevel") {
    respond(id, json::object());
  } else if (method == "tools/list") {
    handle_tools_list(id, params);
  } else if (method == "tools/call") {
    handle_tools_call(id, params);
  } else if (method == "resources/list") {
    respond(id, {{"resources",
                  json::array({{{"uri", "file:///greeting.txt"}, {"name", "greeting"}, {"mimeType", "text/plain"}}})}});
  } else if (method == "resources/read") {
    if (!params.is_object() || params.value("uri", "") != "file:///greeting.txt") {
      return respond_error(id, -32002, "Resource not found"), true;
    }
    respond(id, {{"contents",
                  json::array({{{"uri", "file:///greeting.txt"}, {"mimeType", "text/plain"}, {"text", "hello"}}})}});
  } else if (method == "prompts/list") {
    json arg = {{"name", "name"}, {"description", "who to greet"}, {"required", true}};
    respond(
        id,
        {{"prompts",
          json::array({{{"name", "greet"}, {"description", "Greets someone."}, {"arguments", json::array({arg})}}})}});
  } else if (method == "prompts/get") {
    if (!params.is_object() || params.value("name", "") != "greet")
      return respond_error(id, -32602, "Unknown prompt"), true;
    std::string who = "stranger";
    if (params.contains("arguments") && params["arguments"].is_object()) who = params["arguments"].value("name", who);
    std::string greeting = "Hello, ";
    greeting.append(who).append("!");
    json message = {{"role", "user"}, {"content", {{"type", "text"}, {"text", greeting}}}};
    respond(id, {{"description", "A greeting"}, {"messages", json::array({message})}});
  } else {
    respond_error(id, -32601, "Method not found: " + method);
  }
  return true;
}

// Handles one message; false when the reader should pause afterwards.
bool handle_message(const json& msg) {
  if (!msg.is_object()) return true;
  const bool has_method = msg.contains("method") && msg["method"].is_string();
  if (g_options.stderr_noise) {
    std::string note = "fault-server: received ";
    note.append(has_method ? msg["method"].get<std::string>() : std::string("a response"));
    log_err(note);
  }
  if (!has_method) return true;  // a response to a request this server never sends
  const std::string method = msg["method"];
  const json params = msg.contains("params") ? msg["params"] : json::object();
  if (!msg.contains("id")) {
    if (method == "notifications/cancelled") handle_cancelled(params);
    return true;
  }
  return handle_request(method, msg["id"], params);
}

bool parse_count(const char* text, long* out) {
  try {
    size_t used = 0;
    const long v = std::stol(text, &used);
    if (used != std::string(text).size() || v < 0) return false;
    *out = v;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

int usage_error(const std::string& what) {
  std::string text = "keel_fault_mcp_server: ";
  text.append(what).append(" (see the comment at the top of fault_server_main.cpp)");
  log_err(text);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    long n = 0;
    if (arg == "--list-changed") {
      g_options.list_changed = true;
    } else if (arg == "--garbage") {
      g_options.garbage = true;
    } else if (arg == "--stderr-noise") {
      g_options.stderr_noise = true;
    } else if (arg == "--ignore-stdin-eof") {
      g_options.ignore_stdin_eof = true;
    } else if (!has_value) {
      return usage_error("unknown option or missing value: " + arg);
    } else if (arg == "--mode") {
      if (std::string(argv[++i]) != "normal") return usage_error("unknown mode: " + std::string(argv[i]));
    } else if (arg == "--echo-description") {
      g_options.echo_description = argv[++i];
    } else if (arg == "--hang-on") {
      g_options.hang_on.insert(argv[++i]);
    } else if (arg == "--crash-on") {
      g_options.crash_on.insert(argv[++i]);
    } else if (!parse_count(argv[++i], &n)) {
      std::string what = "not a count: ";
      what.append(arg).append(" ").append(argv[i]);
      return usage_error(what);
    } else if (arg == "--page-size") {
      g_options.page_size = static_cast<size_t>(n);
    } else if (arg == "--huge-bytes") {
      g_options.huge_bytes = static_cast<size_t>(n);
    } else if (arg == "--slow-start") {
      g_options.slow_start_ms = n;
    } else if (arg == "--no-read") {
      g_options.no_read_ms = n;
    } else {
      return usage_error("unknown option: " + arg);
    }
  }
  if (g_options.ignore_stdin_eof) std::signal(SIGTERM, SIG_IGN);
  log_err("fault-server: started, pid " + std::to_string(::getpid()));
  if (g_options.slow_start_ms > 0) std::this_thread::sleep_for(milliseconds(g_options.slow_start_ms));

  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json msg = json::parse(line, nullptr, false);
    if (msg.is_discarded()) {
      respond_error(nullptr, -32700, "Parse error");
      continue;
    }
    bool keep_reading = true;
    if (msg.is_array()) {
      for (const json& m : msg) keep_reading = handle_message(m) && keep_reading;
    } else {
      keep_reading = handle_message(msg);
    }
    if (!keep_reading && g_options.no_read_ms > 0) std::this_thread::sleep_for(milliseconds(g_options.no_read_ms));
  }
  if (g_options.ignore_stdin_eof) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  std::fflush(stdout);
  std::_Exit(0);  // detached `slow` threads may still be sleeping
}
