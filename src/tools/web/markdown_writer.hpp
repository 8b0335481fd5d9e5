// tools/web/markdown_writer.hpp — assembles readable, markdown-like text from inline pieces and
// block boundaries, the way a browser lays out text: runs of whitespace collapse to one space,
// paragraphs are separated by a blank line, list items by a newline, and the lines of a block get
// the prefixes of the containers around it ("> " for quotes, "- " / "1. " then indentation for
// list items).
//
//   MarkdownWriter w;
//   w.text("Hello,   ");  w.text("world");  w.end_paragraph();
//   w.begin_list(false);  w.begin_item();  w.text("one");  w.end_item();  w.end_list();
//   w.finish();   // "Hello, world\n\n- one"
//
// Thread-safety: not thread-safe; one renderer uses one writer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keel::detail {

class MarkdownWriter {
 public:
  // Inline content of the current paragraph. text() collapses whitespace (no-break spaces too);
  // atom() appends its argument unchanged, spaced like a word; space() is a collapsible space;
  // line_break() starts a new line within the paragraph (<br>).
  void text(std::string_view s);
  void atom(std::string_view s);
  void space();
  void line_break();

  // Ends the current paragraph: its inline content, trimmed, becomes a block (nothing if empty).
  void end_paragraph();
  // Ends the current paragraph, then adds `block` (one or more lines, e.g. a heading, a table or
  // a fenced code block) as its own block.
  void block(std::string_view block);

  // Containers. Each begin_* must be matched by its end_* (the renderer walks a tree, so they are).
  void begin_quote();
  void end_quote();
  void begin_list(bool ordered, int start = 1);
  void end_list();
  void begin_item();
  void end_item();

  // The inline content so far, trimmed, with line breaks as spaces (for a heading or a cell).
  std::string inline_text() const;
  // Whether whitespace came before any inline content, and whether it is pending after it.
  bool leading_space() const { return leading_space_; }
  bool trailing_space() const { return pending_space_; }

  // Ends the last paragraph and returns the text (no trailing newline).
  std::string finish();

 private:
  struct Container {
    bool quote = false;      // "> " on every line; otherwise a list item
    std::string marker;      // list item: "- " or "3. " on its first line
    bool marker_used = false;
  };
  struct List {
    bool ordered = false;
    int next = 1;
  };

  void emit(std::string_view block);
  void append_piece(std::string_view s);
  bool in_list() const;

  std::string out_;
  std::string line_;  // the current paragraph's inline content
  bool pending_space_ = false;
  bool leading_space_ = false;
  bool last_emit_in_list_ = false;
  std::vector<Container> containers_;
  std::vector<List> lists_;
};

}  // namespace keel::detail
