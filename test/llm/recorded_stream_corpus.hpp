// Recorded provider replies (test/llm/recorded_streams/<provider>/<name>.txt) and what keel must
// read from each (the sidecar <name>.json). Each body is copied from a public recording, which the
// sidecar names ("source", "cite"); see test/llm/recorded_streams/README.md.
//
// Sidecar fields: "api" ("openai" or "anthropic": the client that reads it), "stream" (whether the
// body is an event stream), "framing" for streams ("sse": the raw body as sent; "lines": one event
// payload per line, as some suites record them, sent as "data: <line>\n\n"), "status" (the HTTP
// status, 200 when absent), and "expect": either {"error": "<substring of the failure>"} or the
// exact reply {"text", "reasoning", "calls": [{"name", "arguments"}], "finish_reason", "usage"?}.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/mock_llm_server.hpp"

namespace keel::testing {

struct RecordedStream {
  std::string id;     // "<provider>/<name>"
  std::string body;   // the recorded bytes
  nlohmann::json sidecar;

  bool anthropic() const { return sidecar.value("api", "") == "anthropic"; }
  bool stream() const { return sidecar.value("stream", false); }
  int status() const { return sidecar.value("status", 200); }
  const nlohmann::json& expect() const { return sidecar.at("expect"); }
  bool expects_error() const { return expect().contains("error") && expect()["error"].is_string(); }
};

inline std::filesystem::path recorded_streams_dir() {
  return std::filesystem::path(KEEL_SOURCE_DIR) / "test/llm/recorded_streams";
}

inline std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every recording with its sidecar, sorted by id. A sidecar that does not parse is kept with a
// null sidecar so the test names it.
inline std::vector<RecordedStream> load_recorded_streams() {
  std::vector<RecordedStream> out;
  std::error_code ec;
  for (const auto& provider : std::filesystem::directory_iterator(recorded_streams_dir(), ec)) {
    if (!provider.is_directory()) continue;
    for (const auto& file : std::filesystem::directory_iterator(provider.path(), ec)) {
      if (file.path().extension() != ".json") continue;
      RecordedStream r;
      r.id = provider.path().filename().string() + "/" + file.path().stem().string();
      r.body = read_whole_file(std::filesystem::path(file.path()).replace_extension(".txt"));
      r.sidecar = nlohmann::json::parse(read_whole_file(file.path()), nullptr, /*allow_exceptions=*/false);
      out.push_back(std::move(r));
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

// The SSE chunks that replay a recorded stream: one chunk per event of a raw body (the HTTP chunks
// then split events the way a server flushes them), one "data:" event per line of a lines body.
inline std::vector<std::string> recorded_sse_chunks(const RecordedStream& r) {
  std::vector<std::string> chunks;
  if (r.sidecar.value("framing", "sse") == "lines") {
    std::istringstream in(r.body);
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      chunks.push_back("data: " + line + "\n\n");
    }
    return chunks;
  }
  size_t start = 0;
  while (start < r.body.size()) {
    size_t end = r.body.find("\n\n", start);
    end = end == std::string::npos ? r.body.size() : end + 2;
    chunks.push_back(r.body.substr(start, end - start));
    start = end;
  }
  return chunks;
}

// The same bytes cut every `size` bytes, wherever that falls (inside an event, a line, a UTF-8
// sequence), as a network may deliver them.
inline std::vector<std::string> rechunked(const std::vector<std::string>& chunks, size_t size) {
  std::string all;
  for (const std::string& c : chunks) all += c;
  std::vector<std::string> out;
  for (size_t at = 0; at < all.size(); at += size) out.push_back(all.substr(at, size));
  return out;
}

// The mock server's answer that replays `r`; a stream cut every `cut_bytes` bytes when non-zero.
inline MockResponse recorded_response(const RecordedStream& r, size_t cut_bytes = 0) {
  if (!r.stream()) return mock_raw(r.status(), r.body);
  std::vector<std::string> chunks = recorded_sse_chunks(r);
  if (cut_bytes > 0) chunks = rechunked(chunks, cut_bytes);
  MockResponse response = mock_sse(std::move(chunks));
  response.status = r.status();
  return response;
}

// A filesystem- and test-name-safe id: "anthropic/web_search_stream" -> "anthropic_web_search_stream".
inline std::string recorded_test_name(const std::string& id) {
  std::string out;
  for (char c : id) out += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
  return out;
}

}  // namespace keel::testing
