// cli/oauth_browser_sign_in.hpp — the person's part of an MCP server's OAuth sign-in (`keel mcp
// login`): the authorization URL is printed for them to open in a browser (on this machine or, with
// the port forwarded, another), and the browser's return to the loopback redirect URI is received
// by a one-request HTTP listener on that address.
#pragma once

#include <chrono>
#include <stop_token>
#include <string>

#include "keel/result.hpp"

namespace keel::cli {

// Listens on `redirect_uri` (http on 127.0.0.1, localhost or [::1], with a port), prints
// `authorization_url` on stderr, and returns the full URL the browser came back to (with code
// and state). InvalidArgument for a redirect URI that is not a loopback http URL; Unavailable when
// its port cannot be bound; DeadlineExceeded after `timeout`; Cancelled on `stop`.
Result<std::string> sign_in_through_browser(const std::string& server_name, const std::string& authorization_url,
                                            const std::string& redirect_uri, std::chrono::seconds timeout,
                                            std::stop_token stop);

}  // namespace keel::cli
