#include "keel/tool_registry.hpp"

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/schema_validator.hpp"

namespace keel {
namespace {

constexpr size_t kMaxNameLength = 64;

bool valid_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

}  // namespace

Status check_tool_name(std::string_view name_view) {
  const std::string name(name_view);
  if (name.empty()) return Status::InvalidArgument("tool name is empty");
  if (name.size() > kMaxNameLength) {
    return Status::InvalidArgument("tool name '" + name.substr(0, kMaxNameLength) + "...' is longer than " +
                                   std::to_string(kMaxNameLength) + " characters");
  }
  for (char c : name) {
    if (!valid_name_char(c)) {
      return Status::InvalidArgument("tool name '" + name +
                                     "' may only contain letters, digits, '_', '.' and '-'");
    }
  }
  return Status::Ok();
}

namespace detail {

// A tool's compiled schema, or how to compile it at the first call (deferred adds).
struct ToolSchema {
  std::string text;  // kept only while deferred
  mutable std::once_flag once;
  mutable std::shared_ptr<const CompiledSchema> compiled;
  mutable Status error;

  const CompiledSchema* get(std::string_view tool) const {
    std::call_once(once, [&] {
      if (compiled != nullptr) return;
      auto made = CompiledSchema::compile(text);
      if (made.ok()) compiled = std::move(made).value();
      else error = Status::InvalidArgument("tool '" + std::string(tool) + "': " + made.status().message());
    });
    return compiled.get();
  }
};

}  // namespace detail

ToolRegistry::ToolRegistry() = default;
ToolRegistry::~ToolRegistry() = default;
ToolRegistry::ToolRegistry(ToolRegistry&&) noexcept = default;
ToolRegistry& ToolRegistry::operator=(ToolRegistry&&) noexcept = default;

Status ToolRegistry::add(std::unique_ptr<Tool> tool) {
  if (tool == nullptr) return Status::InvalidArgument("cannot add a null tool");
  const ToolSpec& spec = tool->spec();
  KEEL_TRY(check_tool_name(spec.name));
  if (find(spec.name) != nullptr) {
    return Status::InvalidArgument("a tool named '" + spec.name + "' is already registered");
  }
  std::unique_ptr<detail::ToolSchema> schema;
  try {
    schema = std::make_unique<detail::ToolSchema>();
    if (defer_) {
      const auto open = spec.parameters_schema.find_first_not_of(" \t\r\n");
      if (open == std::string::npos || spec.parameters_schema[open] != '{' ||
          !nlohmann::json::accept(spec.parameters_schema)) {
        return Status::InvalidArgument("tool '" + spec.name + "': parameters_schema must be a JSON object");
      }
      schema->text = spec.parameters_schema;
    } else {
      auto compiled = detail::CompiledSchema::compile(spec.parameters_schema);
      if (!compiled.ok()) return Status::InvalidArgument("tool '" + spec.name + "': " + compiled.status().message());
      schema->compiled = std::move(compiled).value();
    }
    schemas_.reserve(schemas_.size() + 1);
    tools_.reserve(tools_.size() + 1);
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory adding tool '" + spec.name + "'");
  }
  // Both vectors have room now; the push_backs below cannot throw.
  schemas_.push_back(std::move(schema));
  tools_.push_back(std::move(tool));
  return Status::Ok();
}

Tool* ToolRegistry::find(std::string_view name) const {
  for (const auto& tool : tools_) {
    if (tool->spec().name == name) return tool.get();
  }
  return nullptr;
}

std::vector<ToolSpec> ToolRegistry::specs() const {
  std::vector<ToolSpec> out;
  out.reserve(tools_.size());
  for (const auto& tool : tools_) out.push_back(tool->spec());
  return out;
}

Status ToolRegistry::validate_arguments(std::string_view name, const nlohmann::json& args) const {
  for (size_t i = 0; i < tools_.size(); ++i) {
    if (tools_[i]->spec().name != name) continue;
    const detail::CompiledSchema* schema = schemas_[i]->get(name);
    return schema != nullptr ? schema->validate(args, name) : schemas_[i]->error;
  }
  return Status::NotFound("unknown tool '" + std::string(name) + "'");
}

}  // namespace keel
