// The built-in `extract` skill (seed 004): pulls email addresses, URLs, dates or named entities out
// of a text, and rejects values the text does not contain.
//
// Input {"text": "...", "target": "email" | "url" | "date" | "entity"}; output {"<target>": [...]}.
// Its `check` is keel::check_extraction() (the anti-hallucination guard) with the input's text and
// target; its `heuristic` is keel::find_extraction_candidates(), which covers email, url and date
// and answers entity with an error saying a model is needed.
//
// Thread-safety: the returned skill holds no state; check and heuristic are safe from any thread.
#pragma once

#include "keel/executable_skill.hpp"

namespace keel {

ExecutableSkill make_extract_skill();

}  // namespace keel
