#include "api/api_routes.hpp"

namespace keel::api {

void reply_json(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, int status,
                const nlohmann::json& body) {
  server::respond_json(out, status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                       cors_headers(req, ctx.access));
}

void reply_json(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, int status,
                const nlohmann::ordered_json& body) {
  server::respond_json(out, status, body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                       cors_headers(req, ctx.access));
}

void reply_error(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, int status,
                 std::string_view code, std::string_view message) {
  respond_api_error(out, status, code, message, cors_headers(req, ctx.access));
}

void reply_status(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, const Status& status,
                  std::string_view code) {
  int http = 500;
  std::string_view fallback = "internal";
  switch (status.code()) {
    case ErrorCode::kNotFound: http = 404; fallback = "not_found"; break;
    case ErrorCode::kInvalidArgument: http = 400; fallback = "bad_request"; break;
    case ErrorCode::kFailedPrecondition: http = 409; fallback = "conflict"; break;
    case ErrorCode::kUnavailable: http = 503; fallback = "unavailable"; break;
    default: break;
  }
  reply_error(ctx, req, out, http, code.empty() ? fallback : code, status.message());
}

std::optional<nlohmann::json> read_json_body(const ApiContext& ctx, const server::HttpRequest& req,
                                             server::HttpResponder& out) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json::object();
  nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
  if (body.is_discarded()) {
    reply_error(ctx, req, out, 400, "bad_request", "the body is not valid JSON");
    return std::nullopt;
  }
  if (!body.is_object()) {
    reply_error(ctx, req, out, 400, "bad_request", "the body must be a JSON object");
    return std::nullopt;
  }
  return body;
}

std::optional<std::string> string_field(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out,
                                        const nlohmann::json& body, const char* name, bool required,
                                        std::string fallback) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) {
    if (!required) return fallback;
    reply_error(ctx, req, out, 400, "bad_request", std::string("the body needs a string field '") + name + "'");
    return std::nullopt;
  }
  if (!it->is_string()) {
    reply_error(ctx, req, out, 400, "bad_request", std::string("'") + name + "' must be a string");
    return std::nullopt;
  }
  return it->get<std::string>();
}

std::vector<std::string> path_parts(std::string_view path, std::string_view prefix) {
  std::vector<std::string> parts;
  if (path.substr(0, prefix.size()) != prefix) return parts;
  path.remove_prefix(prefix.size());
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

void reply_method_not_allowed(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out,
                              std::string_view allow) {
  server::HttpHeaders headers = cors_headers(req, ctx.access);
  headers.emplace_back("Allow", std::string(allow));
  respond_api_error(out, 405, "method_not_allowed",
                    "use " + std::string(allow) + " on " + req.path + ", not " + req.method, std::move(headers));
}

}  // namespace keel::api
