// gumbo ownership, the nesting pre-scan and tree helpers; see html_document.hpp.
#include "tools/web/html_document.hpp"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "tools/web/web_url.hpp"

namespace keel::detail {
namespace {

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

// Elements that never nest (void) or whose end tag is routinely left out, so an unclosed one does
// not deepen the tree.
bool counts_for_nesting(std::string_view name) {
  static constexpr std::string_view kSkipped[] = {
      "area", "base",  "br",    "col",   "embed",    "hr",       "img",   "input", "link",  "meta",  "param",
      "source", "track", "wbr", "p",     "li",       "dt",       "dd",    "tr",    "td",    "th",    "thead",
      "tbody", "tfoot", "option", "optgroup", "colgroup", "caption", "rb", "rt",   "rtc",   "rp",    "html",
      "head",  "body",
  };
  for (std::string_view s : kSkipped) {
    if (iequals(name, s)) return false;
  }
  return true;
}

// Levels an element adds to the tree: a table brings an implied <tbody>, <tr> and <td>, a list its
// items, none of which the scan counts.
size_t nesting_weight(std::string_view name) {
  if (iequals(name, "table")) return 4;
  if (iequals(name, "ul") || iequals(name, "ol") || iequals(name, "dl") || iequals(name, "menu") ||
      iequals(name, "select") || iequals(name, "datalist")) {
    return 2;
  }
  return 1;
}

// Elements whose content is raw text: the scan jumps to their end tag.
bool is_raw_text(std::string_view name) {
  return iequals(name, "script") || iequals(name, "style") || iequals(name, "textarea") || iequals(name, "title") ||
         iequals(name, "xmp") || iequals(name, "plaintext");
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

void append_text(const GumboNode* node, std::string& out) {
  if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE || node->type == GUMBO_NODE_CDATA) {
    out += node->v.text.text;
    return;
  }
  if (node->type != GUMBO_NODE_ELEMENT) return;
  const GumboTag tag = node->v.element.tag;
  if (tag == GUMBO_TAG_SCRIPT || tag == GUMBO_TAG_STYLE || tag == GUMBO_TAG_TEMPLATE) return;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length; ++i) {
    append_text(static_cast<const GumboNode*>(children.data[i]), out);
    if (tag == GUMBO_TAG_BR) out += ' ';
  }
}

}  // namespace

Result<HtmlDocument> HtmlDocument::parse(std::string_view utf8_html) {
  const size_t depth = estimate_nesting_depth(utf8_html);
  if (depth > kMaxHtmlNesting) {
    return Status::InvalidArgument("the page nests HTML elements about " + std::to_string(depth) +
                                   " levels deep (more than " + std::to_string(kMaxHtmlNesting) +
                                   "); it is not parsed");
  }
  GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, utf8_html.data(), utf8_html.size());
  if (output == nullptr) return Status::Internal("the HTML parser failed (out of memory?)");
  return HtmlDocument(output);
}

HtmlDocument::~HtmlDocument() {
  if (output_ != nullptr) gumbo_destroy_output(&kGumboDefaultOptions, output_);
}

HtmlDocument::HtmlDocument(HtmlDocument&& other) noexcept : output_(std::exchange(other.output_, nullptr)) {}

HtmlDocument& HtmlDocument::operator=(HtmlDocument&& other) noexcept {
  if (this != &other) {
    if (output_ != nullptr) gumbo_destroy_output(&kGumboDefaultOptions, output_);
    output_ = std::exchange(other.output_, nullptr);
  }
  return *this;
}

const GumboNode* HtmlDocument::root() const { return output_->root; }

