// Formats marked by special tokens, in auto-detection priority order.
#include "core/parsing/formats/format_groups.hpp"
#include "core/parsing/formats/formats.hpp"

namespace keel::detail {

void append_special_token_formats(FormatList& out) {
  out.push_back(make_harmony_format());
  out.push_back(make_deepseek_format());
  out.push_back(make_kimi_k2_format());
  out.push_back(make_command_r7b_format());
  out.push_back(make_granite_format());
  out.push_back(make_mistral_format());
  out.push_back(make_firefunction_format());
}

}  // namespace keel::detail
