// The web UI's static files, confined to their folder and sent with a strict Content Security
// Policy so that nothing but this origin's scripts can run in the page.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/api_server.hpp"
#include "server/http_status.hpp"

namespace keel::api {
namespace {

constexpr const char* kCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

std::string content_type(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".json") return "application/json";
  return "application/octet-stream";
}

void send_file(const std::filesystem::path& root, const std::string& relative, server::HttpResponder& out) {
  std::error_code ec;
  std::filesystem::path wanted = std::filesystem::weakly_canonical(root / relative, ec);
  std::string base = root.string();
  bool inside = !ec && wanted.string().rfind(base + "/", 0) == 0;
  if (!inside || relative.find("..") != std::string::npos || !std::filesystem::is_regular_file(wanted, ec)) {
    server::respond_error(out, 404, "no such file: /" + relative);
    return;
  }
  std::ifstream in(wanted, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  if (!in && !in.eof()) {
    server::respond_error(out, 500, "cannot read " + relative);
    return;
  }
  out.respond(200,
              {{"Content-Type", content_type(wanted)},
               {"Content-Security-Policy", kCsp},
               {"X-Content-Type-Options", "nosniff"},
               {"Referrer-Policy", "no-referrer"},
               {"Cache-Control", "no-cache"}},
              body.str());
}

}  // namespace

void mount_web_ui(server::HttpServer& http, const std::string& web_dir) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::weakly_canonical(web_dir, ec);
  if (ec) root = web_dir;
  http.route("GET", "/", [root](const server::HttpRequest&, std::shared_ptr<server::HttpResponder> out) {
    send_file(root, "index.html", *out);
  });
  http.route("GET", "/ui/*", [root](const server::HttpRequest& req, std::shared_ptr<server::HttpResponder> out) {
    send_file(root, req.path.substr(4), *out);
  });
}

}  // namespace keel::api