size_t estimate_nesting_depth(std::string_view html) {
  size_t depth = 0;
  size_t deepest = 0;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string_view::npos) {
    ++i;
    if (i >= html.size()) break;
    if (html.substr(i).starts_with("!--")) {
      const size_t end = html.find("-->", i + 3);
      if (end == std::string_view::npos) break;
      i = end + 3;
      continue;
    }
    const bool closing = html[i] == '/';
    if (closing) ++i;
    size_t name_end = i;
    while (name_end < html.size() && (std::isalnum(static_cast<unsigned char>(html[name_end])) ||
                                      html[name_end] == '-' || html[name_end] == ':')) {
      ++name_end;
    }
    if (name_end == i || !std::isalpha(static_cast<unsigned char>(html[i]))) continue;  // "<!x", "< ", "<3"
    const std::string_view name = html.substr(i, name_end - i);
    // Find the end of the tag, skipping quoted attribute values.
    char quote = 0;
    size_t end = name_end;
    for (; end < html.size(); ++end) {
      const char c = html[end];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      }
    }
    if (end >= html.size()) break;
    const bool self_closing = end > name_end && html[end - 1] == '/';
    i = end + 1;
    if (!counts_for_nesting(name)) continue;
    if (closing) {
      depth -= std::min(depth, nesting_weight(name));
      continue;
    }
    if (self_closing) continue;
    if (is_raw_text(name)) {
      // Skip to the matching end tag, ignoring case.
      size_t search = i;
      while ((search = html.find("</", search)) != std::string_view::npos) {
        if (iequals(html.substr(search + 2, name.size()), name)) break;
        search += 2;
      }
      if (search == std::string_view::npos) break;
      i = search;
      continue;
    }
    depth += nesting_weight(name);
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

bool is_element(const GumboNode* node, GumboTag tag) {
  return node != nullptr && node->type == GUMBO_NODE_ELEMENT && node->v.element.tag == tag &&
         node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML;
}

std::string element_name(const GumboNode* node) {
  if (node == nullptr || node->type != GUMBO_NODE_ELEMENT) return "";
  const GumboElement& el = node->v.element;
  if (el.tag != GUMBO_TAG_UNKNOWN) return gumbo_normalized_tagname(el.tag);
  GumboStringPiece piece = el.original_tag;
  gumbo_tag_from_original_text(&piece);  // "<My-Widget attr>" -> "My-Widget"
  std::string name(piece.data != nullptr ? piece.data : "", piece.data != nullptr ? piece.length : 0);
  for (char& c : name) c = ascii_lower(c);
  return name;
}

const char* html_attr(const GumboNode* node, const char* name) {
  if (node == nullptr || node->type != GUMBO_NODE_ELEMENT) return nullptr;
  const GumboAttribute* a = gumbo_get_attribute(&node->v.element.attributes, name);
  return a != nullptr ? a->value : nullptr;
}

bool attr_has_token(const GumboNode* node, const char* attr, std::string_view token) {
  const char* value = html_attr(node, attr);
  if (value == nullptr) return false;
  std::string_view rest(value);
  while (!rest.empty()) {
    while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
    size_t end = 0;
    while (end < rest.size() && !is_space(rest[end])) ++end;
    if (end > 0 && iequals(rest.substr(0, end), token)) return true;
    rest.remove_prefix(end);
  }
  return false;
}

std::string collapse_whitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool nbsp = c == '\xC2' && i + 1 < text.size() && text[i + 1] == '\xA0';
    if (is_space(c) || nbsp) {
      if (nbsp) ++i;
      pending = !out.empty();
      continue;
    }
    if (pending) out += ' ';
    pending = false;
    out += c;
  }
  return out;
}

std::string node_text(const GumboNode* node) {
  std::string raw;
  append_text(node, raw);
  return collapse_whitespace(raw);
}

void visit_elements(const GumboNode* root, const std::function<bool(const GumboNode*)>& fn) {
  std::vector<const GumboNode*> stack;
  if (root != nullptr) stack.push_back(root);
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) continue;
    if (!fn(node)) continue;
    const GumboVector& children = node->v.element.children;
    for (unsigned i = children.length; i > 0; --i) stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
  }
}

std::string link_fallback_label(const GumboNode* link) {
  std::string label;
  visit_elements(link, [&](const GumboNode* n) {
    if (!label.empty()) return false;
    if (is_element(n, GUMBO_TAG_IMG)) {
      if (const char* alt = html_attr(n, "alt")) label = collapse_whitespace(alt);
    }
    return true;
  });
  for (const char* attr : {"aria-label", "title", "alt"}) {  // alt: an <area> names itself
    if (!label.empty()) break;
    if (const char* v = html_attr(link, attr)) label = collapse_whitespace(v);
  }
  return label;
}

std::string document_base_url(const GumboNode* root, std::string_view page_url) {
  std::string base(page_url);
  bool found = false;
  visit_elements(root, [&](const GumboNode* node) {
    if (found) return false;
    if (is_element(node, GUMBO_TAG_BASE)) {
      if (const char* href = html_attr(node, "href")) {
        if (std::optional<std::string> resolved = resolve_http_url(page_url, href)) base = *resolved;
        found = true;
      }
    }
    return true;
  });
  return base;
}

}  // namespace keel::detail
