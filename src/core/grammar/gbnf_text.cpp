// GBNF text pieces: rule names, literals, and the shared JSON primitive rules.
#include <array>

#include "core/grammar/gbnf_builder.hpp"

namespace keel::detail {
namespace {

constexpr std::array<GbnfPrimitive, 10> kGbnfPrimitiveTable = {{
    {"value", {"object", "array", "string", "number", "boolean", "null"}},
    {"object", {"ws", "string", "value", "", "", ""}},
    {"array", {"ws", "value", "", "", "", ""}},
    {"string", {"char", "", "", "", "", ""}},
    {"char", {"", "", "", "", "", ""}},
    {"number", {"integer", "", "", "", "", ""}},
    {"integer", {"", "", "", "", "", ""}},
    {"boolean", {"", "", "", "", "", ""}},
    {"null", {"", "", "", "", "", ""}},
    {"ws", {"", "", "", "", "", ""}},
}};

}  // namespace

std::span<const GbnfPrimitive> gbnf_primitives() {
  return kGbnfPrimitiveTable;
}

// The parts joined (appends: chained operator+ on short literals trips GCC 12's -Warray-bounds).
std::string gbnf_cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}
std::string gbnf_primitive_body(std::string_view which, const std::string& p, int64_t string_cap) {
  std::string ws = p + "-ws";
  std::string s;
  if (which == "value") {
    for (std::string_view t : {"object", "array", "string", "number", "boolean", "null"}) {
      if (!s.empty()) s.append(" | ");
      s.append(p);
      s.push_back('-');
      s.append(t);
    }
  } else if (which == "object") {
    std::string member = gbnf_cat({p, "-string ", ws});
    member.append(" \":\" ");
    member.append(ws);
    member.append(" ");
    member.append(p);
    member.append("-value");
    s = "\"{\" " + ws;
    s.append(" ( ");
    s.append(member);
    s.append(" ( ");
    s.append(ws);
    s.append(" \",\" ");
    s.append(ws);
    s.append(" ");
    s.append(member);
    s.append(" )* )? ");
    s.append(ws);
    s.append(" \"}\"");
  } else if (which == "array") {
    s = "\"[\" " + ws;
    s.append(" ( ");
    s.append(p);
    s.append("-value ( ");
    s.append(ws);
    s.append(" \",\" ");
    s.append(ws);
    s.append(" ");
    s.append(p);
    s.append("-value )* )? ");
    s.append(ws);
    s.append(" \"]\"");
  } else if (which == "string") {
    s = "\"\\\"\" " + p;
    s.append(string_cap > 0 ? gbnf_cat({"-char{0,", std::to_string(string_cap), "}"}) : std::string("-char*"));
    s.append(" \"\\\"\"");
  } else if (which == "char") {
    s = R"([^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ))";
  } else if (which == "number") {
    s = p + "-integer";
    s.append(R"( ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,4} )?)");
  } else if (which == "integer") {
    s = R"("-"? ( "0" | [1-9] [0-9]{0,15} ))";
  } else if (which == "boolean") {
    s = R"("true" | "false")";
  } else if (which == "null") {
    s = R"("null")";
  } else if (which == "ws") {
    s = R"(( " " | "\n" [ \t]{0,16} )?)";
  }
  return s;
}
std::string gbnf_name(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
      out.push_back(c);
    } else {
      out.push_back('-');
    }
  }
  return out.empty() ? std::string("r") : out;
}

std::string gbnf_literal(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c == '\r') {
      out.append("\\r");
    } else if (c == '\t') {
      out.append("\\t");
    } else if (u < 0x20 || u == 0x7F) {
      out.append("\\x");
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    } else {
      out.push_back(c);  // UTF-8 passes through: the GBNF parser decodes it
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace keel::detail
