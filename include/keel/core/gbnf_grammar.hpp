// keel/core/gbnf_grammar.hpp — GBNF grammars (llama.cpp's grammar dialect) that constrain a local
// model's sampling: to valid tool calls in its family's syntax, or to one JSON value matching a
// schema (structured output).
//
//   auto g = keel::tool_call_grammar(tools, keel::call_syntax(family), keel::ToolChoice::kAuto);
//   if (!g.ok()) return g.status();
//   // llama_sampler_init_grammar_lazy_patterns(vocab, g->gbnf.c_str(), "root", g->triggers...)
//
// Whitespace, digits and calls per reply are bounded, so a model cannot loop inside the structure;
// strings are bounded only by the schema (a grammar that closed them early would cut content
// silently), so a reply that runs out of tokens inside one is reported as cut off.
//
// Thread-safety: pure functions; safe to call concurrently.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/chat_template.hpp"
#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// GBNF rules for one JSON value. `text` holds one rule per line ("name ::= body"), every rule
// named `prefix` or `prefix-...`, so the rules of several schemas can share one grammar; `root`
// is the rule for the value (the prefix itself). Rule names are lowercase letters, digits and
// dashes: other characters of `prefix` become dashes.
struct GbnfRules {
  std::string text;
  std::string root;
};

// The rules accepting the JSON values that match `schema` (JSON Schema text).
// Supported: type (string, number, integer, boolean, null, object, array, and type lists),
// properties, required (required ones first in declared order, then the optional ones, each
// optional, in declared order), additionalProperties (with properties: only the declared ones;
// without: false gives {}, a schema gives a map of such values), enum, const, items,
// minItems / maxItems, anyOf / oneOf, string minLength / maxLength, $ref to #/definitions/... or
// #/$defs/.... Other keywords (pattern, format, minimum, multipleOf, allOf, remote $ref, ...) are
// ignored for the value they constrain. Errors (kInvalidArgument): text that is not JSON, a
// schema that is not an object or boolean, the schema false, or a $ref that names no definition.
Result<GbnfRules> json_schema_gbnf(std::string_view schema, std::string_view prefix);

// Whether a model may answer in prose or must call a tool.
enum class ToolChoice {
  kAuto,      // free text, or calls: the grammar applies from the call syntax's `open` on
  kRequired,  // the whole reply is calls
};

// A whole grammar and how to apply it.
struct ToolGrammar {
  std::string gbnf;                   // a complete grammar whose start rule is `root`
  std::vector<std::string> triggers;  // literal words that start the grammar lazily (kAuto); empty: not lazy
};

// A grammar that makes a model write one or more calls (at most 16) to `tools` in `syntax`, each
// {"name": "<one of the tools>", "<arguments_key>": <that tool's parameters_schema>}, exactly the
// text render_tool_calls() writes, with bounded whitespace wherever JSON allows it.
// kAuto: the grammar starts at syntax.open (its only trigger), the text before it is free;
// kRequired: not lazy, the output is calls only.
// Errors (kInvalidArgument): no tools, an empty syntax.open, or a tool schema that
// json_schema_gbnf rejects (the message names the tool).
// max_calls (1..16) bounds the calls of one reply. max_string_chars > 0 closes every string the
// schema leaves unbounded after that many characters: it bounds a small model that loops inside a
// string, at the price of cutting longer values (0, the default: no limit).
Result<ToolGrammar> tool_call_grammar(std::span<const ToolSpec> tools, const CallSyntax& syntax, ToolChoice choice,
                                      int max_calls = 16, int64_t max_string_chars = 0);

// A grammar for a reply that is exactly one JSON value matching `schema` (a few whitespace
// characters allowed around it). Errors: those of json_schema_gbnf.
Result<std::string> json_output_grammar(std::string_view schema, int64_t max_string_chars = 0);

}  // namespace keel
