// The HTML-to-text renderer: which elements are content, and how each kind is written; see
// html_text.hpp.
#include "tools/web/html_text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <vector>

#include "tools/web/ascii_text.hpp"
#include "tools/web/html_document.hpp"
#include "tools/web/markdown_writer.hpp"
#include "tools/web/web_url.hpp"

namespace keel::detail {
namespace {

// Recursion stops here; HtmlDocument::parse() refuses pages that could get near it.
constexpr int kMaxDepth = static_cast<int>(kMaxHtmlNesting) + 256;

bool is_heading(GumboTag tag) {
  return tag == GUMBO_TAG_H1 || tag == GUMBO_TAG_H2 || tag == GUMBO_TAG_H3 || tag == GUMBO_TAG_H4 ||
         tag == GUMBO_TAG_H5 || tag == GUMBO_TAG_H6;
}

int heading_level(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_H1: return 1;
    case GUMBO_TAG_H2: return 2;
    case GUMBO_TAG_H3: return 3;
    case GUMBO_TAG_H4: return 4;
    case GUMBO_TAG_H5: return 5;
    default: return 6;
  }
}

// Elements that are never content.
bool is_dropped_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_HEAD: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_SVG: case GUMBO_TAG_MATH: case GUMBO_TAG_NAV:
    case GUMBO_TAG_ASIDE: case GUMBO_TAG_FORM: case GUMBO_TAG_BUTTON: case GUMBO_TAG_INPUT:
    case GUMBO_TAG_SELECT: case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_OPTION: case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT: case GUMBO_TAG_EMBED: case GUMBO_TAG_CANVAS: case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO: case GUMBO_TAG_MENU: case GUMBO_TAG_MAP:
    case GUMBO_TAG_IMG: case GUMBO_TAG_SOURCE: case GUMBO_TAG_TRACK:
    case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_BASE:
      return true;
    default:
      return false;
  }
}

// Elements that start and end a paragraph.
bool is_block_tag(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_HTML: case GUMBO_TAG_BODY: case GUMBO_TAG_P: case GUMBO_TAG_DIV: case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE: case GUMBO_TAG_SECTION: case GUMBO_TAG_MAIN: case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER: case GUMBO_TAG_CENTER: case GUMBO_TAG_DL: case GUMBO_TAG_DT: case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS: case GUMBO_TAG_SUMMARY: case GUMBO_TAG_FIELDSET: case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_FIGURE: case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_HGROUP: case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_TABLE: case GUMBO_TAG_THEAD: case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH: case GUMBO_TAG_LI: case GUMBO_TAG_UL:
    case GUMBO_TAG_OL: case GUMBO_TAG_PRE: case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_HR:
    case GUMBO_TAG_H1: case GUMBO_TAG_H2: case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
      return true;
    default:
      return false;
  }
}

bool is_code_tag(GumboTag tag) {
  return tag == GUMBO_TAG_CODE || tag == GUMBO_TAG_KBD || tag == GUMBO_TAG_SAMP || tag == GUMBO_TAG_TT;
}

// A class or id that names page furniture rather than content.
bool is_noise_name(std::string_view name) {
  static constexpr std::string_view kWhole[] = {
      "sr-only", "visually-hidden", "screen-reader-text", "hidden", "skip-link", "skip-to-content", "headerlink", "permalink",
  };
  static constexpr std::string_view kParts[] = {
      "ad",     "ads",     "advert", "adverts", "advertisement", "advertising", "sponsored", "promo",
      "cookie", "cookies", "consent", "newsletter", "share", "sharing", "social", "popup",
      "modal",  "breadcrumb", "breadcrumbs",
  };
  const std::string lower = ascii_lowercase(name);
  for (std::string_view w : kWhole) {
    if (lower == w) return true;
  }
  size_t start = 0;
  while (start <= lower.size()) {
    size_t end = lower.find_first_of("-_", start);
    if (end == std::string::npos) end = lower.size();
    const std::string_view part = std::string_view(lower).substr(start, end - start);
    for (std::string_view p : kParts) {
      if (part == p) return true;
    }
    start = end + 1;
  }
  return false;
}

bool has_noise_class_or_id(const GumboNode* node) {
  if (const char* id = html_attr(node, "id"); id != nullptr && is_noise_name(id)) return true;
  const char* cls = html_attr(node, "class");
  if (cls == nullptr) return false;
  std::string_view rest(cls);
  while (!rest.empty()) {
    const size_t start = rest.find_first_not_of(" \t\n\r\f");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const size_t end = std::min(rest.find_first_of(" \t\n\r\f"), rest.size());
    if (is_noise_name(rest.substr(0, end))) return true;
    rest.remove_prefix(end);
  }
  return false;
}

