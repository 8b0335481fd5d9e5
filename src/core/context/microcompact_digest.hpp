// Microcompact digests: an old tool result shrunk to one deterministic line, without a model call.
//
//   "[fs_read → # keel — an LLM agent runtime]"           status "ok"
//   "[shell → error: command not found: rg]"             any other status
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "keel/message.hpp"

namespace keel::detail {

// "[tool_name → key output]" where the key output is the first non-empty line of `content`,
// whitespace-collapsed and cut at a word boundary to `max_chars` code points with "…"; results
// that are not ok read "[tool_name → error: first line]" (no second "error:" when the line
// already starts with one). An empty result reads "(empty)".
std::string make_digest(std::string_view tool_name, bool ok, std::string_view content, size_t max_chars);
// The same digest, written into `out` (replacing its contents, reusing its capacity).
void write_digest(std::string& out, std::string_view tool_name, bool ok, std::string_view content, size_t max_chars);

// Whether the pipeline already rewrote this message (digest, summary).
bool is_compacted(const Message& m);

// Replaces a tool message's content by its digest and marks it (metadata "compacted"="digest").
// Returns false, changing nothing, when it is not a tool message or was
// already compacted: digesting is idempotent.
bool digest_message(Message& m, size_t max_chars);

}  // namespace keel::detail
