// Formats marked by special tokens, in auto-detection priority order.
#include "core/parsing/formats/format_groups.hpp"
#include "core/parsing/formats/formats.hpp"

namespace keel::detail {

void append_special_token_formats(FormatList& out) {
  // Before harmony, whose <|start|> and <|message|> it writes too: its answers and reasoning are
  // messages to `user` and `self`, which harmony would keep with Muse's end tokens in them.
  out.push_back(make_muse_glimmer_format());
  out.push_back(make_harmony_format());
  out.push_back(make_deepseek_format());
  out.push_back(make_kimi_k2_format());
  out.push_back(make_command_r7b_format());
  out.push_back(make_granite_format());
  out.push_back(make_mistral_format());
  out.push_back(make_firefunction_format());
  // Families marked by their own tokens or tags (none of them shares a marker with another).
  out.push_back(make_step3_format());
  out.push_back(make_minimax_m2_format());
  out.push_back(make_minimax_m3_format());
  out.push_back(make_kimi_k3_format());
  out.push_back(make_solar_open_format());
  out.push_back(make_seed_oss_format());
  out.push_back(make_gemma4_format());
  out.push_back(make_lfm2_format());
  out.push_back(make_internlm2_format());
  out.push_back(make_tool_calls_format());
  out.push_back(make_hy_v3_format());
  out.push_back(make_nemotron_format());
  out.push_back(make_apertus_format());
  out.push_back(make_longcat_format());
  out.push_back(make_olmo3_format());
}

}  // namespace keel::detail
