// keel/model_download.hpp — downloading a model file into the models folder, resumable and
// checked: `keel model pull`.
//
//   keel::ModelPullOptions o = keel::model_pull_default_options();  // HF_ENDPOINT, HF_TOKEN
//   o.source = "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf";
//   o.dir = "/home/me/.local/share/keel/models";
//   keel::Result<keel::ModelPullResult> r = keel::pull_model(o);
//
// The bytes go to NAME.part; an existing NAME.part is resumed with a Range request. The SHA-256 is
// computed while the data streams (after hashing what the .part already holds) and compared with
// --sha256, else with a SHA-256 the server gives as X-Linked-Etag or ETag (Hugging Face sends the
// LFS object's SHA-256 there). Only a file that passes becomes NAME; a mismatch deletes the .part.
// An interrupted transfer keeps the .part so the same call resumes it.
//
// Thread-safety: pull_model may run on several threads for different destinations.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel {

// Progress of a transfer, given to ModelPullOptions::on_progress.
struct ModelPullProgress {
  uint64_t bytes = 0;          // bytes of the file on disk so far (resumed bytes included)
  int64_t total = -1;          // the file's full size; -1 when the server did not say
  uint64_t resumed_from = 0;   // bytes that were already there when this transfer began
  double bytes_per_second = 0; // average rate of this transfer
  bool done = false;           // the last call: the transfer ended (successfully or not)
};

struct ModelPullOptions {
  std::string source;                   // an http(s) URL, or hf:OWNER/REPO/PATH.gguf[@REVISION]
  std::filesystem::path dir;            // destination folder (created when missing)
  std::optional<std::string> name;      // file name; default: the source's last path segment.
                                        // ".gguf" is appended when it has no such ending
  std::optional<std::string> sha256;    // expected SHA-256, 64 hex digits (either case)
  bool force = false;                   // replace an existing file of the same name
  std::string hf_endpoint = "https://huggingface.co";  // base of hf: sources, no trailing '/'
  std::string hf_token;                 // sent as "Authorization: Bearer" to the first host; "" none
  int64_t connect_timeout_ms = 30000;   // per connection attempt
  int64_t low_speed_bytes_per_s = 1024; // abort when slower than this ...
  int64_t low_speed_seconds = 60;       // ... for this many seconds (whole seconds, >= 1)
  // Called from the calling thread about every 100 ms while bytes arrive, and once at the end.
  std::function<void(const ModelPullProgress&)> on_progress;
  std::stop_token stop;                 // a stop request aborts the transfer (Cancelled), keeping the .part
};

// The defaults, with hf_endpoint from $HF_ENDPOINT and hf_token from $HF_TOKEN when set.
ModelPullOptions model_pull_default_options();

struct ModelPullResult {
  std::filesystem::path path;   // the final file
  std::string url;              // the URL fetched (after hf: mapping, before redirects)
  uint64_t bytes = 0;           // file size
  uint64_t resumed_from = 0;    // bytes reused from an earlier .part (0: a fresh download)
  std::string sha256;           // computed, lowercase hex
  // Where the expected digest came from: "--sha256", "X-Linked-Etag" or "ETag"; "" when nothing
  // was known to compare with (the file was kept unverified).
  std::string verified_by;
};

// The URL an hf:OWNER/REPO/PATH[@REVISION] source names (revision "main" by default), or an
// http(s) URL unchanged. InvalidArgument for anything else.
Result<std::string> resolve_pull_url(std::string_view source, std::string_view hf_endpoint);

// Downloads `options.source` into `options.dir` (see the file comment).
// Errors: InvalidArgument for a bad source, name or --sha256; FailedPrecondition when the file
// exists and force is off, or when the checksum does not match (the message names both digests);
// NotFound for 404; Unauthenticated for 401/403; DeadlineExceeded when the transfer stalls;
// Unavailable for other HTTP and connection failures (the .part is kept: run again to resume);
// Cancelled when `stop` fired.
Result<ModelPullResult> pull_model(const ModelPullOptions& options);

}  // namespace keel
