// The floor keel_run_bench compares keel against: the least a program can do per agent step against
// the same mock model server. One thread, ONE libcurl easy handle reused for every request (so one
// keep-alive connection), no framework and no JSON library: the growing conversation is a
// std::string appended to, the reply is looked into with string searches, and the "tool" is a
// canned result. What is left per step is the HTTP round trip, the mock's own work, and copying a
// request that grows each round -- the same work every agent runtime has to do.
#include <curl/curl.h>

#include <string>
#include <string_view>

#include "run_bench.hpp"

namespace runbench {
namespace {

size_t append_to(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// The JSON string value that starts just past `"key":"` at or after `from`, still escaped (it goes
// back into the conversation as is); empty when absent.
std::string_view string_after(std::string_view json, std::string_view key_and_quote, size_t from = 0) {
  size_t p = json.find(key_and_quote, from);
  if (p == std::string_view::npos) return {};
  p += key_and_quote.size();
  size_t e = p;
  while (e < json.size() && json[e] != '"') e += json[e] == '\\' ? 2 : 1;
  return e < json.size() ? json.substr(p, e - p) : std::string_view{};
}

constexpr std::string_view kTools =
    R"("tools":[{"type":"function","function":{"name":"fs_stat","description":"Size and kind of a file in the )"
    R"(workspace","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}])";

}  // namespace

FloorLoop::FloorLoop(const std::string& base_url) : url_(base_url + "/chat/completions") {
  CURL* c = curl_easy_init();
  curl_slist* h = curl_slist_append(nullptr, "Content-Type: application/json");
  h = curl_slist_append(h, "Expect:");  // no 100-continue round trip once the body passes 1 KB
  curl_easy_setopt(c, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_to);
  curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30000L);
  curl_ = c;
  headers_ = h;
}

FloorLoop::~FloorLoop() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
  curl_slist_free_all(static_cast<curl_slist*>(headers_));
}

bool FloorLoop::run(int rounds, std::string& error) {
  CURL* c = static_cast<CURL*>(curl_);
  const std::string head = "{\"model\":\"mock-steps-" + std::to_string(rounds) + "\",\"messages\":[";
  std::string messages = R"({"role":"system","content":"You are a benchmark agent. Use the tools, then answer."},)"
                         R"({"role":"user","content":"bench task"})";
  std::string body, reply;
  for (int round = 0; round <= rounds; ++round) {
    body.clear();
    body += head;
    body += messages;
    body += "],";
    body += kTools;
    body += '}';
    reply.clear();
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (rc != CURLE_OK || status != 200) {
      error = "floor request " + std::to_string(round + 1) +
              " failed: " + (rc != CURLE_OK ? curl_easy_strerror(rc) : "HTTP " + std::to_string(status) + " " + reply);
      return false;
    }
    size_t calls = reply.find("\"tool_calls\":[{");
    if (calls == std::string::npos) {
      if (round != rounds || reply.find("\"content\":\"done\"") == std::string::npos) {
        error =
            "floor: text reply after " + std::to_string(round) + " of " + std::to_string(rounds) + " rounds: " + reply;
        return false;
      }
      return true;
    }
    std::string_view id = string_after(reply, "\"id\":\"", calls);
    std::string_view name = string_after(reply, "\"name\":\"", calls);
    std::string_view args = string_after(reply, "\"arguments\":\"", calls);
    if (id.empty() || name.empty()) {
      error = "floor: a tool call without id or name: " + reply;
      return false;
    }
    messages += R"(,{"role":"assistant","content":null,"tool_calls":[{"id":")";
    messages += id;
    messages += R"(","type":"function","function":{"name":")";
    messages += name;
    messages += R"(","arguments":")";
    messages += args;
    messages += R"("}}]},{"role":"tool","tool_call_id":")";
    messages += id;
    messages += R"(","content":"file, 1 byte, modified 2026-01-01T00:00:00Z"})";
  }
  error = "floor: still tool calls after " + std::to_string(rounds) + " rounds";
  return false;
}

long mock_chat_requests(const std::string& base_url) {
  CURL* c = curl_easy_init();
  std::string url = base_url + "/stats", reply;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_to);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
  CURLcode rc = curl_easy_perform(c);
  curl_easy_cleanup(c);
  const std::string key = "\"chat_requests\":";
  size_t p = reply.find(key);
  if (rc != CURLE_OK || p == std::string::npos) return -1;
  return std::stol(reply.substr(p + key.size()));
}

}  // namespace runbench
