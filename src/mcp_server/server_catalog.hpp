// mcp_server/server_catalog.hpp — what an MCP server offers besides keel's registry tools:
// resources, resource templates, prompts, argument completions and tools of its own that use the
// session's channel back to the client (progress, log messages, sampling, elicitation).
//
// KeelMcpServer asks each catalog in turn: the first that knows a URI or prompt name answers it
// (a catalog that does not returns NotFound). keel's own catalog (keel_catalog.hpp) serves the
// workspace's sessions, memory notes, files and knowledge skills; the conformance suite's fixtures
// are another catalog on the same interfaces.
//
// Thread-safety: a catalog's members are called from any number of session threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::mcp {

// A resource as resources/list shows it.
struct ResourceEntry {
  std::string uri;
  std::string name;
  std::string title;        // "" when none
  std::string description;  // "" when none
  std::string mime_type;    // "" when unknown
  int64_t size = -1;        // bytes; -1 when unknown
};

// A resource template (RFC 6570 level 1: `{name}` for one path segment, `{+name}` for a path).
struct ResourceTemplateEntry {
  std::string uri_template;
  std::string name;
  std::string title;
  std::string description;
  std::string mime_type;
};

struct PromptArgumentEntry {
  std::string name;
  std::string description;
  bool required = false;
};

struct PromptEntry {
  std::string name;
  std::string title;
  std::string description;
  std::vector<PromptArgumentEntry> arguments;
};

// A completion/complete request: the argument being typed of a prompt or a resource template.
struct CompletionQuery {
  bool is_prompt = true;  // false: a resource template
  std::string ref;        // the prompt's name, or the template's URI template
  std::string argument;   // the argument's name
  std::string value;      // what has been typed so far
  std::map<std::string, std::string> context;  // arguments already chosen
};

class ServerCatalog {
 public:
  virtual ~ServerCatalog() = default;

  virtual std::vector<ResourceEntry> resources() const { return {}; }
  virtual std::vector<ResourceTemplateEntry> resource_templates() const { return {}; }
  // resources/read's `contents` array ([{uri, mimeType, text}] or [{uri, mimeType, blob}]).
  // NotFound: not this catalog's URI (or no such resource); other errors are the reader's.
  virtual Result<nlohmann::json> read_resource(const std::string& uri) const {
    return Status::NotFound("unknown resource " + uri);
  }
  // A value that changes whenever the resource's contents change (modification time and size, a
  // row count): subscriptions compare it to notice updates. NotFound as for read_resource.
  virtual Result<std::string> resource_version(const std::string& uri) const {
    return Status::NotFound("unknown resource " + uri);
  }

  virtual std::vector<PromptEntry> prompts() const { return {}; }
  // prompts/get's `messages` array. NotFound: not this catalog's prompt; InvalidArgument: a
  // required argument is missing or a value is not acceptable.
  virtual Result<nlohmann::json> get_prompt(const std::string& name,
                                            const std::map<std::string, std::string>& arguments) const {
    (void)arguments;
    return Status::NotFound("unknown prompt " + name);
  }

  // prompts/get when the request may carry the answers of a multi round-trip request (the
  // 2026-07-28 revision's `inputResponses`, null when none): the `messages` array as get_prompt
  // gives it, or a whole InputRequiredResult object asking the client for input first.
  virtual Result<nlohmann::json> get_prompt_for(const std::string& name,
                                                const std::map<std::string, std::string>& arguments,
                                                const nlohmann::json& input_responses) const {
    (void)input_responses;
    return get_prompt(name, arguments);
  }

  // Values for the argument being typed, best first; NotFound when the prompt or template is not
  // this catalog's.
  virtual Result<std::vector<std::string>> complete(const CompletionQuery& query) const {
    return Status::NotFound("unknown reference " + query.ref);
  }
};

// What a server tool may do while it runs, on the session of the call.
class CallContext {
 public:
  virtual ~CallContext() = default;
  // notifications/progress with the request's progress token; nothing when the client sent none.
  virtual void progress(double progress, std::optional<double> total, const std::string& message) = 0;
  // notifications/message at `level` (debug ... emergency), unless below the session's level.
  virtual void log(std::string_view level, const nlohmann::json& data) = 0;
  // Sends a request to the client (sampling/createMessage, elicitation/create, roots/list) and
  // waits for its answer: the result object, or an error: FailedPrecondition when the client did
  // not declare the capability the method needs, DeadlineExceeded after `timeout`, Cancelled when
  // the call is cancelled, Aborted carrying the client's error message.
  virtual Result<nlohmann::json> ask_client(const std::string& method, const nlohmann::json& params,
                                            std::chrono::milliseconds timeout) = 0;
  // The capabilities the client declared in initialize ({} before).
  virtual nlohmann::json client_capabilities() const = 0;
  // Requested when the client cancels the call.
  virtual std::stop_token stop() const = 0;

  // The 2026-07-28 revision's multi round-trip requests: a call there cannot send the client a
  // request; it returns an InputRequiredResult ({resultType: "input_required", inputRequests,
  // requestState}) and the client calls again with `inputResponses` and the `requestState` it was
  // given. These are that retry's values (null and "" on a first call and in the handshake
  // revisions); `requestState` came through the client, so a tool verifies it before trusting it.
  virtual nlohmann::json input_responses() const { return nullptr; }
  virtual std::string request_state() const { return {}; }
  // True when the call came in the stateless revision (no session, no requests to the client).
  virtual bool stateless() const { return false; }
  // Answers the call with a JSON-RPC error instead of the tool's result (the stateless revision's
  // MissingRequiredClientCapabilityError, -32021, for one); the tool's return value is dropped.
  virtual void reject(int code, const std::string& message, nlohmann::json data) {
    (void)code;
    (void)message;
    (void)data;
  }
};

// A tool the server implements itself, answering with any MCP content. `definition` is the tool
// as tools/list shows it ({name, description, inputSchema, ...}); `call` returns the tools/call
// result ({content, isError, structuredContent}).
struct ServerTool {
  nlohmann::json definition;
  std::function<nlohmann::json(const nlohmann::json& arguments, CallContext& context)> call;
};

// Expands a URI template's variables: `test://template/{id}/data` matched against
// `test://template/123/data` gives {id: "123"}. `{name}` matches one segment (no '/'), `{+name}` any
// text. nullopt when the URI does not match.
std::optional<std::map<std::string, std::string>> match_uri_template(std::string_view uri_template,
                                                                     std::string_view uri);

}  // namespace keel::mcp
