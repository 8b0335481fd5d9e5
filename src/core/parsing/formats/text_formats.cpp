// The formats written as plain text or XML-like tags, most specific first: Functionary v3.1's
// <function=N>{json} before Qwen3-Coder's <function=N><parameter=...>, the two tag-bodied
// <tool_call> families and MiniCPM5's <function name=N><param ...> before Hermes' JSON bodies,
// Llama 3 before Functionary v3.2's >>>, and the whole-reply pythonic list last.
#include "core/parsing/formats/format_groups.hpp"
#include "core/parsing/formats/formats.hpp"

namespace keel::detail {

void append_text_formats(FormatList& out) {
  out.push_back(make_functionary_v31_format());
  out.push_back(make_qwen3_coder_format());
  out.push_back(make_glm45_format());
  out.push_back(make_minicpm5_format());
  out.push_back(make_hermes_format());
  out.push_back(make_llama3_format());
  out.push_back(make_functionary_v32_format());
  out.push_back(make_gemma_format());
  out.push_back(make_pythonic_format());
}

}  // namespace keel::detail
