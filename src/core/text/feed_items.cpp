// Reading RSS and Atom feeds (feed_items.hpp): a small tolerant XML reader builds a tree of elements
// that remember where their content lies in the source, then the feed's items are picked from it by
// local name, whatever the namespace prefix.
#include "core/text/feed_items.hpp"

#include <algorithm>
#include <memory>

#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr size_t kMaxDepth = 256;
constexpr size_t kMaxItems = 10000;
constexpr size_t kMaxElements = 500000;

struct Element {
  std::string name = {};  // as written, prefix included
  std::vector<std::pair<std::string, std::string>> attributes = {};
  std::string text = {};   // its own character data: entities decoded once, CDATA as written
  size_t inner_begin = 0;  // the source between its start and end tags
  size_t inner_end = 0;
  std::vector<std::unique_ptr<Element>> children = {};

  static std::string_view local_part(std::string_view n) {
    const size_t colon = n.rfind(':');
    return colon == std::string_view::npos ? n : n.substr(colon + 1);
  }
  std::string_view local() const { return local_part(name); }
  // The value of the attribute with this local name (href, rel, rdf:about), or "".
  std::string_view attribute(std::string_view local_name) const {
    for (const auto& [k, v] : attributes) {
      if (local_part(k) == local_name) return v;
    }
    return {};
  }
  const Element* child(std::string_view local_name) const {
    for (const auto& c : children) {
      if (c->local() == local_name) return c.get();
    }
    return nullptr;
  }
};

bool xml_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Whether `c` may start an element name (ASCII letters, '_', ':' and any non-ASCII byte).
bool is_name_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u == ':' || u >= 0x80;
}

// The value of a numeric reference's digits, or 0 when they are not a character XML allows.
uint32_t code_point(std::string_view digits, bool hex) {
  if (digits.empty()) return 0;
  uint32_t cp = 0;
  for (char c : digits) {
    int d = -1;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (hex && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    if (d < 0 || cp > 0x10FFFF) return 0;
    cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
  }
  return cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF) ? cp : 0;
}

// Appends `in` with the five XML entities and numeric references decoded; anything else that
// looks like a reference (&nbsp;, a bare '&') is kept as written.
void decode_entities(std::string_view in, std::string& out) {
  for (size_t i = 0; i < in.size();) {
    const size_t amp = in.find('&', i);
    out.append(in.substr(i, amp == std::string_view::npos ? std::string_view::npos : amp - i));
    if (amp == std::string_view::npos) return;
    i = amp;
    const size_t semi = in.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) {
      out.push_back(in[i++]);
      continue;
    }
    const std::string_view name = in.substr(i + 1, semi - i - 1);
    if (name == "amp")
      out.push_back('&');
    else if (name == "lt")
      out.push_back('<');
    else if (name == "gt")
      out.push_back('>');
    else if (name == "quot")
      out.push_back('"');
    else if (name == "apos")
      out.push_back('\'');
    else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x' || name[1] == 'X';
      const uint32_t cp = code_point(name.substr(hex ? 2 : 1), hex);
      if (cp != 0)
        append_utf8(out, cp);
      else
        out.append(in.substr(i, semi + 1 - i));
    } else {
      out.append(in.substr(i, semi + 1 - i));
    }
    i = semi + 1;
  }
}

// What a document that does not start with an element is: JSON, binary data or text (quoted).
std::string describe_non_xml(std::string_view rest) {
  const char c = rest.front();
  if (c == '{' || c == '[') return "not an RSS or Atom feed: the document is JSON, not XML";
  const std::string_view head = rest.substr(0, 256);
  for (size_t i = 0; i < head.size();) {
    const auto u = static_cast<unsigned char>(head[i]);
    const size_t len = utf8_sequence_length(head, i);
    const bool cut_at_end = len == 0 && head.size() < rest.size() && head.size() - i < 4;
    if ((u < 0x20 && !xml_is_space(head[i])) || u == 0x7F || (len == 0 && !cut_at_end)) {
      return "not an RSS or Atom feed: the document is binary data, not text";
    }
    i += len == 0 ? 1 : len;
  }
  std::string_view line = rest.substr(0, rest.find_first_of("\r\n"));
  return "not an RSS or Atom feed: the document is plain text, not XML: \"" + shorten(sanitize_utf8(line), 60) + "\"";
}

class XmlReader {
 public:
  explicit XmlReader(std::string_view s) : s_(s) {}