bool is_hidden(const GumboNode* node) {
  if (html_attr(node, "hidden") != nullptr) return true;
  if (const char* aria = html_attr(node, "aria-hidden"); aria != nullptr && ascii_lowercase(aria) == "true") return true;
  if (const char* style = html_attr(node, "style")) {
    std::string s = ascii_lowercase(style);
    std::erase_if(s, [](char c) { return c == ' ' || c == '\t' || c == '\n'; });
    if (s.find("display:none") != std::string::npos || s.find("visibility:hidden") != std::string::npos) return true;
  }
  if (const char* role = html_attr(node, "role")) {
    static constexpr std::string_view kChromeRoles[] = {
        "navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "toolbar", "dialog",
        "alertdialog",
    };
    const std::string r = ascii_lowercase(role);
    for (std::string_view chrome : kChromeRoles) {
      if (r == chrome) return true;
    }
  }
  return false;
}

// The raw text of a <pre>, line breaks kept.
void append_pre_text(const GumboNode* node, std::string& out, int depth) {
  if (depth > kMaxDepth) return;
  if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE || node->type == GUMBO_NODE_CDATA) {
    out += node->v.text.text;
    return;
  }
  if (node->type != GUMBO_NODE_ELEMENT) return;
  const GumboTag tag = node->v.element.tag;
  if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE || tag == GUMBO_TAG_TEMPLATE) return;
  if (tag == GUMBO_TAG_BR) {
    out += '\n';
    return;
  }
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    append_pre_text(static_cast<const GumboNode*>(children.data[i]), out, depth + 1);
  }
}

// "cpp" from class="language-cpp" (or "lang-cpp") on the element; "" when none.
std::string code_language(const GumboNode* node) {
  const char* cls = html_attr(node, "class");
  if (cls == nullptr) return "";
  std::string_view rest(cls);
  for (std::string_view prefix : {std::string_view("language-"), std::string_view("lang-")}) {
    const size_t at = rest.find(prefix);
    if (at == std::string_view::npos || (at > 0 && rest[at - 1] != ' ')) continue;
    std::string_view lang = rest.substr(at + prefix.size());
    lang = lang.substr(0, std::min(lang.find_first_of(" \t\n"), lang.size()));
    std::string out;
    for (char c : lang) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '#' || c == '_') out += c;
    }
    return out;
  }
  return "";
}

std::string escape_link_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

std::string escape_link_url(std::string_view url) {
  std::string out;
  for (char c : url) {
    if (c == '(') out += "%28";
    else if (c == ')') out += "%29";
    else out += c;
  }
  return out;
}

std::string escape_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

class Renderer {
 public:
  explicit Renderer(std::string_view base_url) : base_(base_url) {}

  void node(const GumboNode* n, MarkdownWriter& w, int depth, bool inline_only) {
    if (depth > kMaxDepth) return;
    switch (n->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
        w.text(n->v.text.text);
        return;
      case GUMBO_NODE_WHITESPACE:
        w.space();
        return;
      case GUMBO_NODE_ELEMENT:
        element(n, w, depth, inline_only);
        return;
      default:
        return;  // comments, templates, the document node
    }
  }

 private:
  void children(const GumboNode* n, MarkdownWriter& w, int depth, bool inline_only) {
    const GumboVector& kids = n->v.element.children;
    for (unsigned i = 0; i < kids.length; ++i) node(static_cast<const GumboNode*>(kids.data[i]), w, depth + 1, inline_only);
  }

  bool dropped(const GumboNode* n, GumboTag tag) const {
    if (is_dropped_tag(tag) || is_hidden(n)) return true;
    if (tag == GUMBO_TAG_UNKNOWN && element_name(n) == "dialog") return true;  // gumbo 0.10 predates <dialog>
    if ((tag == GUMBO_TAG_HEADER || tag == GUMBO_TAG_FOOTER) && sectioning_ == 0) return true;  // page chrome
    const bool container = tag == GUMBO_TAG_HTML || tag == GUMBO_TAG_BODY || tag == GUMBO_TAG_MAIN ||
                           tag == GUMBO_TAG_ARTICLE;
    return !container && has_noise_class_or_id(n);
  }

