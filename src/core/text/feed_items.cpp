// Reading RSS and Atom feeds (feed_items.hpp): a small tolerant XML reader that builds a tree of
// elements, then the feed's items picked from it by local name.
#include "core/text/feed_items.hpp"

#include <memory>

#include "core/text/text_util.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

constexpr size_t kMaxDepth = 256;
constexpr size_t kMaxItems = 10000;
constexpr size_t kMaxElements = 500000;

struct Element {
  std::string name;  // as written, prefix included
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;
  std::vector<std::unique_ptr<Element>> children;

  std::string_view local() const {
    size_t colon = name.rfind(':');
    return colon == std::string::npos ? std::string_view(name) : std::string_view(name).substr(colon + 1);
  }
  std::string attribute(std::string_view key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) return v;
    }
    return {};
  }
  const Element* child(std::string_view local_name) const {
    for (const auto& c : children) {
      if (c->local() == local_name) return c.get();
    }
    return nullptr;
  }
  std::string child_text(std::string_view local_name) const {
    const Element* c = child(local_name);
    return c == nullptr ? std::string() : std::string(trim(c->text));
  }
};

void decode_entities(std::string_view in, std::string& out) {
  for (size_t i = 0; i < in.size();) {
    if (in[i] != '&') {
      out.push_back(in[i++]);
      continue;
    }
    size_t semi = in.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) {
      out.push_back(in[i++]);
      continue;
    }
    std::string_view name = in.substr(i + 1, semi - i - 1);
    bool done = true;
    if (name == "amp") out.push_back('&');
    else if (name == "lt") out.push_back('<');
    else if (name == "gt") out.push_back('>');
    else if (name == "quot") out.push_back('"');
    else if (name == "apos") out.push_back('\'');
    else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x' || name[1] == 'X';
      std::string_view digits = name.substr(hex ? 2 : 1);
      uint32_t cp = 0;
      bool ok = !digits.empty();
      for (char c : digits) {
        int d = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0 || cp > 0x10FFFF) {
          ok = false;
          break;
        }
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
      }
      if (ok && cp > 0 && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF)) append_utf8(out, cp);
      else done = false;
    } else {
      done = false;
    }
    if (done) {
      i = semi + 1;
    } else {
      out.append(in.substr(i, semi + 1 - i));
      i = semi + 1;
    }
  }
}

class XmlReader {
 public:
  explicit XmlReader(std::string_view s) : s_(s) {}

  // The root element, or an error describing the document.
  Result<std::unique_ptr<Element>> read() {
    skip_prolog();
    if (pos_ >= s_.size()) return Status::InvalidArgument("not an RSS or Atom feed: the document is empty");
    if (s_[pos_] != '<') {
      const char c = s_[pos_];
      std::string what = c == '{' || c == '[' ? "JSON" : "text";
      return Status::InvalidArgument("not an RSS or Atom feed: the document is " + what + ", not XML");
    }
    std::vector<Element*> stack;
    std::unique_ptr<Element> root;
    size_t elements = 0;
    while (pos_ < s_.size()) {
      if (s_[pos_] != '<') {
        size_t lt = s_.find('<', pos_);
        if (!stack.empty()) decode_entities(s_.substr(pos_, lt == std::string_view::npos ? std::string_view::npos : lt - pos_), stack.back()->text);
        if (lt == std::string_view::npos) break;
        pos_ = lt;
        continue;
      }
      if (starts("<!--")) {
        if (!skip_past("-->")) break;
        continue;
      }
      if (starts("<![CDATA[")) {
        size_t end = s_.find("]]>", pos_ + 9);
        if (end == std::string_view::npos) break;
        if (!stack.empty()) stack.back()->text.append(s_.substr(pos_ + 9, end - pos_ - 9));
        pos_ = end + 3;
        continue;
      }
      if (starts("<!") || starts("<?")) {
        if (!skip_past(">")) break;
        continue;
      }
      if (starts("</")) {
        size_t gt = s_.find('>', pos_);
        if (gt == std::string_view::npos) break;
        std::string name(trim(s_.substr(pos_ + 2, gt - pos_ - 2)));
        pos_ = gt + 1;
        // Close the innermost open element of that name (and any left open inside it).
        for (size_t i = stack.size(); i-- > 0;) {
          if (stack[i]->name == name) {
            stack.resize(i);
            break;
          }
        }
        if (stack.empty() && root) return root;
        continue;
      }
      auto el = std::make_unique<Element>();
      bool self_closing = false;
      if (!read_start_tag(*el, self_closing)) break;
      if (++elements > kMaxElements) return Status::InvalidArgument("the feed has too many elements");
      if (!root) {
        const std::string_view local = el->local();
        if (local != "rss" && local != "feed" && local != "RDF") {
          return Status::InvalidArgument("not an RSS or Atom feed: the document starts with <" + el->name + ">");
        }
      }
      Element* raw = el.get();
      if (stack.empty()) {
        if (root) break;  // a second root: ignore the rest
        root = std::move(el);
      } else {
        stack.back()->children.push_back(std::move(el));
      }
      if (!self_closing) {
        if (stack.size() >= kMaxDepth) return Status::InvalidArgument("the feed nests elements deeper than 256");
        stack.push_back(raw);
      } else if (stack.empty()) {
        return root;
      }
    }
    if (!root) return Status::InvalidArgument("not an RSS or Atom feed: no root element");
    return Status::InvalidArgument("the feed ends before its <" + root->name +
                                   "> element closes (the document is cut off)");
  }

