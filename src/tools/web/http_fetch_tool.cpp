// http_fetch — one HTTP request with the caller's method, headers and body; returns the status,
// selected response headers and the body as text, as compact JSON.
//
// Status policy: any HTTP status is a result (a 404 or 500 is information for the model), only a
// request that could not be made (bad URL, refused address, timeout, connection failure) is an
// error. The body is cut at WebToolOptions::max_output_bytes with a note; a binary body is
// described instead of shown.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text/utf8_text.hpp"
#include "tools/web/ascii_text.hpp"
#include "tools/web/body_decoding.hpp"
#include "tools/web/web_factories.hpp"

namespace keel::detail {
namespace {

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "url": {"type": "string", "minLength": 1, "description": "Absolute http:// or https:// URL"},
    "method": {"type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"], "description": "HTTP method; default GET"},
    "headers": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Request headers, e.g. {\"Accept\": \"application/json\"}"},
    "body": {"type": "string", "description": "Request body for POST, PUT, PATCH or DELETE; JSON text is sent as application/json unless headers set a Content-Type"}
  },
  "required": ["url"],
  "additionalProperties": false
})";

constexpr size_t kMaxHeaders = 64;

// Response headers worth showing a model; the rest (cookies, tracing, server details) is noise.
constexpr std::string_view kShownHeaders[] = {
    "content-type",  "content-length", "content-language", "content-disposition", "location",
    "last-modified", "etag",           "cache-control",    "expires",             "retry-after",
    "www-authenticate", "allow",       "link",             "x-ratelimit-limit",   "x-ratelimit-remaining",
    "x-ratelimit-reset",
};

bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// "Name: value" lines from the headers argument; InvalidArgument for a name or value that would
// break the request (header injection) or a header libcurl must own.
Result<std::vector<std::string>> request_headers(const nlohmann::json& args, bool* has_content_type) {
  std::vector<std::string> lines;
  if (!args.contains("headers")) return lines;
  const nlohmann::json& headers = args.at("headers");
  if (headers.size() > kMaxHeaders) {
    return Status::InvalidArgument("too many headers (" + std::to_string(headers.size()) + "); at most " +
                                   std::to_string(kMaxHeaders));
  }
  for (const auto& [name, value_json] : headers.items()) {
    const std::string value = value_json.get<std::string>();
    if (name.empty() || !std::all_of(name.begin(), name.end(), is_token_char)) {
      return Status::InvalidArgument("invalid header name '" + sanitize_utf8(name) +
                                     "': use letters, digits and -, without spaces or colons");
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return Status::InvalidArgument("the value of header '" + name + "' contains a line break or NUL byte");
    }
    const std::string lower = ascii_lowercase(name);
    if (lower == "content-length" || lower == "transfer-encoding" || lower == "connection" || lower == "upgrade") {
      return Status::InvalidArgument("header '" + name + "' is set by the HTTP client itself; leave it out");
    }
    if (lower == "content-type") *has_content_type = true;
    // "Name:" alone would tell libcurl to remove the header; "Name;" sends it empty.
    lines.push_back(value.empty() ? name + ";" : name + ": " + value);
  }
  return lines;
}

Result<std::string> run_http_fetch(const WebFetcher& fetcher, const nlohmann::json& args, const ToolContext& ctx) {
  FetchRequest request;
  request.url = args.at("url").get<std::string>();
  request.method = args.value("method", std::string("GET"));
  request.max_body_bytes = fetcher.options().max_output_bytes;
  request.stop = ctx.stop;
  bool has_content_type = false;
  KEEL_ASSIGN_OR_RETURN(request.headers, request_headers(args, &has_content_type));
  request.body = args.value("body", std::string());
  if (!request.body.empty() && (request.method == "GET" || request.method == "HEAD")) {
    return Status::InvalidArgument("a " + request.method + " request cannot carry a body; use POST, PUT, PATCH or DELETE");
  }
  if (!request.body.empty() && !has_content_type) {
    const bool is_json = nlohmann::json::accept(request.body);
    request.headers.push_back(is_json ? "Content-Type: application/json" : "Content-Type: text/plain; charset=utf-8");
  }
  KEEL_ASSIGN_OR_RETURN(FetchResponse response, fetcher.fetch(request));

  nlohmann::json out = nlohmann::json::object();
  out["url"] = response.url;
  out["status"] = response.status;
  out["reason"] = response.reason;
  if (response.redirects > 0) out["redirects"] = response.redirects;
  if (response.method != request.method) out["method"] = response.method;
  nlohmann::json shown = nlohmann::json::object();
  for (const auto& [name, value] : response.headers) {
    for (std::string_view wanted : kShownHeaders) {
      if (name == wanted && !shown.contains(name)) shown[name] = value;
    }
  }
  out["headers"] = std::move(shown);

  nlohmann::json notes = nlohmann::json::array();
  const MediaType media = parse_content_type(response.header("content-type"));
  const BodyKind kind = classify_body(media, response.body);
  if (kind == BodyKind::kBinary) {
    out["body"] = "";
    notes.push_back("binary body (" + (media.type.empty() ? std::string("unknown type") : media.type) + ", " +
                    std::to_string(response.body.size()) + (response.truncated ? "+" : "") + " bytes) not shown");
  } else {
    std::string charset = media.charset;
    if (charset.empty() && kind == BodyKind::kHtml) charset = sniff_html_charset(response.body);
    if (response.truncated && !is_windows1252_label(charset)) {
      response.body.resize(utf8_complete_prefix(response.body));
    }
    out["body"] = decode_to_utf8(response.body, charset);
    if (response.truncated) {
      const std::string length = response.header("content-length");
      notes.push_back("body cut at " + std::to_string(fetcher.options().max_output_bytes) +
                      " bytes (max_output_bytes)" + (length.empty() ? "" : "; the full body is " + length + " bytes"));
    }
  }
  if (!notes.empty()) out["notes"] = std::move(notes);
  return compact_json(out);
}

}  // namespace

std::unique_ptr<Tool> make_http_fetch_tool(WebFetcherPtr fetcher) {
  ToolSpec spec;
  spec.name = "http_fetch";
  spec.description =
      "Make an HTTP request (GET, POST, PUT, PATCH, DELETE, HEAD) with optional headers and body; returns the "
      "status, main response headers and the body as text. Use web_fetch to read a web page.";
  spec.parameters_schema = kSchema;
  spec.read_only = false;
  spec.concurrency_safe = false;
  spec.risk = Risk::kMedium;
  spec.timeout_ms = fetcher->options().timeout_ms + 2000;
  spec.cacheable = false;
  return make_tool(std::move(spec), [fetcher = std::move(fetcher)](const nlohmann::json& args,
                                                                  const ToolContext& ctx) -> Result<std::string> {
    return run_http_fetch(*fetcher, args, ctx);
  });
}

}  // namespace keel::detail
