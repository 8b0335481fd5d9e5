#include "llm/control_token_index.hpp"

#include <algorithm>

namespace keel::llama_detail {

void ControlTokenIndex::add(std::string text) {
  if (text.empty()) return;
  first_[static_cast<unsigned char>(text[0])] = true;
  if (std::find(lengths_.begin(), lengths_.end(), text.size()) == lengths_.end()) lengths_.push_back(text.size());
  texts_.insert(std::move(text));
}

bool ControlTokenIndex::found_in(std::string_view text) const {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!first_[static_cast<unsigned char>(text[i])]) continue;
    for (size_t n : lengths_) {
      if (n <= text.size() - i && texts_.find(text.substr(i, n)) != texts_.end()) return true;
    }
  }
  return false;
}

}  // namespace keel::llama_detail
