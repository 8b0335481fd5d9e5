# Embeds test/core/vectors/vectors.json into a C++ source as a raw string, so the vector runner
# needs no file access (it runs unchanged under node).
file(READ ${IN}/vectors.json KEEL_VECTORS)
file(WRITE ${OUT} "// Generated from test/core/vectors/vectors.json. Do not edit.\n")
file(APPEND ${OUT} "extern const char* const kKeelCoreVectors;\n")
file(APPEND ${OUT} "const char* const kKeelCoreVectors = R\"keelvectors(${KEEL_VECTORS})keelvectors\";\n")
