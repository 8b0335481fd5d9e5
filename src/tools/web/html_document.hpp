// tools/web/html_document.hpp — an HTML page parsed with gumbo, and small helpers over its tree.
//
// gumbo builds the tree the HTML5 parsing algorithm specifies (the same a browser builds, with
// implied <html>, <head>, <body> and <tbody>, misnested tags repaired). Its input must be UTF-8,
// so pages are decoded first (body_decoding.hpp). A page nested deeper than kMaxHtmlNesting is
// refused before parsing: gumbo frees its tree recursively, and such a page can only be hostile.
//
//   KEEL_ASSIGN_OR_RETURN(HtmlDocument doc, HtmlDocument::parse(utf8));
//   visit_elements(doc.root(), [](const GumboNode* n) { ...; return true; });
//
// Thread-safety: an HtmlDocument is not shared between threads; the free functions are pure.
#pragma once

#include <gumbo.h>

#include <functional>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

// Deepest element nesting a page may have (real pages stay well under 100).
inline constexpr size_t kMaxHtmlNesting = 2000;

class HtmlDocument {
 public:
  // Parses UTF-8 HTML. InvalidArgument when the page nests elements deeper than kMaxHtmlNesting.
  static Result<HtmlDocument> parse(std::string_view utf8_html);
  ~HtmlDocument();
  HtmlDocument(HtmlDocument&& other) noexcept;
  HtmlDocument& operator=(HtmlDocument&& other) noexcept;
  HtmlDocument(const HtmlDocument&) = delete;
  HtmlDocument& operator=(const HtmlDocument&) = delete;

  // The <html> element; never null.
  const GumboNode* root() const;

 private:
  explicit HtmlDocument(GumboOutput* output) : output_(output) {}
  GumboOutput* output_ = nullptr;
};

// An upper bound of how deeply `html` nests elements, from a scan of its tags (elements whose end
// tag may be omitted, like <p> and <li>, and void elements do not count).
size_t estimate_nesting_depth(std::string_view html);

// Whether `node` is an HTML-namespace element with tag `tag`.
bool is_element(const GumboNode* node, GumboTag tag);
// The lowercase tag name of an element, also for tags gumbo does not know ("dialog", "my-widget").
std::string element_name(const GumboNode* node);
// The value of attribute `name` of an element, or nullptr.
const char* html_attr(const GumboNode* node, const char* name);
// Whether the element's `attr` holds `token` in its space-separated list, ignoring case
// (rel="canonical", class="ad").
bool attr_has_token(const GumboNode* node, const char* attr, std::string_view token);

// `text` with runs of whitespace (no-break spaces included) collapsed to one space and the ends trimmed.
std::string collapse_whitespace(std::string_view text);
// The text inside `node` (script, style and template contents excluded), whitespace collapsed.
std::string node_text(const GumboNode* node);

// Text for a link that has none of its own: the alt of an image inside it, else its aria-label,
// title or (for <area>) alt; "" when none.
std::string link_fallback_label(const GumboNode* link);

// Visits elements in document order, `root` first; children of an element are skipped when `fn`
// returns false. Iterative, so deep trees cannot exhaust the stack.
void visit_elements(const GumboNode* root, const std::function<bool(const GumboNode*)>& fn);

// The URL relative links resolve against: the first <base href> resolved against `page_url`, or
// `page_url` itself.
std::string document_base_url(const GumboNode* root, std::string_view page_url);

}  // namespace keel::detail
