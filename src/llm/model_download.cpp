// `keel model pull` (see keel/model_download.hpp): one libcurl easy handle per download
// (net/curl_easy), a .part file that survives interruptions, and a SHA-256 computed as the bytes
// arrive.
#include "keel/model_download.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>
#include <vector>

#include "llm/sha256.hpp"
#include "net/curl_easy.hpp"

namespace keel {
namespace {

using Clock = std::chrono::steady_clock;
using detail::CurlEasy;
using detail::CurlHooks;
using detail::CurlList;
using detail::CurlTransfer;

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// The SHA-256 an ETag carries, if it is one: `"<64 hex>"`, possibly weak (W/"...").
std::string sha256_of_etag(std::string_view etag) {
  etag = trim(etag);
  if (etag.starts_with("W/")) etag.remove_prefix(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return detail::is_sha256_hex(etag) ? lowercase(std::string(etag)) : std::string();
}

// The file name a URL ends with (query and fragment removed); "" when it ends with '/'.
std::string last_segment(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t slash = url.rfind('/');
  return std::string(slash == std::string_view::npos ? url : url.substr(slash + 1));
}

Result<std::string> file_name_for(const ModelPullOptions& o, std::string_view url) {
  std::string name = o.name ? *o.name : last_segment(url);
  if (name.empty() || name.front() == '.' || name.find('/') != std::string::npos) {
    std::string m = o.name ? "--name '" + name + "' is not a plain file name"
                           : "cannot take a file name from '" + std::string(url) + "'";
    m += ": pass --name NAME (letters, digits, '-', '_' and '.'; no '/')";
    return Status::InvalidArgument(std::move(m));
  }
  if (!name.ends_with(".gguf")) name += ".gguf";
  return name;
}

// One transfer's state, shared with libcurl's callbacks.
struct Transfer {
  const ModelPullOptions* options = nullptr;
  std::filesystem::path part;
  std::ofstream out;
  detail::Sha256 hasher;
  uint64_t resumed_from = 0;  // bytes in the .part before this transfer
  uint64_t bytes = 0;         // bytes in the .part now
  int64_t total = -1;         // full size, when known

  // The current response (reset by each status line: redirects come first).
  long status = 0;
  std::string etag, content_range;
  int64_t content_length = -1;
  std::string linked_etag;  // X-Linked-Etag of any response in the chain (HF sends it on the redirect)
  bool body_started = false;
  std::string error_body;   // the start of a non-2xx body, for the message

  Status failure;           // set by a callback that aborted the transfer
  Clock::time_point started = Clock::now();
  Clock::time_point last_progress{};

  ModelPullProgress progress(bool done) const {
    ModelPullProgress p;
    p.bytes = bytes;
    p.total = total;
    p.resumed_from = resumed_from;
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    p.bytes_per_second = seconds > 0 ? static_cast<double>(bytes - resumed_from) / seconds : 0;
    p.done = done;
    return p;
  }

  void report(bool done) {
    if (!options->on_progress || (!done && bytes == 0)) return;
    const Clock::time_point now = Clock::now();
    if (!done && now - last_progress < std::chrono::milliseconds(100)) return;
    last_progress = now;
    options->on_progress(progress(done));
  }

  // The first body byte of a 200 or 206: decides whether the bytes append to the .part or replace it.
  Status begin_body() {
    body_started = true;
    if (status == 206) {
      // "bytes START-END/TOTAL": the server must resume exactly where the .part ends.
      unsigned long long start = 0, end = 0, full = 0;
      if (std::sscanf(content_range.c_str(), "bytes %llu-%llu/%llu", &start, &end, &full) < 2 ||
          start != resumed_from) {
        std::string m = "the server resumed the download at the wrong place (Content-Range '";
        m.append(content_range).append("', expected bytes ").append(std::to_string(resumed_from));
        m.append("-); delete '").append(part.string()).append("' and try again");
        return Status::Unavailable(std::move(m));
      }
      if (full > 0) total = static_cast<int64_t>(full);
      out.open(part, std::ios::binary | std::ios::app);
    } else {
      // A 200 is the whole file, whatever the .part held: start over.
      hasher.reset();
      resumed_from = 0;
      bytes = 0;
      started = Clock::now();
      total = content_length;
      out.open(part, std::ios::binary | std::ios::trunc);
    }
    if (!out) return Status::Unavailable("cannot write '" + part.string() + "': check the folder's permissions and free space");
    return Status::Ok();
  }
};

// One header line of a response in the redirect chain (see CurlHooks::on_header).
bool on_header_line(Transfer& t, std::string_view line) {
  if (line.starts_with("HTTP/")) {
    const size_t space = line.find(' ');
    t.status = space == std::string_view::npos ? 0 : std::strtol(line.data() + space + 1, nullptr, 10);
    t.etag.clear();
    t.content_range.clear();
    t.content_length = -1;
    return true;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return true;
  const std::string name = lowercase(std::string(trim(line.substr(0, colon))));
  const std::string value(trim(line.substr(colon + 1)));
  if (name == "etag") t.etag = value;
  else if (name == "x-linked-etag" && t.linked_etag.empty()) t.linked_etag = value;
  else if (name == "content-range") t.content_range = value;
  else if (name == "content-length") t.content_length = std::strtoll(value.c_str(), nullptr, 10);
  return true;
}

// Body bytes: into the .part and the hash for a 200 or 206, else the start of the error text.
bool on_body_bytes(Transfer& t, std::string_view data) {
  const size_t n = data.size();
  if (t.status != 200 && t.status != 206) {
    if (t.error_body.size() < 300) t.error_body.append(data.substr(0, 300 - t.error_body.size()));
    return true;
  }
  if (!t.body_started) {
    t.failure = t.begin_body();
    if (!t.failure.ok()) return false;  // aborts the transfer
  }
  t.out.write(data.data(), static_cast<std::streamsize>(n));
  if (!t.out) {
    t.failure = Status::Unavailable("cannot write '" + t.part.string() + "' (disk full?)");
    return false;
  }
  t.hasher.update(data.data(), n);
  t.bytes += n;
  return true;
}

// Asked while the transfer runs: reports progress; false once the stop token fired.
bool still_wanted(Transfer& t) {
  if (t.options->stop.stop_requested()) return false;
  t.report(false);
  return true;
}

// Hashes what an earlier, interrupted download left in the .part.
Status hash_existing_part(Transfer& t) {
  std::error_code ec;
  if (!std::filesystem::exists(t.part, ec)) return Status::Ok();
  std::ifstream in(t.part, std::ios::binary);
  if (!in) return Status::Unavailable("cannot read the partial download '" + t.part.string() + "'; delete it and try again");
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<size_t>(in.gcount());
    t.hasher.update(buffer.data(), got);
    t.bytes += got;
  }
  t.resumed_from = t.bytes;
  return Status::Ok();
}

std::string kept_part_hint(const Transfer& t) {
  if (t.bytes == 0) return "";
  std::string m = "; the ";
  m.append(std::to_string(t.bytes)).append(" bytes received are kept in '").append(t.part.string());
  m.append("': run the same command again to resume");
  return m;
}

// Maps the end of the transfer to an error, or Ok when the .part holds the complete file.
Status transfer_outcome(const Transfer& t, CURLcode rc, const char* curl_error, const std::string& url) {
  const ModelPullOptions& o = *t.options;
  if (!t.failure.ok()) return t.failure;
  if (rc == CURLE_ABORTED_BY_CALLBACK && o.stop.stop_requested()) {
    return Status::Cancelled("the download of " + url + " was stopped" + kept_part_hint(t));
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    std::string m = "the download of " + url + " stalled (under ";
    m.append(std::to_string(o.low_speed_bytes_per_s)).append(" bytes/s for ");
    m.append(std::to_string(o.low_speed_seconds)).append(" s)").append(kept_part_hint(t));
    return Status::DeadlineExceeded(std::move(m));
  }
  if (rc != CURLE_OK) {
    std::string m = "the download of " + url + " failed: ";
    m.append(curl_error[0] ? curl_error : keel::detail::curl().curl_easy_strerror(rc)).append(kept_part_hint(t));
    return Status::Unavailable(std::move(m));
  }
  if (t.status == 416 && t.resumed_from > 0) {
    // Nothing left to send: the .part is complete, unless the server's size ("bytes */N") says otherwise.
    unsigned long long full = 0;
    if (std::sscanf(t.content_range.c_str(), "bytes */%llu", &full) == 1 && full != t.resumed_from) {
      std::string m = "the partial download '" + t.part.string() + "' holds " + std::to_string(t.resumed_from);
      m.append(" bytes but ").append(url).append(" has ").append(std::to_string(full));
      m.append("; delete the .part file and try again");
      return Status::FailedPrecondition(std::move(m));
    }
    return Status::Ok();
  }
  if (t.status == 200 || t.status == 206) {
    if (t.total >= 0 && t.bytes != static_cast<uint64_t>(t.total)) {
      std::string m = "the download of " + url + " ended at byte " + std::to_string(t.bytes);
      m.append(" of ").append(std::to_string(t.total)).append(kept_part_hint(t));
      return Status::Unavailable(std::move(m));
    }
    return Status::Ok();
  }
  std::string m = url + " answered HTTP " + std::to_string(t.status);
  if (t.status == 404) {
    m += " (not found): check the address (for hf: sources the owner, repository, file path and revision)";
    return Status::NotFound(std::move(m));
  }
  if (t.status == 401 || t.status == 403) {
    m += " (not authorized): the file needs an access token; set HF_TOKEN to one that can read it";
    return Status::Unauthenticated(std::move(m));
  }
  std::string body(trim(t.error_body));
  std::replace(body.begin(), body.end(), '\n', ' ');
  if (!body.empty()) m.append(": ").append(body);
  return Status::Unavailable(std::move(m));
}

Status run_transfer(Transfer& t, const std::string& url, bool send_token) {
  const ModelPullOptions& o = *t.options;
  CurlEasy curl;
  if (!curl.ok()) return Status::Internal("cannot start a download: libcurl failed to initialise");
  CurlList headers;
  if (send_token && !o.hf_token.empty()) (void)headers.append("Authorization: Bearer " + o.hf_token);
  CurlHooks hooks;
  hooks.on_header = [&t](std::string_view line) { return on_header_line(t, line); };
  hooks.on_body = [&t](std::string_view data) { return on_body_bytes(t, data); };
  hooks.keep_going = [&t] { return still_wanted(t); };
  CurlTransfer common;
  common.url = url;
  common.user_agent = "keel-model-pull";
  common.connect_timeout_ms = std::max<int64_t>(o.connect_timeout_ms, 1);
  common.total_timeout_ms = 0;  // a large file takes its time; a stalled one is caught by the low-speed limit
  common.max_redirects = 10;
  common.headers = headers.get();
  common.hooks = &hooks;
  curl.prepare(common);
  const std::string range = std::to_string(t.resumed_from) + "-";
  CURL* h = curl.get();
  keel::detail::curl().curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(std::max<int64_t>(o.low_speed_bytes_per_s, 1)));
  keel::detail::curl().curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(std::max<int64_t>(o.low_speed_seconds, 1)));
  if (t.resumed_from > 0) keel::detail::curl().curl_easy_setopt(h, CURLOPT_RANGE, range.c_str());
  const CURLcode rc = keel::detail::curl().curl_easy_perform(h);
  // A 200 with an empty body still replaces the .part.
  if (rc == CURLE_OK && t.status == 200 && !t.body_started && t.failure.ok()) t.failure = t.begin_body();
  if (t.out.is_open()) {
    t.out.close();
    if (!t.out && t.failure.ok()) t.failure = Status::Unavailable("cannot finish writing '" + t.part.string() + "'");
  }
  t.report(true);
  return transfer_outcome(t, rc, curl.error_text(), url);
}

}  // namespace

