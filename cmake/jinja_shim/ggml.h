// Stands in for ggml.h when llama.cpp's common/json.cpp is built into keel's Jinja engine: that
// file wants ggml only for GGML_ASSERT (its JSON_ASSERT), and keel loads ggml at run time, so the
// engine must not link it.
#pragma once
#include <cassert>
#define GGML_ASSERT(x) assert(x)
