// The two groups of built-in formats, each registered in its own file, in priority order.
#pragma once

#include <memory>
#include <vector>

#include "keel/core/tool_call_format.hpp"

namespace keel::detail {

using FormatList = std::vector<std::unique_ptr<ToolCallFormat>>;

// Formats marked by special tokens (Muse Glimmer, harmony, DeepSeek, Kimi-K2, Command R7B, Granite,
// Mistral, Firefunction) and by tokens or tags of their own (Step-3, MiniMax-M2/M3, Kimi-K3, Solar
// Open, Seed-OSS, ...): unambiguous, so they are tried first.
void append_special_token_formats(FormatList& out);

// Formats written as plain text or XML-like tags (Functionary, Qwen3-Coder, GLM-4.5, MiniCPM5,
// Hermes, Llama 3, Gemma, pythonic), most specific first.
void append_text_formats(FormatList& out);

}  // namespace keel::detail