ModelPullOptions model_pull_default_options() {
  ModelPullOptions o;
  if (const char* e = std::getenv("HF_ENDPOINT"); e && *e) o.hf_endpoint = e;
  if (const char* t = std::getenv("HF_TOKEN"); t && *t) o.hf_token = t;
  return o;
}

Result<std::string> resolve_pull_url(std::string_view source, std::string_view hf_endpoint) {
  if (source.starts_with("http://") || source.starts_with("https://")) return std::string(source);
  if (!source.starts_with("hf:")) {
    return Status::InvalidArgument("'" + std::string(source) +
                                   "' is not a model source: use an http(s) URL or hf:OWNER/REPO/PATH.gguf[@REVISION]");
  }
  std::string_view rest = source.substr(3);
  std::string revision = "main";
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
    revision.clear();
    for (char c : rest.substr(at + 1)) {
      if (c == '/') revision += "%2F";  // refs/pr/1 is one path segment
      else revision.push_back(c);
    }
    rest = rest.substr(0, at);
  }
  const size_t first = rest.find('/');
  const size_t second = first == std::string_view::npos ? first : rest.find('/', first + 1);
  if (first == 0 || second == std::string_view::npos || second == first + 1 || second + 1 >= rest.size() ||
      revision.empty() || rest.back() == '/') {
    return Status::InvalidArgument("'" + std::string(source) +
                                   "' is not an hf: source: use hf:OWNER/REPO/PATH.gguf, optionally @REVISION");
  }
  while (hf_endpoint.ends_with('/')) hf_endpoint.remove_suffix(1);
  std::string url(hf_endpoint);
  url.append("/").append(rest.substr(0, second)).append("/resolve/").append(revision).append("/");
  url.append(rest.substr(second + 1));
  return url;
}

