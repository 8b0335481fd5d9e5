// SKILL.md parsing: frontmatter split, YAML read with yaml-cpp (which throws; every access is in
// one try block), each key checked before it is converted. Messages carry file lines: the
// frontmatter starts on the file's second line, so a YAML mark's 0-based line L is line L + 2.
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "keel/knowledge_skills.hpp"

namespace keel {
namespace {

constexpr size_t kMaxNameLength = 64;

struct Split {
  std::string frontmatter;
  std::string body;
};

bool is_fence(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line == "---";
}

// `text` with a byte order mark removed and CRLF turned into LF.
std::string normalized(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out.push_back(text[i]);
  }
  return out;
}

Result<Split> split_frontmatter(const std::string& text, const std::string& file) {
  size_t eol = text.find('\n');
  std::string_view first = std::string_view(text).substr(0, eol);
  if (!is_fence(first)) {
    return Status::InvalidArgument(file +
                                   ":1: no frontmatter: SKILL.md must start with a line `---`, then `name:` and "
                                   "`description:`, then another `---` line");
  }
  size_t pos = eol == std::string::npos ? text.size() : eol + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line =
        std::string_view(text).substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (is_fence(line)) {
      Split out;
      out.frontmatter = text.substr(eol + 1, pos - eol - 1);
      out.body = end == std::string::npos ? std::string() : text.substr(end + 1);
      return out;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return Status::InvalidArgument(file + ":1: the frontmatter opened here is not closed: add a line `---` after it");
}

std::string at(const std::string& file, const YAML::Mark& mark) {
  std::string out = file;
  out += ':';
  out += std::to_string(mark.line < 0 ? 1 : mark.line + 2);
  out += ": ";
  return out;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '-' && c != '_' && c != '.'))) return false;
  }
  return true;
}

std::string trimmed(std::string text) {
  size_t begin = text.find_first_not_of(" \t\n");
  if (begin == std::string::npos) return {};
  size_t end = text.find_last_not_of(" \t\n");
  return text.substr(begin, end - begin + 1);
}

// A string value, or an error naming the key and its line.
Result<std::string> scalar(const YAML::Node& node, const char* key, const std::string& file) {
  if (!node.IsScalar()) {
    return Status::InvalidArgument(at(file, node.Mark()) + key + " must be a string");
  }
  return node.Scalar();
}

// A list of strings; a single string counts as a list of one.
Result<std::vector<std::string>> strings(const YAML::Node& node, const char* key, const std::string& file) {
  std::vector<std::string> out;
  if (node.IsNull()) return out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) {
    return Status::InvalidArgument(at(file, node.Mark()) + key + " must be a list of strings, e.g. [gas, fees]");
  }
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) {
      return Status::InvalidArgument(at(file, item.Mark()) + key + " must be a list of strings, e.g. [gas, fees]");
    }
    if (!item.Scalar().empty()) out.push_back(item.Scalar());
  }
  return out;
}

Result<std::string> required(const YAML::Node& root, const char* key, const char* example, const std::string& file) {
  const YAML::Node node = root[key];
  if (!node || node.IsNull()) {
    return Status::InvalidArgument(at(file, root.Mark()) + "the frontmatter has no " + key + "; add e.g. `" + key +
                                   ": " + example + "`");
  }
  KEEL_ASSIGN_OR_RETURN(std::string value, scalar(node, key, file));
  value = trimmed(std::move(value));
  if (value.empty()) return Status::InvalidArgument(at(file, node.Mark()) + key + " must not be empty");
  return value;
}

Status read_frontmatter(const YAML::Node& root, const std::string& file, KnowledgeSkill& out,
                        std::vector<std::string>& warnings) {
  if (!root.IsMap()) {
    YAML::Mark mark = root.Mark();
    if (root.IsNull()) mark.line = -1;  // an empty frontmatter: point at its first line
    return Status::InvalidArgument(at(file, mark) +
                                   "the frontmatter must be a mapping of keys to values, "
                                   "e.g. `name: gas` and `description: ...`");
  }
  KEEL_ASSIGN_OR_RETURN(out.name, required(root, "name", "gas", file));
  if (!valid_name(out.name)) {
    return Status::InvalidArgument(at(file, root["name"].Mark()) + "name '" + out.name +
                                   "' is not a skill name: use letters, digits, '-', '_' and '.', starting with a "
                                   "letter or digit, at most 64 characters");
  }
  KEEL_ASSIGN_OR_RETURN(out.description, required(root, "description", "what the skill is for", file));
  if (const YAML::Node n = root["triggers"]) {
    KEEL_ASSIGN_OR_RETURN(out.triggers, strings(n, "triggers", file));
  }
  const YAML::Node camel = root["triggerPatterns"];
  const YAML::Node snake = root["trigger_patterns"];
  if (camel && snake) {
    return Status::InvalidArgument(at(file, snake.Mark()) +
                                   "triggerPatterns and trigger_patterns are the same setting; keep one");
  }
  if (const YAML::Node n = camel ? camel : snake) {
    const char* key = camel ? "triggerPatterns" : "trigger_patterns";
    KEEL_ASSIGN_OR_RETURN(std::vector<std::string> patterns, strings(n, key, file));
    for (const std::string& p : patterns) {
      RE2::Options options;
      options.set_case_sensitive(false);
      options.set_log_errors(false);
      RE2 re(p, options);
      if (!re.ok()) {
        warnings.push_back(at(file, n.Mark()) + key + " has '" + p +
                           "', which is not a valid RE2 regular expression (" + re.error() + "); it is ignored");
        continue;
      }
      out.trigger_patterns.push_back(p);
    }
  }
  if (const YAML::Node n = root["domain"]) {
    if (!n.IsNull()) {
      KEEL_ASSIGN_OR_RETURN(out.domain, scalar(n, "domain", file));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<KnowledgeSkill> parse_knowledge_skill(std::string_view text, const std::string& file,
                                             std::vector<std::string>& warnings) {
  KEEL_ASSIGN_OR_RETURN(Split split, split_frontmatter(normalized(text), file));
  KnowledgeSkill skill;
  skill.file = file;
  skill.frontmatter = std::move(split.frontmatter);
  size_t body_start = split.body.find_first_not_of('\n');
  skill.body = body_start == std::string::npos ? std::string() : split.body.substr(body_start);
  while (!skill.body.empty() && (skill.body.back() == '\n' || skill.body.back() == ' ')) skill.body.pop_back();
  std::vector<std::string> found;
  try {
    YAML::Node root = YAML::Load(skill.frontmatter);
    KEEL_TRY(read_frontmatter(root, file, skill, found));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(at(file, e.mark) + "not valid YAML: " + e.msg + " (column " +
                                   std::to_string(e.mark.column + 1) + ")");
  } catch (const std::exception& e) {
    return Status::InvalidArgument(file + ": the frontmatter cannot be read: " + e.what());
  }
  warnings.insert(warnings.end(), found.begin(), found.end());
  return skill;
}

}  // namespace keel
