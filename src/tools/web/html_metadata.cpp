// <title>, <meta>, <link rel=canonical> and JSON-LD collection; see html_metadata.hpp.
#include "tools/web/html_metadata.hpp"

#include <algorithm>
#include <string>

#include "tools/web/ascii_text.hpp"
#include "tools/web/html_document.hpp"
#include "tools/web/web_url.hpp"

namespace keel::detail {
namespace {

// JSON-LD nested deeper than this is reported instead of parsed (serializing it recurses).
constexpr int kMaxJsonDepth = 256;

// Deepest bracket nesting in JSON text, strings skipped.
int json_depth(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// The JSON inside a script block, without the comment or CDATA wrappers some sites put around it.
std::string_view unwrap_script(std::string_view text) {
  text = trim_ascii(text);
  for (std::string_view open : {"<!--", "//<![CDATA[", "<![CDATA["}) {
    if (text.starts_with(open)) text = trim_ascii(text.substr(open.size()));
  }
  for (std::string_view close : {"-->", "//]]>", "]]>"}) {
    if (text.ends_with(close)) text = trim_ascii(text.substr(0, text.size() - close.size()));
  }
  return text;
}

std::string raw_text(const GumboNode* node) {
  std::string out;
  const GumboVector& kids = node->v.element.children;
  for (unsigned i = 0; i < kids.length; ++i) {
    const auto* child = static_cast<const GumboNode*>(kids.data[i]);
    if (child->type == GUMBO_NODE_TEXT || child->type == GUMBO_NODE_WHITESPACE || child->type == GUMBO_NODE_CDATA) {
      out += child->v.text.text;
    }
  }
  return out;
}

// Adds a property to a group; a repeated key becomes an array of its values.
void add_property(nlohmann::json& group, const std::string& key, const std::string& value) {
  if (!group.contains(key)) {
    group[key] = value;
    return;
  }
  nlohmann::json& slot = group[key];
  if (!slot.is_array()) slot = nlohmann::json::array({slot});
  slot.push_back(value);
}

// nlohmann's "[json.exception.parse_error.101] parse error at ..." without the bracketed id.
std::string parse_error_text(const std::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with("[")) {
    const size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

}  // namespace

nlohmann::json extract_page_metadata(const GumboNode* root, std::string_view base_url, size_t json_ld_budget) {
  nlohmann::json out = nlohmann::json::object();
  std::string title, description, author, canonical;
  nlohmann::json groups = {{"og", nlohmann::json::object()},
                           {"twitter", nlohmann::json::object()},
                           {"article", nlohmann::json::object()}};
  nlohmann::json json_ld = nlohmann::json::array();
  nlohmann::json errors = nlohmann::json::array();
  int block = 0;
  size_t used = 0;

  visit_elements(root, [&](const GumboNode* n) {
    if (n->type != GUMBO_NODE_ELEMENT || n->v.element.tag_namespace != GUMBO_NAMESPACE_HTML) return false;
    switch (n->v.element.tag) {
      case GUMBO_TAG_TITLE:
        if (title.empty()) title = node_text(n);
        return false;
      case GUMBO_TAG_META: {
        const char* content = html_attr(n, "content");
        if (content == nullptr) return false;
        const char* property = html_attr(n, "property");
        const char* name = html_attr(n, "name");
        const std::string key = ascii_lowercase(trim_ascii(property != nullptr && *property != '\0' ? property
                                               : name != nullptr                        ? name
                                                                                        : ""));
        const std::string value = collapse_whitespace(content);
        if (key == "description" && description.empty()) description = value;
        if (key == "author" && author.empty()) author = value;
        for (const char* prefix : {"og", "twitter", "article"}) {
          const std::string p = std::string(prefix) + ":";
          if (key.size() > p.size() && key.starts_with(p)) add_property(groups[prefix], key.substr(p.size()), value);
        }
        return false;
      }
      case GUMBO_TAG_LINK:
        if (canonical.empty() && attr_has_token(n, "rel", "canonical")) {
          if (const char* href = html_attr(n, "href")) canonical = resolve_http_url(base_url, href).value_or(href);
        }
        return false;
      case GUMBO_TAG_SCRIPT: {
        const char* type = html_attr(n, "type");
        if (type == nullptr) return false;
        std::string_view t(type);
        t = trim_ascii(t.substr(0, t.find(';')));
        if (ascii_lowercase(t) != "application/ld+json") return false;
        ++block;
        const std::string text(unwrap_script(raw_text(n)));
        nlohmann::json error = {{"block", block}};
        if (json_depth(text) > kMaxJsonDepth) {
          error["error"] = "nested more than " + std::to_string(kMaxJsonDepth) + " levels deep; not parsed";
          errors.push_back(std::move(error));
          return false;
        }
        try {
          nlohmann::json value = nlohmann::json::parse(text);
          const size_t size = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
          if (used + size > json_ld_budget) {
            error["error"] = "omitted: " + std::to_string(size) + " bytes would exceed the output budget of " +
                             std::to_string(json_ld_budget) + " bytes";
            errors.push_back(std::move(error));
          } else {
            used += size;
            json_ld.push_back(std::move(value));
          }
        } catch (const nlohmann::json::exception& e) {
          error["error"] = "invalid JSON: " + parse_error_text(e);
          errors.push_back(std::move(error));
        }
        return false;
      }
      default:
        return true;
    }
  });

  if (!title.empty()) out["title"] = title;
  if (!description.empty()) out["description"] = description;
  if (!author.empty()) out["author"] = author;
  if (const char* lang = html_attr(root, "lang"); lang != nullptr && *lang != '\0') out["lang"] = lang;
  if (!canonical.empty()) out["canonical"] = canonical;
  for (const char* prefix : {"og", "twitter", "article"}) {
    if (!groups[prefix].empty()) out[prefix] = groups[prefix];
  }
  if (!json_ld.empty()) out["json_ld"] = std::move(json_ld);
  if (!errors.empty()) out["json_ld_errors"] = std::move(errors);
  return out;
}

}  // namespace keel::detail