Result<ModelPullResult> pull_model(const ModelPullOptions& o) {
  KEEL_ASSIGN_OR_RETURN(std::string url, resolve_pull_url(o.source, o.hf_endpoint));
  KEEL_ASSIGN_OR_RETURN(std::string name, file_name_for(o, url));
  std::string expected;
  if (o.sha256) {
    if (!detail::is_sha256_hex(*o.sha256)) {
      return Status::InvalidArgument("--sha256 '" + *o.sha256 + "' is not a SHA-256 (64 hex digits)");
    }
    expected = lowercase(*o.sha256);
  }
  std::error_code ec;
  std::filesystem::create_directories(o.dir, ec);
  if (ec) return Status::InvalidArgument("cannot create the models folder '" + o.dir.string() + "': " + ec.message());
  ModelPullResult result;
  result.url = url;
  result.path = o.dir / name;
  if (std::filesystem::exists(result.path, ec) && !o.force) {
    return Status::FailedPrecondition("'" + result.path.string() +
                                      "' already exists; pass --force to replace it (or --name to pick another name)");
  }

  Transfer t;
  t.options = &o;
  t.part = o.dir / (name + ".part");
  KEEL_TRY(hash_existing_part(t));
  const bool hf = o.source.starts_with("hf:") || url.starts_with(o.hf_endpoint + "/");
  KEEL_TRY(run_transfer(t, url, hf));

  result.bytes = t.bytes;
  result.resumed_from = t.resumed_from;
  result.sha256 = t.hasher.hex_digest();
  if (!expected.empty()) {
    result.verified_by = "--sha256";
  } else if (std::string linked = sha256_of_etag(t.linked_etag); !linked.empty()) {
    expected = linked;
    result.verified_by = "X-Linked-Etag";
  } else if (std::string etag = sha256_of_etag(t.etag); !etag.empty()) {
    expected = etag;
    result.verified_by = "ETag";
  }
  if (!expected.empty() && expected != result.sha256) {
    std::filesystem::remove(t.part, ec);
    std::string m = "the download of " + url + " is corrupt: its SHA-256 is " + result.sha256 + " but ";
    m.append(result.verified_by).append(" says ").append(expected);
    m.append("; the partial file was deleted: check the checksum, then download again");
    return Status::FailedPrecondition(std::move(m));
  }
  std::filesystem::rename(t.part, result.path, ec);
  if (ec) {
    return Status::Unavailable("cannot rename '" + t.part.string() + "' to '" + result.path.string() + "': " +
                               ec.message());
  }
  return result;
}

}  // namespace keel