  void element(const GumboNode* n, MarkdownWriter& w, int depth, bool inline_only) {
    const GumboElement& el = n->v.element;
    if (el.tag_namespace != GUMBO_NAMESPACE_HTML) return;  // svg, math
    const GumboTag tag = el.tag;
    if (dropped(n, tag)) return;
    if (tag == GUMBO_TAG_A) return link(n, w, depth);
    if (is_code_tag(tag)) return inline_code(n, w);
    if (inline_only) {
      // Inside a heading, link or table cell everything is one line.
      const bool block = is_block_tag(tag) || tag == GUMBO_TAG_BR;
      if (block) w.space();
      children(n, w, depth, true);
      if (block) w.space();
      return;
    }
    if (is_heading(tag)) return heading(n, w, depth);
    switch (tag) {
      case GUMBO_TAG_UL:
      case GUMBO_TAG_OL:
        return list(n, w, depth, tag == GUMBO_TAG_OL);
      case GUMBO_TAG_TABLE:
        return table(n, w, depth);
      case GUMBO_TAG_PRE:
        return pre(n, w);
      case GUMBO_TAG_BLOCKQUOTE:
        w.begin_quote();
        children(n, w, depth, false);
        w.end_quote();
        return;
      case GUMBO_TAG_BR:
        w.line_break();
        return;
      case GUMBO_TAG_HR:
        w.end_paragraph();
        return;
      default:
        break;
    }
    const bool sectioning = tag == GUMBO_TAG_ARTICLE || tag == GUMBO_TAG_MAIN || tag == GUMBO_TAG_SECTION;
    const bool block = is_block_tag(tag);
    if (block) w.end_paragraph();
    if (sectioning) ++sectioning_;
    children(n, w, depth, false);
    if (sectioning) --sectioning_;
    if (block) w.end_paragraph();
  }

  void heading(const GumboNode* n, MarkdownWriter& w, int depth) {
    MarkdownWriter sub;
    children(n, sub, depth, true);
    const std::string text = sub.inline_text();
    if (!text.empty()) w.block(std::string(static_cast<size_t>(heading_level(n->v.element.tag)), '#') + " " + text);
    else w.end_paragraph();
  }

  void link(const GumboNode* n, MarkdownWriter& w, int depth) {
    std::optional<std::string> url;
    const char* href = html_attr(n, "href");
    if (href != nullptr && in_link_ == 0 && href[0] != '#') url = resolve_http_url(base_, href);
    MarkdownWriter sub;
    ++in_link_;
    children(n, sub, depth, true);
    --in_link_;
    std::string text = sub.inline_text();
    if (text.empty()) text = link_fallback_label(n);
    if (text.empty()) return;
    if (sub.leading_space()) w.space();
    if (url) {
      w.atom("[" + escape_link_text(text) + "](" + escape_link_url(*url) + ")");
    } else {
      w.text(text);
    }
    if (sub.trailing_space()) w.space();
  }

  void inline_code(const GumboNode* n, MarkdownWriter& w) {
    const std::string text = node_text(n);
    if (text.empty()) return;
    if (text.find('`') == std::string::npos) {
      w.atom("`" + text + "`");
    } else {
      w.atom("`` " + text + " ``");
    }
  }

  void list(const GumboNode* n, MarkdownWriter& w, int depth, bool ordered) {
    int start = 1;
    if (const char* s = html_attr(n, "start")) start = std::atoi(s);
    w.begin_list(ordered, start);
    const GumboVector& kids = n->v.element.children;
    for (unsigned i = 0; i < kids.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(kids.data[i]);
      if (is_element(child, GUMBO_TAG_LI) && !dropped(child, GUMBO_TAG_LI)) {
        w.begin_item();
        children(child, w, depth + 1, false);
        w.end_item();
      } else {
        node(child, w, depth + 1, false);
      }
    }
    w.end_list();
  }

  void pre(const GumboNode* n, MarkdownWriter& w) {
    std::string code;
    append_pre_text(n, code, 0);
    while (!code.empty() && (code.front() == '\n' || code.front() == '\r')) code.erase(0, 1);
    while (!code.empty() && (code.back() == '\n' || code.back() == ' ' || code.back() == '\r' || code.back() == '\t')) {
      code.pop_back();
    }
    if (code.empty()) return;
    std::string lang = code_language(n);
    if (lang.empty()) {
      const GumboVector& kids = n->v.element.children;
      for (unsigned i = 0; i < kids.length && lang.empty(); ++i) {
        const auto* child = static_cast<const GumboNode*>(kids.data[i]);
        if (is_element(child, GUMBO_TAG_CODE)) lang = code_language(child);
      }
    }
    std::string fence = "```";
    while (code.find(fence) != std::string::npos) fence += '`';
    w.block(fence + lang + "\n" + code + "\n" + fence);
  }