 private:
  bool starts(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }

  bool skip_past(std::string_view end) {
    size_t e = s_.find(end, pos_);
    if (e == std::string_view::npos) return false;
    pos_ = e + end.size();
    return true;
  }

  void skip_prolog() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    for (;;) {
      while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) ++pos_;
      if (starts("<?") && skip_past("?>")) continue;
      if (starts("<!--") && skip_past("-->")) continue;
      if (starts("<!") && !starts("<![CDATA[") && skip_past(">")) continue;
      return;
    }
  }

  // Reads "<name attr='v' ...>" or "<name .../>" at pos_.
  bool read_start_tag(Element& el, bool& self_closing) {
    size_t i = pos_ + 1;
    size_t name_end = i;
    while (name_end < s_.size() && !is_space(s_[name_end]) && s_[name_end] != '>' && s_[name_end] != '/') ++name_end;
    el.name = std::string(s_.substr(i, name_end - i));
    if (el.name.empty()) return false;
    i = name_end;
    for (;;) {
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size()) return false;
      if (s_[i] == '>') {
        pos_ = i + 1;
        return true;
      }
      if (s_[i] == '/') {
        if (i + 1 < s_.size() && s_[i + 1] == '>') {
          self_closing = true;
          pos_ = i + 2;
          return true;
        }
        ++i;
        continue;
      }
      size_t key_end = i;
      while (key_end < s_.size() && !is_space(s_[key_end]) && s_[key_end] != '=' && s_[key_end] != '>' &&
             s_[key_end] != '/') {
        ++key_end;
      }
      std::string key(s_.substr(i, key_end - i));
      i = key_end;
      while (i < s_.size() && is_space(s_[i])) ++i;
      std::string value;
      if (i < s_.size() && s_[i] == '=') {
        ++i;
        while (i < s_.size() && is_space(s_[i])) ++i;
        if (i < s_.size() && (s_[i] == '"' || s_[i] == '\'')) {
          size_t close = s_.find(s_[i], i + 1);
          if (close == std::string_view::npos) return false;
          decode_entities(s_.substr(i + 1, close - i - 1), value);
          i = close + 1;
        } else {
          size_t v = i;
          while (i < s_.size() && !is_space(s_[i]) && s_[i] != '>') ++i;
          value = std::string(s_.substr(v, i - v));
        }
      }
      if (!key.empty()) el.attributes.emplace_back(std::move(key), std::move(value));
    }
  }

  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

  std::string_view s_;
  size_t pos_ = 0;
};

FeedItem rss_item(const Element& item) {
  FeedItem f;
  f.title = item.child_text("title");
  for (const auto& c : item.children) {
    if (c->local() != "link") continue;
    std::string text(trim(c->text));
    f.link = !text.empty() ? text : c->attribute("href");
    if (!f.link.empty()) break;
  }
  f.id = item.child_text("guid");
  f.published = item.child_text("pubDate");
  if (f.published.empty()) f.published = item.child_text("date");
  f.summary = item.child_text("description");
  if (f.summary.empty()) f.summary = item.child_text("encoded");
  return f;
}

FeedItem atom_entry(const Element& entry) {
  FeedItem f;
  f.title = entry.child_text("title");
  f.id = entry.child_text("id");
  for (const auto& c : entry.children) {
    if (c->local() != "link") continue;
    const std::string rel = c->attribute("rel");
    if (rel.empty() || rel == "alternate") {
      f.link = c->attribute("href");
      break;
    }
  }
  f.published = entry.child_text("published");
  if (f.published.empty()) f.published = entry.child_text("updated");
  f.summary = entry.child_text("summary");
  if (f.summary.empty()) f.summary = entry.child_text("content");
  return f;
}

}  // namespace

Result<Feed> parse_feed(std::string_view xml) {
  XmlReader reader(xml);
  KEEL_ASSIGN_OR_RETURN(std::unique_ptr<Element> root, reader.read());
  Feed feed;
  const std::string_view local = root->local();
  std::vector<const Element*> items;
  if (local == "feed") {
    feed.kind = "atom";
    feed.title = root->child_text("title");
    for (const auto& c : root->children) {
      if (c->local() == "entry") items.push_back(c.get());
    }
  } else {
    feed.kind = local == "rss" ? "rss" : "rdf";
    const Element* channel = root->child("channel");
    if (channel != nullptr) feed.title = channel->child_text("title");
    // RSS 2.0 keeps items in the channel; RSS 0.90 and 1.0 (RDF) beside it.
    for (const Element* parent : {channel, static_cast<const Element*>(root.get())}) {
      if (parent == nullptr) continue;
      for (const auto& c : parent->children) {
        if (c->local() == "item") items.push_back(c.get());
      }
    }
  }
  if (items.size() > kMaxItems) return Status::InvalidArgument("the feed has more than 10,000 items");
  for (const Element* e : items) {
    FeedItem f = feed.kind == "atom" ? atom_entry(*e) : rss_item(*e);
    if (f.id.empty()) f.id = !f.link.empty() ? f.link : f.title + "\n" + f.published;
    feed.items.push_back(std::move(f));
  }
  return feed;
}

}  // namespace keel::detail
