// Call signatures: canonical arguments and near-duplicate similarity, used by the repeated-failure
// and semantic-repeat guards.
#pragma once

#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

// The arguments as canonical JSON (object keys sorted, no spaces). Empty text means {}.
// InvalidArgument when the text is not a JSON object.
Result<std::string> canonical_arguments(std::string_view json_text);

// "name\x1f<canonical args>": equal signatures mean identical calls.
std::string call_signature(std::string_view tool, std::string_view canonical_args);

// Similarity in [0, 1] of two canonical argument objects of the same tool: 1 when identical, 0
// when the key sets, any non-string value or any single-token string (a path, an id, a URL)
// differ. Differing phrases (strings with spaces, such as search queries) count as equal after
// normalising case, whitespace and surrounding punctuation, else by their word-set (Jaccard)
// similarity. The result is the smallest similarity over the differing strings.
double argument_similarity(std::string_view canonical_a, std::string_view canonical_b);

}  // namespace keel::detail
