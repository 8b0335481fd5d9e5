// server/http_wire.hpp — the bytes of a response: status line and headers with the framing the
// server chose, and chunked-encoding frames.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "server/http_request.hpp"

namespace keel::server::detail {

// How the body after the head is delimited.
enum class BodyFraming {
  kContentLength,  // a whole body of known size
  kChunked,        // a stream, HTTP/1.1
  kUntilClose,     // a stream to an HTTP/1.0 client: the body ends when the connection does
};

// "HTTP/1.1 200 OK\r\n" + `headers` + framing headers + "\r\n". Handler headers named
// Content-Length, Transfer-Encoding or Connection are dropped (the server owns framing), as are
// headers with a malformed name or a CR, LF or NUL in the value (no header injection).
// `connection` is the Connection header to send ("close", "keep-alive" or "" for none).
// 1xx, 204 and 304 responses get no Content-Length.
std::string response_head(int status, const HttpHeaders& headers, BodyFraming framing, size_t content_length,
                          std::string_view connection);

// True when the handler's headers ask to close the connection ("Connection: close").
bool asks_to_close(const HttpHeaders& headers);

// One chunk of a chunked body: "<hex size>\r\n<data>\r\n"; `data` must not be empty.
std::string chunk_frame(std::string_view data);

// The zero-size chunk that ends a chunked body.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

// A status without a body by definition (1xx, 204, 304).
bool status_has_no_body(int status);

}  // namespace keel::server::detail
