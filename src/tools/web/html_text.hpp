// tools/web/html_text.hpp — an HTML page as readable, markdown-like text for a model.
//
// Kept: headings ("#".."######"), paragraphs, lists ("- ", "1. ", nested by indentation), links
// as [text](absolute URL) (http and https only; other links keep their text), tables as pipe rows
// ("| a | b |" with a "| --- |" line after the first row), preformatted blocks as ``` fences (the
// language taken from class="language-x"), inline code in backticks, block quotes ("> ").
// Dropped: script, style, noscript, template, svg and math, iframes and embedded media, forms and
// their controls, nav and aside, page-level header and footer (those inside article, main or
// section are content and are kept), elements that are hidden (hidden, aria-hidden="true",
// display:none, visibility:hidden, screen-reader-only classes), elements whose role is page chrome
// (navigation, banner, contentinfo, complementary, search, menu, dialog), and boxes whose class or
// id names advertising, cookie banners, newsletter sign-ups or share buttons ("ad-slot", "ads",
// "cookie-consent", "share-buttons", ...). Tables that hold other tables are layout, rendered as
// paragraphs.
//
// Thread-safety: pure function of its arguments.
#pragma once

#include <gumbo.h>

#include <string>
#include <string_view>

namespace keel::detail {

struct ReadableText {
  std::string title;  // the <title>, whitespace collapsed; "" when none
  std::string text;   // the body as text; no trailing newline
};

// Renders the document under `root` (an <html> element). Relative links resolve against
// `base_url` (see document_base_url()).
ReadableText html_to_readable_text(const GumboNode* root, std::string_view base_url);

}  // namespace keel::detail
