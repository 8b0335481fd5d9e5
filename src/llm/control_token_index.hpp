// The texts of a vocabulary's control tokens ("<|im_end|>", "<|eot_id|>", ...), and whether a
// text holds one: what keeps a message's text from being read as the model's own markers. One pass
// over the text; a lookup per distinct length only where a control text's first byte occurs.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace keel::llama_detail {

class ControlTokenIndex {
 public:
  void add(std::string text);
  // Whether any added text occurs in `text`.
  bool found_in(std::string_view text) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::array<bool, 256> first_{};  // the first bytes of the texts
  std::vector<size_t> lengths_;    // their distinct lengths
  std::unordered_set<std::string, Hash, std::equal_to<>> texts_;
};

}  // namespace keel::llama_detail
