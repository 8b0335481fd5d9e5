// mcp_server/catalog_methods.hpp — the MCP methods a server answers from its catalogs:
// resources/list, resources/templates/list, resources/read, prompts/list, prompts/get and
// completion/complete. The first catalog that knows a URI, prompt or reference answers it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>

#include "keel/core/secret_redactor.hpp"
#include "keel/result.hpp"
#include "mcp_server/server_catalog.hpp"

namespace keel::mcp {

using Catalogs = std::span<const std::shared_ptr<const ServerCatalog>>;

// The JSON-RPC response to `method` (a result or an error naming what was wrong), or nullopt
// when `method` is not one of the catalog methods. The values of known secrets in what a resource
// or prompt says are replaced by `redactor` (nullptr: none), as in tool results.
std::optional<nlohmann::json> answer_catalog_method(const std::string& method, const nlohmann::json& id,
                                                    const nlohmann::json& params, Catalogs catalogs,
                                                    const SecretRedactor* redactor = nullptr);

// The version of `uri` (ServerCatalog::resource_version) from the first catalog that knows it.
Result<std::string> catalog_resource_version(Catalogs catalogs, const std::string& uri);

}  // namespace keel::mcp