  // The root element (an rss, feed or RDF element), or an error describing the document.
  Result<std::unique_ptr<Element>> read() {
    if (s_.starts_with("\xFE\xFF") || s_.starts_with("\xFF\xFE")) {
      return Status::InvalidArgument("the feed is UTF-16; only UTF-8 feeds (and ASCII-compatible ones) are read");
    }
    if (s_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
    const size_t start = pos_;
    if (!skip_prolog()) {
      return Status::InvalidArgument(
          "not an RSS or Atom feed: the document ends inside its prolog (an unclosed comment, declaration or DOCTYPE)");
    }
    if (pos_ >= s_.size()) {
      return Status::InvalidArgument(trim(s_.substr(start)).empty()
                                         ? "not an RSS or Atom feed: the document is empty"
                                         : "not an RSS or Atom feed: the document has no elements, only comments or "
                                           "declarations");
    }
    if (s_[pos_] != '<' || pos_ + 1 >= s_.size() || !is_name_start(s_[pos_ + 1])) {
      return Status::InvalidArgument(describe_non_xml(s_.substr(pos_)));
    }
    std::unique_ptr<Element> root;
    std::vector<Element*> stack;
    size_t elements = 0;
    while (pos_ < s_.size()) {
      if (s_[pos_] != '<') {
        const size_t lt = s_.find('<', pos_);
        const size_t end = lt == std::string_view::npos ? s_.size() : lt;
        if (!stack.empty()) decode_entities(s_.substr(pos_, end - pos_), stack.back()->text);
        pos_ = end;
        continue;
      }
      if (starts("<!--")) {
        if (!skip_past("-->")) break;
      } else if (starts("<![CDATA[")) {
        const size_t end = s_.find("]]>", pos_ + 9);
        if (end == std::string_view::npos) break;
        if (!stack.empty()) stack.back()->text.append(s_.substr(pos_ + 9, end - pos_ - 9));
        pos_ = end + 3;
      } else if (starts("<!")) {
        if (!skip_declaration()) break;
      } else if (starts("<?")) {
        if (!skip_past("?>")) break;
      } else if (starts("</")) {
        if (close_element(stack)) return root;
      } else if (pos_ + 1 < s_.size() && is_name_start(s_[pos_ + 1])) {
        auto el = std::make_unique<Element>();
        bool self_closing = false;
        if (!read_start_tag(*el, self_closing)) break;
        if (++elements > kMaxElements) {
          return Status::InvalidArgument("the feed has more than 500,000 elements; it is too large to read");
        }
        if (!root) {
          const std::string_view local = el->local();
          if (local != "rss" && local != "feed" && local != "RDF") return not_a_feed_root(*el);
        }
        Element* raw = el.get();
        if (stack.empty()) {
          if (root) break;
          root = std::move(el);
        } else {
          stack.back()->children.push_back(std::move(el));
        }
        if (self_closing) {
          if (stack.empty()) return root;
        } else {
          if (stack.size() >= kMaxDepth) {
            return Status::InvalidArgument("the feed nests elements more than 256 deep; feeds are shallow documents");
          }
          stack.push_back(raw);
        }
      } else {
        if (!stack.empty()) stack.back()->text.push_back('<');  // a stray '<' in text, as HTML allows
        ++pos_;
      }
    }
    if (!root) return Status::InvalidArgument("not an RSS or Atom feed: the document is cut off inside its first tag");
    std::string where;
    if (!stack.empty() && stack.back() != root.get()) where = " (it ends inside <" + stack.back()->name + ">)";
    return Status::InvalidArgument("the feed is cut off: the document ends before its <" + root->name +
                                   "> element closes" + where);
  }

 private:
  bool starts(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }

  bool skip_past(std::string_view end) {
    const size_t e = s_.find(end, pos_);
    if (e == std::string_view::npos) return false;
    pos_ = e + end.size();
    return true;
  }

  // Skips "<!DOCTYPE ...>" (with an internal subset in [...], quoted strings and comments in it)
  // or another "<!...>" declaration.
  bool skip_declaration() {
    char quote = 0;
    bool subset = false;
    for (size_t i = pos_ + 2; i < s_.size(); ++i) {
      const char c = s_[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (subset && s_.substr(i, 4) == "<!--") {
        const size_t e = s_.find("-->", i + 4);
        if (e == std::string_view::npos) return false;
        i = e + 2;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[') {
        subset = true;
      } else if (c == ']') {
        subset = false;
      } else if (c == '>' && !subset) {
        pos_ = i + 1;
        return true;
      }
    }
    return false;
  }

  // Whitespace, the XML declaration, processing instructions, comments and a DOCTYPE before the
  // root element; false when one of them is not closed.
  bool skip_prolog() {
    for (;;) {
      while (pos_ < s_.size() && xml_is_space(s_[pos_])) ++pos_;
      if (starts("<?")) {
        if (!skip_past("?>")) return false;
      } else if (starts("<!--")) {
        if (!skip_past("-->")) return false;
      } else if (starts("<!") && !starts("<![CDATA[")) {
        if (!skip_declaration()) return false;
      } else {
        return true;
      }
    }
  }

  Status not_a_feed_root(const Element& el) const {
    std::string m = "not an RSS or Atom feed: the document starts with <" + el.name + ">";
    if (lowercase(el.local()) == "html") {
      m += " (a web page; a page names its feed in a <link rel=\"alternate\" type=\"application/rss+xml\"> element)";
    } else {
      m += ", not <rss>, <feed> or <rdf:RDF>";
    }
    return Status::InvalidArgument(std::move(m));
  }

  // Reads "</name>" at pos_ and closes the innermost open element of that name, with any left
  // open inside it. True when that closed the root. A last "</rss" that lacks only its '>' at the
  // very end of the document closes the root too, as feed readers allow.
  bool close_element(std::vector<Element*>& stack) {
    const size_t tag = pos_;
    const size_t gt = s_.find('>', pos_);
    const bool at_end = gt == std::string_view::npos;
    const std::string_view name = trim(s_.substr(pos_ + 2, at_end ? std::string_view::npos : gt - pos_ - 2));
    pos_ = at_end ? s_.size() : gt + 1;
    for (size_t i = stack.size(); i-- > 0;) {
      if (stack[i]->name != name) continue;
      if (at_end && i != 0) return false;
      for (size_t j = i; j < stack.size(); ++j) stack[j]->inner_end = tag;
      stack.resize(i);
      return stack.empty();
    }
    return false;
  }

  // Reads "<name attr='v' ...>" or "<name .../>" at pos_; false when the document ends inside it.
  bool read_start_tag(Element& el, bool& self_closing) {
    size_t i = pos_ + 1;
    while (i < s_.size() && !xml_is_space(s_[i]) && s_[i] != '>' && s_[i] != '/') ++i;
    el.name = std::string(s_.substr(pos_ + 1, i - pos_ - 1));
    for (;;) {
      while (i < s_.size() && xml_is_space(s_[i])) ++i;
      if (i >= s_.size()) return false;
      if (s_[i] == '>' || (s_[i] == '/' && i + 1 < s_.size() && s_[i + 1] == '>')) {
        self_closing = s_[i] == '/';
        pos_ = i + (self_closing ? 2 : 1);
        el.inner_begin = el.inner_end = pos_;
        return true;
      }
      if (s_[i] == '/') {
        ++i;
        continue;
      }
      size_t key_end = i;
      while (key_end < s_.size() && !xml_is_space(s_[key_end]) && s_[key_end] != '=' && s_[key_end] != '>' &&
             s_[key_end] != '/') {
        ++key_end;
      }
      std::string key(s_.substr(i, key_end - i));
      i = key_end;
      while (i < s_.size() && xml_is_space(s_[i])) ++i;
      std::string value;
      if (i < s_.size() && s_[i] == '=') {
        ++i;
        while (i < s_.size() && xml_is_space(s_[i])) ++i;
        if (i < s_.size() && (s_[i] == '"' || s_[i] == '\'')) {
          const size_t close = s_.find(s_[i], i + 1);
          if (close == std::string_view::npos) return false;
          decode_entities(s_.substr(i + 1, close - i - 1), value);
          i = close + 1;
        } else {
          const size_t v = i;
          while (i < s_.size() && !xml_is_space(s_[i]) && s_[i] != '>') ++i;
          decode_entities(s_.substr(v, i - v), value);
        }
      }
      if (!key.empty()) el.attributes.emplace_back(std::move(key), std::move(value));
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// The picking of items and their fields from the tree; `src` is the document, for markup kept as
// written.
class FeedBuilder {
 public:
  explicit FeedBuilder(std::string_view src) : src_(src) {}

  // An element's text: trimmed character data, or for XHTML content and HTML written unescaped
  // (child elements), its inner markup as written (inside the wrapping <div> for type="xhtml").
  std::string content(const Element* e) const {
    if (e == nullptr) return {};
    if (lowercase(e->attribute("type")) == "xhtml") {
      const Element* inner = e->children.size() == 1 && e->children[0]->local() == "div" ? e->children[0].get() : e;
      return raw(*inner);
    }
    return e->children.empty() ? std::string(trim(e->text)) : raw(*e);
  }

  FeedItem rss_item(const Element& item) const {
    FeedItem f;
    f.title = content(item.child("title"));
    for (const auto& c : item.children) {  // <link>text</link>; else an Atom-style link's href
      if (c->local() == "link" && f.link.empty()) f.link = content(c.get());
    }
    if (f.link.empty()) f.link = atom_link(item);
    f.id = content(item.child("guid"));
    if (f.id.empty()) f.id = std::string(trim(item.attribute("about")));  // RSS 1.0's rdf:about
    f.published = content(item.child("pubDate"));
    if (f.published.empty()) f.published = content(item.child("date"));
    f.summary = content(item.child("description"));
    if (f.summary.empty()) f.summary = content(item.child("encoded"));
    return f;
  }

  FeedItem atom_entry(const Element& entry) const {
    FeedItem f;
    f.title = content(entry.child("title"));
    f.id = content(entry.child("id"));
    f.link = atom_link(entry);
    f.published = content(entry.child("published"));
    if (f.published.empty()) f.published = content(entry.child("updated"));
    f.summary = content(entry.child("summary"));
    if (f.summary.empty()) f.summary = content(entry.child("content"));
    return f;
  }

 private:
  std::string raw(const Element& e) const {
    return std::string(trim(src_.substr(e.inner_begin, e.inner_end - e.inner_begin)));
  }

  // The first <link> with rel="alternate" or no rel: its href, or its text when it has none.
  std::string atom_link(const Element& parent) const {
    for (const auto& c : parent.children) {
      if (c->local() != "link") continue;
      const std::string_view rel = trim(c->attribute("rel"));
      if (!rel.empty() && rel != "alternate") continue;
      std::string href(trim(c->attribute("href")));
      if (href.empty()) href = content(c.get());
      if (!href.empty()) return href;
    }
    return {};
  }

  std::string_view src_;
};

}  // namespace

Result<Feed> parse_feed(std::string_view xml) {
  XmlReader reader(xml);
  KEEL_ASSIGN_OR_RETURN(std::unique_ptr<Element> root, reader.read());
  const FeedBuilder builder(xml);
  Feed feed;
  const std::string_view local = root->local();
  std::vector<const Element*> items;
  if (local == "feed") {
    feed.kind = "atom";
    feed.title = builder.content(root->child("title"));
    for (const auto& c : root->children) {
      if (c->local() == "entry") items.push_back(c.get());
    }
  } else {
    feed.kind = local == "rss" ? "rss" : "rdf";
    const Element* channel = root->child("channel");
    if (channel != nullptr) feed.title = builder.content(channel->child("title"));
    // RSS 2.0 keeps items in the channel; RSS 0.90 and 1.0 (RDF), and some 0.9x feeds, beside it.
    for (const Element* parent : {channel, static_cast<const Element*>(root.get())}) {
      if (parent == nullptr) continue;
      for (const auto& c : parent->children) {
        if (c->local() == "item") items.push_back(c.get());
      }
    }
    // Items both inside and beside a channel are rare; keep document order either way.
    std::sort(items.begin(), items.end(),
              [](const Element* a, const Element* b) { return a->inner_begin < b->inner_begin; });
  }
  if (items.size() > kMaxItems) {
    return Status::InvalidArgument("the feed has " + std::to_string(items.size()) + " items; at most 10,000 are read");
  }
  feed.items.reserve(items.size());
  for (const Element* e : items) {
    FeedItem f = feed.kind == "atom" ? builder.atom_entry(*e) : builder.rss_item(*e);
    if (f.id.empty() && !f.link.empty()) f.id = f.link;
    if (f.id.empty() && !(f.title.empty() && f.published.empty())) f.id = f.title + "\n" + f.published;
    feed.items.push_back(std::move(f));
  }
  return feed;
}

}  // namespace keel::detail