  // A table that holds another table, or says it is for presentation, is page layout.
  static bool is_layout_table(const GumboNode* table) {
    if (const char* role = html_attr(table, "role")) {
      const std::string r = ascii_lowercase(role);
      if (r == "presentation" || r == "none") return true;
    }
    bool nested = false;
    visit_elements(table, [&](const GumboNode* e) {
      if (e != table && is_element(e, GUMBO_TAG_TABLE)) nested = true;
      return !nested;
    });
    return nested;
  }

  void table_row(const GumboNode* tr, std::vector<std::vector<std::string>>& rows, int depth) {
    std::vector<std::string> cells;
    const GumboVector& kids = tr->v.element.children;
    for (unsigned i = 0; i < kids.length; ++i) {
      const auto* cell = static_cast<const GumboNode*>(kids.data[i]);
      if (!is_element(cell, GUMBO_TAG_TD) && !is_element(cell, GUMBO_TAG_TH)) continue;
      MarkdownWriter sub;
      if (!is_hidden(cell)) children(cell, sub, depth + 1, true);
      cells.push_back(escape_cell(sub.inline_text()));
      int span = 1;
      if (const char* colspan = html_attr(cell, "colspan")) span = std::clamp(std::atoi(colspan), 1, 64);
      for (int k = 1; k < span; ++k) cells.emplace_back();
    }
    if (!cells.empty()) rows.push_back(std::move(cells));
  }

  void table(const GumboNode* n, MarkdownWriter& w, int depth) {
    if (is_layout_table(n)) {
      w.end_paragraph();
      children(n, w, depth, false);
      w.end_paragraph();
      return;
    }
    std::vector<std::vector<std::string>> rows;
    std::string caption;
    const GumboVector& kids = n->v.element.children;
    for (unsigned i = 0; i < kids.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(kids.data[i]);
      if (is_element(child, GUMBO_TAG_CAPTION)) {
        caption = node_text(child);
      } else if (is_element(child, GUMBO_TAG_TR)) {
        table_row(child, rows, depth + 1);
      } else if (is_element(child, GUMBO_TAG_THEAD) || is_element(child, GUMBO_TAG_TBODY) ||
                 is_element(child, GUMBO_TAG_TFOOT)) {
        const GumboVector& section = child->v.element.children;
        for (unsigned k = 0; k < section.length; ++k) {
          const auto* tr = static_cast<const GumboNode*>(section.data[k]);
          if (is_element(tr, GUMBO_TAG_TR) && !is_hidden(tr)) table_row(tr, rows, depth + 2);
        }
      }
    }
    if (!caption.empty()) w.block(caption);
    if (rows.empty()) return;
    size_t columns = 0;
    for (const auto& row : rows) columns = std::max(columns, row.size());
    std::string out;
    for (size_t r = 0; r < rows.size(); ++r) {
      out += "|";
      for (size_t c = 0; c < columns; ++c) {
        const std::string& cell = c < rows[r].size() ? rows[r][c] : std::string();
        out += " " + cell + (cell.empty() ? "|" : " |");
      }
      out += "\n";
      if (r == 0) {
        out += "|";
        for (size_t c = 0; c < columns; ++c) out += " --- |";
        out += "\n";
      }
    }
    out.pop_back();
    w.block(out);
  }

  std::string base_;
  int sectioning_ = 0;  // article, main or section elements around the current node
  int in_link_ = 0;     // links around the current node (a nested link is text only)
};

}  // namespace

ReadableText html_to_readable_text(const GumboNode* root, std::string_view base_url) {
  ReadableText out;
  visit_elements(root, [&](const GumboNode* n) {
    if (!out.title.empty()) return false;
    if (is_element(n, GUMBO_TAG_TITLE)) {
      out.title = node_text(n);
      return false;
    }
    return !is_element(n, GUMBO_TAG_BODY);  // the document title lives in <head>
  });
  Renderer renderer(base_url);
  MarkdownWriter w;
  renderer.node(root, w, 0, false);
  out.text = w.finish();
  return out;
}

}  // namespace keel::detail
