// A call written as an XML element with named parameters, shared by MiniMax-M2, Step-3, Muse
// Glimmer and MiniCPM5:
//   <invoke name="get_weather"><parameter name="city">Paris</parameter></invoke>
//   <steptml:invoke name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter></steptml:invoke>
//   <function name="get_weather"><param name="city"><![CDATA[Paris]]></param></function>
// Parameter values are untyped text, typed by the tool's JSON Schema (write_typed_parameter);
// string values keep their whitespace. A closing parameter tag inside a value (code, markup) is
// part of it unless the next parameter or the end of the call follows. Whitespace between the
// elements is ignored.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "keel/core/tool_call_format.hpp"

namespace keel::detail {

// The element names of one family: "invoke" and "parameter" with its namespace prefix.
struct XmlInvokeTags {
  std::string_view invoke;        // "<invoke" or "<steptml:invoke"
  std::string_view invoke_close;  // "</invoke>"
  std::string_view param;         // "<parameter"
  std::string_view param_close;   // "</parameter>"
  bool cdata;                     // a value may come as <![CDATA[...]]> (text that holds the closing tag)
};

struct XmlInvokeRead {
  size_t end = 0;        // just past the closing invoke tag (or where reading stopped)
  bool cut_off = false;  // the text ended inside the call
  bool ok = false;       // a call was added to the result
};

// The value of ` name="..."` (or '...') followed by '>' at `pos`; `end` is just past the '>'.
// Empty with end == kNpos when the text ends first (also inside "name="); end == pos when it is
// malformed.
std::string_view xml_name_attribute(std::string_view text, size_t pos, size_t& end);

// Reads the invoke element at text[pos] (which holds tags.invoke) into `out`: its call, or the
// error that explains why it is unusable (with the offset).
XmlInvokeRead read_xml_invoke(std::string_view text, size_t pos, const XmlInvokeTags& tags,
                              std::span<const ToolSpec> tools, FormatResult& out);

}  // namespace keel::detail
