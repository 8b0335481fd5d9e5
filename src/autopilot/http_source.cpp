// An http source: a URL polled with If-None-Match / If-Modified-Since, so an unchanged resource
// costs a 304. A feed (RSS or Atom, by its content type or its first element) gives one
// observation per item, fingerprinted by the item's id; anything else is one page whose
// observation is fingerprinted by the body's hash. A feed that does not parse, an error status
// or a refused connection is this source's error; the others keep running.
#include "autopilot/observation_source.hpp"
#include "core/text/feed_items.hpp"
#include "core/text/text_util.hpp"
#include "core/text/utf8_text.hpp"
#include "net/http_transport.hpp"

namespace keel::detail {
namespace {

constexpr int64_t kHttpEveryMs = 60000;
constexpr size_t kMaxBodyBytes = 4u << 20;
constexpr size_t kMaxPageText = 64u << 10;

bool looks_like_feed(std::string_view content_type, std::string_view body) {
  const std::string type = lowercase(content_type);
  if (type.find("rss") != std::string::npos || type.find("atom") != std::string::npos ||
      type.find("/xml") != std::string::npos || type.find("+xml") != std::string::npos) {
    return true;
  }
  size_t i = body.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (i == std::string_view::npos) return false;
  std::string_view head = body.substr(i, 64);
  return head.rfind("<?xml", 0) == 0 || head.rfind("<rss", 0) == 0 || head.rfind("<feed", 0) == 0 ||
         head.rfind("<rdf:RDF", 0) == 0;
}

class HttpSource final : public ObservationSource {
 public:
  explicit HttpSource(const AutopilotSourceConfig& config)
      : ObservationSource(config), clock_(config.every_ms > 0 ? config.every_ms : kHttpEveryMs) {}

  bool due(int64_t now_ms) const override { return clock_.due(now_ms); }

  Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token stop) override {
    clock_.polled(now_ms);
    HttpRequest req;
    req.method = "GET";
    req.url = config().url;
    req.target = config().url;
    req.headers = {"Accept: application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.8"};
    if (!etag_.empty()) req.headers.push_back("If-None-Match: " + etag_);
    if (!last_modified_.empty()) req.headers.push_back("If-Modified-Since: " + last_modified_);
    req.capture_headers = {"etag", "last-modified"};
    req.connect_timeout_ms = config().timeout_ms;
    req.total_timeout_ms = config().timeout_ms;
    req.total_timeout_name = "timeout_ms";
    req.stop = stop;
    std::string body;
    bool too_big = false;
    req.on_body = [&](const HttpHead&, std::string_view chunk) {
      if (body.size() + chunk.size() > kMaxBodyBytes) {
        too_big = true;
        return false;
      }
      body.append(chunk);
      return true;
    };
    HttpOutcome out = session_.perform(req);
    if (too_big) return Status::ResourceExhausted(config().url + " sent more than 4 MiB");
    if (out.end != HttpEnd::kCompleted) {
      return out.error.ok() ? Status::Unavailable("GET " + config().url + " did not complete") : out.error;
    }
    if (out.head.status == 304) return std::vector<Finding>{};
    if (out.head.status < 200 || out.head.status > 299) {
      return Status::Unavailable("GET " + config().url + " answered HTTP " + std::to_string(out.head.status));
    }
    etag_ = std::string(out.head.header("etag"));
    last_modified_ = std::string(out.head.header("last-modified"));
    if (looks_like_feed(out.head.content_type, body)) return feed_findings(body);
    return page_findings(body, out.head.content_type);
  }

 private:
  Result<std::vector<Finding>> feed_findings(const std::string& body) {
    Result<Feed> feed = parse_feed(body);
    if (!feed.ok()) return Status::InvalidArgument(config().url + ": " + feed.status().message());
    std::vector<Finding> out;
    for (const FeedItem& item : feed->items) {
      Finding f;
      f.fingerprint = "item:" + sha256_hex(item.id.empty() ? item.link + item.title : item.id);
      f.kind = "feed";
      f.subject = item.title.empty() ? item.link : item.title;
      f.payload = {{"feed", config().url}, {"feed_title", feed->title}, {"id", item.id}, {"title", item.title},
                   {"link", item.link}, {"published", item.published}, {"summary", item.summary}};
      out.push_back(std::move(f));
    }
    return out;
  }

  std::vector<Finding> page_findings(const std::string& body, const std::string& content_type) {
    Finding f;
    f.fingerprint = "page:" + sha256_hex(body);
    f.kind = "http";
    f.subject = config().url;
    f.payload = {{"url", config().url}, {"content_type", content_type}, {"size", body.size()}};
    if (!looks_binary(body.substr(0, 512))) {
      f.payload["text"] = sanitize_utf8(std::string_view(body).substr(0, utf8_cut_length(body, kMaxPageText)));
    }
    return {std::move(f)};
  }

  PollClock clock_;
  HttpSession session_;
  std::string etag_;
  std::string last_modified_;
};

}  // namespace

std::unique_ptr<ObservationSource> make_http_source(const AutopilotSourceConfig& config) {
  return std::make_unique<HttpSource>(config);
}

}  // namespace keel::detail
