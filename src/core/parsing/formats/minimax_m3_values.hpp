// MiniMax-M3 parameter values. Every tag is preceded by the delimiter ]<]minimax[>[ and a
// parameter is an element named by its key; its content is text, or — for an object or an array —
// the elements of its members (arrays name theirs "item"):
//   ]<]minimax[>[<city>Paris]<]minimax[>[</city>
//   ]<]minimax[>[<tags>]<]minimax[>[<item>a]<]minimax[>[</item>]<]minimax[>[</tags>
// The elements are read into a tree in one pass, then written as JSON typed by the tool's JSON
// Schema below the parameter: a schema that allows a string takes the content as written (markup
// included), an object or array schema (or, without one, the element names) shapes nested
// elements, and text is typed like any XML parameter value (format_util.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsing/json/json_view.hpp"

namespace keel::detail {

inline constexpr std::string_view kMinimaxM3Delimiter = "]<]minimax[>[";

// One element: its key and the span of its content; children (when not a leaf) in order.
struct M3Element {
  std::string_view key;
  size_t begin = 0;  // the content is text[begin, end)
  size_t end = 0;
  int first_child = -1;  // -1: a leaf (text content)
  int next = -1;         // the next sibling
};

// The elements of one call. Not copyable in intent: read() and the values refer to the text.
class M3Elements {
 public:
  // Reads the sibling elements from `pos` up to the closing tag `]<]minimax[>[</` (of the enclosing
  // element or of the invoke), which is left unread. Returns where reading stopped (that tag),
  // or kNpos with `error` set (naming the offset) when the elements are malformed or cut off
  // (`cut_off` then says the text ended first). Appends the top-level elements' indices to `top`.
  size_t read(std::string_view text, size_t pos, std::vector<int>& top, std::string& error, bool& cut_off);

  // Appends element `i` as JSON typed by `schema` (its JSON Schema, when known) to `out`; false when
  // a string held ill-formed UTF-8.
  bool write(std::string_view text, int i, std::optional<JsonView> schema, std::string& out) const;

  const M3Element& at(int i) const { return elements_[static_cast<size_t>(i)]; }

 private:
  size_t read_element(std::string_view text, size_t pos, int depth, int& index, std::string& error, bool& cut_off);

  std::vector<M3Element> elements_;
};

}  // namespace keel::detail
