// Factories of the built-in tool-call formats (one file per family in src/core/parsing/formats/).
#pragma once

#include <memory>

#include "keel/core/tool_call_format.hpp"

namespace keel::detail {

std::unique_ptr<ToolCallFormat> make_json_format();             // bare / fenced JSON, arrays, {"tool": ...}
std::unique_ptr<ToolCallFormat> make_hermes_format();           // <tool_call>{json}</tool_call> (Hermes, Qwen2.5)
std::unique_ptr<ToolCallFormat> make_qwen3_coder_format();      // <tool_call><function=N><parameter=K>v</parameter></function></tool_call>
std::unique_ptr<ToolCallFormat> make_glm45_format();            // <tool_call>N<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>
std::unique_ptr<ToolCallFormat> make_llama3_format();           // <|python_tag|>, {"name", "parameters"}, built-in tool calls
std::unique_ptr<ToolCallFormat> make_pythonic_format();         // [f(a=1), g()]
std::unique_ptr<ToolCallFormat> make_functionary_v31_format();  // <function=N>{json}</function>
std::unique_ptr<ToolCallFormat> make_functionary_v32_format();  // >>>N\n{json}
std::unique_ptr<ToolCallFormat> make_gemma_format();            // ```tool_code\nf(a=1)\n```
std::unique_ptr<ToolCallFormat> make_mistral_format();          // [TOOL_CALLS][...] and [TOOL_CALLS]N[ARGS]{...}
std::unique_ptr<ToolCallFormat> make_firefunction_format();     // functools[...]
std::unique_ptr<ToolCallFormat> make_command_r7b_format();      // <|START_ACTION|>[...]<|END_ACTION|>
std::unique_ptr<ToolCallFormat> make_deepseek_format();         // DeepSeek R1 / V3 token sections, V3.2 / V4 DSML
std::unique_ptr<ToolCallFormat> make_harmony_format();          // GPT-OSS harmony channels
std::unique_ptr<ToolCallFormat> make_granite_format();          // <|tool_call|>[...]
std::unique_ptr<ToolCallFormat> make_kimi_k2_format();          // Kimi-K2 tool-call sections
std::unique_ptr<ToolCallFormat> make_tool_calls_format();       // <tool_calls>[...]</tool_calls> (Jamba, Hunyuan, MiniMax-M1)
std::unique_ptr<ToolCallFormat> make_hy_v3_format();            // <tool_calls><tool_call>N<tool_sep><arg_key>k</arg_key>...
std::unique_ptr<ToolCallFormat> make_minimax_m2_format();       // <minimax:tool_call><invoke name=..><parameter name=..>
std::unique_ptr<ToolCallFormat> make_step3_format();            // Step-3 tool-call tokens around <steptml:invoke>
std::unique_ptr<ToolCallFormat> make_internlm2_format();        // <|action_start|><|plugin|>{json}<|action_end|>
std::unique_ptr<ToolCallFormat> make_apertus_format();          // <|tools_prefix|>[{"NAME": {...}}]<|tools_suffix|>
std::unique_ptr<ToolCallFormat> make_longcat_format();          // <longcat_tool_call>{json}</longcat_tool_call>
std::unique_ptr<ToolCallFormat> make_olmo3_format();            // <function_calls>f(a=1)\ng()</function_calls>
std::unique_ptr<ToolCallFormat> make_nemotron_format();         // <TOOLCALL>[...]</TOOLCALL>
std::unique_ptr<ToolCallFormat> make_gemma4_format();           // <|tool_call>call:N{k:v}<tool_call|>
std::unique_ptr<ToolCallFormat> make_lfm2_format();             // <|tool_call_start|>[f(a=1)]<|tool_call_end|>
std::unique_ptr<ToolCallFormat> make_seed_oss_format();         // <seed:tool_call><function=N><parameter=K>v</parameter>
std::unique_ptr<ToolCallFormat> make_minimax_m3_format();       // ]<]minimax[>[<tool_call>..<invoke name=..>..<KEY>v..</KEY>
std::unique_ptr<ToolCallFormat> make_kimi_k3_format();          // <|open|>call tool=".."<|sep|><|open|>argument key=..
std::unique_ptr<ToolCallFormat> make_solar_open_format();       // <|tool_call:begin|>ID<|tool_call:name|>N<|tool_call:args|>{}
std::unique_ptr<ToolCallFormat> make_muse_glimmer_format();     // to=N<|message|><atem:function_calls><atem:invoke ..>
std::unique_ptr<ToolCallFormat> make_minicpm5_format();         // <function name="N"><param name="K">v</param></function>

}  // namespace keel::detail
