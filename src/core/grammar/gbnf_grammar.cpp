// The public grammar builders: one schema's rules, the tool-call grammar, the JSON-output grammar.
#include "keel/core/gbnf_grammar.hpp"

#include <algorithm>

#include "core/grammar/gbnf_builder.hpp"

namespace keel {
namespace {

constexpr int kGrammarMaxToolCalls = 16;  // calls one reply may hold

using detail::gbnf_cat;

}  // namespace

Result<GbnfRules> json_schema_gbnf(std::string_view schema, std::string_view prefix) {
  std::string name = detail::gbnf_name(prefix.empty() ? std::string_view("schema") : prefix);
  detail::GbnfBuilder b(name);
  KEEL_ASSIGN_OR_RETURN(std::string root, b.add_schema(schema, name));
  GbnfRules out;
  out.text = b.text();
  out.root = std::move(root);
  return out;
}

Result<ToolGrammar> tool_call_grammar(std::span<const ToolSpec> tools, const CallSyntax& syntax, ToolChoice choice,
                                      int max_calls, int64_t max_string_chars) {
  if (tools.empty()) {
    return Status::InvalidArgument("a tool-call grammar needs at least one tool; pass the tools the model may call");
  }
  if (syntax.trigger().empty()) {
    return Status::InvalidArgument("the call syntax has no opening text; use keel::call_syntax(family)");
  }
  detail::GbnfBuilder b("json");
  b.set_string_cap(max_string_chars);
  const std::string w = b.ws();
  const std::string comma = gbnf_cat({" ", w, " \",\" ", w, " "});
  const std::string key = detail::gbnf_literal(gbnf_cat({"\"", syntax.arguments_key, "\""}));
  std::string calls;
  for (size_t i = 0; i < tools.size(); ++i) {
    const ToolSpec& t = tools[i];
    Result<std::string> args = b.add_schema(t.parameters_schema, gbnf_cat({"tool", std::to_string(i), "-", t.name}));
    if (!args.ok()) {
      return Status::InvalidArgument(gbnf_cat({"tool '", t.name, "': ", args.status().message()}));
    }
    // The name is JSON-escaped like any string the model writes.
    std::string name_json = "\"";
    for (char c : t.name) {
      if (c == '"' || c == '\\') name_json.push_back('\\');
      name_json.push_back(c);
    }
    name_json.push_back('"');
    std::string body;
    if (syntax.name_first) {
      // The template's own text around the name and after the arguments, exactly.
      body = gbnf_cat({detail::gbnf_literal(syntax.open + t.name + syntax.name_close), " ", *args});
      if (!syntax.close.empty()) body = gbnf_cat({body, " ", detail::gbnf_literal(syntax.close)});
    } else {
      std::string name_member = gbnf_cat({"\"\\\"name\\\"\" ", w, " \":\" ", w, " ", detail::gbnf_literal(name_json)});
      std::string args_member = gbnf_cat({key, " ", w, " \":\" ", w, " ", *args});
      body = gbnf_cat({"\"{\" ", w, " ", name_member, comma, args_member, " ", w, " \"}\""});
    }
    std::string call = b.add_rule(gbnf_cat({"call-", std::to_string(i)}), std::move(body));
    if (!calls.empty()) calls.append(" | ");
    calls.append(call);
  }
  const std::string call = b.add_rule("call", std::move(calls));
  const int cap = std::clamp(max_calls, 1, kGrammarMaxToolCalls);
  const std::string more = gbnf_cat({"{0,", std::to_string(cap - 1), "}"});
  const std::string open = detail::gbnf_literal(syntax.open);
  const std::string close =
      syntax.close.empty() ? std::string() : gbnf_cat({" ", w, " ", detail::gbnf_literal(syntax.close)});
  std::string root;
  const std::string around_open = syntax.calls_open.empty() ? "" : detail::gbnf_literal(syntax.calls_open) + " ";
  // calls_close is not required: once the calls are complete the model ends its turn, and the
  // text that closes the list may be an end-of-turn token the sampler handles as such.
  const std::string around_close;
  if (syntax.name_first) {
    root = gbnf_cat({around_open, call, " ( ", w, " ", call, " )", more, around_close});
  } else if (syntax.list) {
    root = gbnf_cat({open, " ", w, " \"[\" ", w, " ", call, " ( ", w, " \",\" ", w, " ", call, " )", more, " ", w,
                     " \"]\"", close});
  } else {
    std::string block = b.add_rule("block", gbnf_cat({open, " ", w, " ", call, close}));
    root = gbnf_cat({around_open, block, " ( ", w, " ", block, " )", more, around_close});
  }
  ToolGrammar out;
  out.gbnf = gbnf_cat({"root ::= ", root, "\n", b.text()});
  if (choice == ToolChoice::kAuto) out.triggers.push_back(syntax.trigger());
  return out;
}

Result<std::string> json_output_grammar(std::string_view schema, int64_t max_string_chars) {
  detail::GbnfBuilder b("json");
  b.set_string_cap(max_string_chars);
  KEEL_ASSIGN_OR_RETURN(std::string value, b.add_schema(schema, "value"));
  const std::string w = b.ws();
  return gbnf_cat({"root ::= ", w, " ", value, " ", w, "\n", b.text()});
}

}  // namespace keel
