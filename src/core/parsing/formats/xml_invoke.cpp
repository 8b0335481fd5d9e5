#include "core/parsing/formats/xml_invoke.hpp"

#include "core/parsing/formats/format_util.hpp"
#include "core/parsing/formats/text_scan.hpp"

namespace keel::detail {
namespace {
namespace xml_invoke {


// Where the value starting at `from` ends: at the first closing parameter tag that is followed by
// the next parameter, the end of the call or the end of the text (a value may hold the closing
// tag itself, as code and markup do); the first closing tag when none is; kNpos when there is none.
size_t value_end(std::string_view text, size_t from, const XmlInvokeTags& tags) {
  const size_t first = text.find(tags.param_close, from);
  for (size_t c = first; c != kNpos; c = text.find(tags.param_close, c + tags.param_close.size())) {
    size_t q = skip_space(text, c + tags.param_close.size());
    if (q == text.size() || starts_at(text, q, tags.param) || starts_at(text, q, tags.invoke_close)) return c;
  }
  return first;
}

constexpr std::string_view kCdata = "<![CDATA[";
constexpr std::string_view kCdataEnd = "]]>";

// The end ("]]>") of the CDATA section opening at `from` that the closing parameter tag follows;
// kNpos when none does (the text ended inside the value).
size_t cdata_end(std::string_view text, size_t from, const XmlInvokeTags& tags) {
  for (size_t e = text.find(kCdataEnd, from + kCdata.size()); e != kNpos; e = text.find(kCdataEnd, e + 1)) {
    if (starts_at(text, skip_space(text, e + kCdataEnd.size()), tags.param_close)) return e;
  }
  return kNpos;
}

}  // namespace xml_invoke
}  // namespace

XmlInvokeRead read_xml_invoke(std::string_view text, size_t pos, const XmlInvokeTags& tags,
                              std::span<const ToolSpec> tools, FormatResult& out) {
  XmlInvokeRead r;
  const Label where({tags.invoke, ">"}, pos);
  auto cut = [&](const std::string& what) {
    fail(out, where + ": cut off " + what);
    r.cut_off = true;
    r.end = text.size();
    return r;
  };
  auto broken = [&](const std::string& what) {
    fail(out, where + ": " + what);
    size_t close = text.find(tags.invoke_close, pos);
    r.end = close == kNpos ? text.size() : close + tags.invoke_close.size();
    return r;
  };
  size_t p;
  std::string_view name = xml_name_attribute(text, pos + tags.invoke.size(), p);
  if (p == kNpos) return cut("inside the tool name");
  if (p == pos + tags.invoke.size() || name.empty()) {
    return broken("expected name=\"TOOL\"> at offset " + std::to_string(pos + tags.invoke.size()));
  }
  CallDraft draft;
  draft.name = std::string(name);
  ParameterTypes types(tools, draft.name);
  JsonObjectWriter args;
  while (true) {
    size_t q = skip_space(text, p);
    if (q == text.size()) return cut("in the call to '" + draft.name + "' before " + std::string(tags.invoke_close));
    if (starts_at(text, q, tags.invoke_close)) {
      r.end = q + tags.invoke_close.size();
      break;
    }
    if (!starts_at(text, q, tags.param)) {
      return broken("expected " + std::string(tags.param) + " or " + std::string(tags.invoke_close) + " at offset " +
                    std::to_string(q) + " in the call to '" + draft.name + "'");
    }
    size_t value_b;
    std::string_view key = xml_name_attribute(text, q + tags.param.size(), value_b);
    if (value_b == kNpos) return cut("inside a parameter name of '" + draft.name + "'");
    if (value_b == q + tags.param.size() || key.empty()) {
      return broken("malformed parameter tag at offset " + std::to_string(q));
    }
    if (tags.cdata && starts_at(text, value_b, xml_invoke::kCdata)) {
      const size_t data_e = xml_invoke::cdata_end(text, value_b, tags);
      if (data_e == kNpos) {
        return cut("inside the CDATA value of parameter '" + std::string(key) + "' of '" + draft.name +
                   "' (expected ]]>" + std::string(tags.param_close) + ")");
      }
      const size_t data_b = value_b + xml_invoke::kCdata.size();
      args.key(key);
      write_typed_parameter(args, text.substr(data_b, data_e - data_b), types, key);
      p = skip_space(text, data_e + xml_invoke::kCdataEnd.size()) + tags.param_close.size();
      continue;
    }
    size_t value_e = xml_invoke::value_end(text, value_b, tags);
    if (value_e == kNpos) {
      return cut("inside parameter '" + std::string(key) + "' of '" + draft.name + "' (expected " +
                 std::string(tags.param_close) + ")");
    }
    args.key(key);
    write_typed_parameter(args, text.substr(value_b, value_e - value_b), types, key);
    p = value_e + tags.param_close.size();
  }
  draft.valid_utf8 = args.valid();
  draft.arguments = std::move(args).finish();
  commit(out, std::move(draft), where);
  r.ok = true;
  return r;
}

// The value of ` name="..."` (or '...') followed by '>' at `pos`; `end` is just past the '>'.
// Empty with end == kNpos when the text ends first; end == pos when it is malformed.
std::string_view xml_name_attribute(std::string_view text, size_t pos, size_t& end) {
  end = pos;
  size_t p = skip_space(text, pos);
  if (!starts_at(text, p, "name=")) {
    if (std::string_view("name=").starts_with(text.substr(p))) end = kNpos;  // cut off inside "name="
    return {};
  }
  p += 5;
  if (p == text.size()) {
    end = kNpos;
    return {};
  }
  const char q = text[p];
  if (q != '"' && q != '\'') return {};
  size_t close = text.find(q, p + 1);
  if (close == kNpos) {
    end = kNpos;
    return {};
  }
  size_t gt = skip_space(text, close + 1);
  if (gt == text.size()) {
    end = kNpos;
    return {};
  }
  if (text[gt] != '>') return {};
  end = gt + 1;
  return text.substr(p + 1, close - p - 1);
}

}  // namespace keel::detail
