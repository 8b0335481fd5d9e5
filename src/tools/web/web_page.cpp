// Page fetching and status mapping for the reading tools; see web_page.hpp.
#include "tools/web/web_page.hpp"

#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

Status status_error(const FetchResponse& r, std::string_view tool) {
  std::string message = std::string(tool) + ": GET " + r.url + " returned HTTP " + std::to_string(r.status);
  if (!r.reason.empty()) message += " " + r.reason;
  const long s = r.status;
  if (s >= 300 && s < 400) {
    const std::string location = r.header("location");
    return Status::FailedPrecondition(message + (location.empty() ? "" : " (to " + location + ")") +
                                      "; the redirect was not followed (max_redirects)");
  }
  if (s == 404 || s == 410) return Status::NotFound(message);
  if (s == 401) return Status::Unauthenticated(message + "; the page needs credentials (http_fetch can send headers)");
  if (s == 403) return Status::PermissionDenied(message);
  if (s == 429 || s >= 500) {
    const std::string retry = r.header("retry-after");
    return Status::Unavailable(message + (retry.empty() ? "" : " (Retry-After: " + retry + ")"));
  }
  return Status::InvalidArgument(message);
}

}  // namespace

Result<WebPage> fetch_page(const WebFetcher& fetcher, const std::string& url, std::stop_token stop,
                           std::string_view tool) {
  FetchRequest request;
  request.url = url;
  request.method = "GET";
  request.headers = {"Accept: text/html,application/xhtml+xml;q=0.9,text/*;q=0.8,*/*;q=0.5"};
  request.max_body_bytes = fetcher.options().max_response_bytes;
  request.stop = std::move(stop);
  KEEL_ASSIGN_OR_RETURN(FetchResponse response, fetcher.fetch(request));
  if (response.status < 200 || response.status >= 300) return status_error(response, tool);

  WebPage page;
  page.url = response.url;
  page.bytes = response.body.size();
  page.truncated = response.truncated;
  const MediaType media = parse_content_type(response.header("content-type"));
  page.media_type = media.type;
  page.kind = classify_body(media, response.body);
  if (page.kind == BodyKind::kBinary) {
    return Status::InvalidArgument(std::string(tool) + ": " + page.url + " is " +
                                   (media.type.empty() ? std::string("binary data") : media.type) + " (" +
                                   std::to_string(page.bytes) + (page.truncated ? "+" : "") +
                                   " bytes), not HTML or text; " + std::string(tool) + " reads only web pages and text");
  }
  std::string charset = media.charset;
  if (charset.empty() && page.kind == BodyKind::kHtml) charset = sniff_html_charset(response.body);
  // A body cut at the byte limit may end inside a UTF-8 sequence; drop the piece rather than show U+FFFD.
  if (page.truncated && !is_windows1252_label(charset)) response.body.resize(utf8_complete_prefix(response.body));
  page.text = decode_to_utf8(response.body, charset);
  return page;
}

Status require_html(const WebPage& page, std::string_view tool) {
  if (page.kind == BodyKind::kHtml) return Status::Ok();
  return Status::InvalidArgument(std::string(tool) + " needs an HTML page; " + page.url + " is " +
                                 (page.media_type.empty() ? std::string("plain text") : page.media_type) +
                                 " (web_fetch returns such pages as text)");
}

std::string truncation_note(const WebPage& page) {
  if (!page.truncated) return "";
  return "[only the first " + std::to_string(page.bytes) +
         " bytes of the page were read (max_response_bytes); the rest is not included]";
}

}  // namespace keel::detail
