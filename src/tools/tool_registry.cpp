#include "keel/tool_registry.hpp"

#include <nlohmann/json.hpp>

#include "tools/schema_validator.hpp"

namespace keel {
namespace {

constexpr size_t kMaxNameLength = 64;

bool valid_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

Status check_name(const std::string& name) {
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

}  // namespace

Status ToolRegistry::add(std::unique_ptr<Tool> tool) {
  if (tool == nullptr) return Status::InvalidArgument("cannot add a null tool");
  const ToolSpec& spec = tool->spec();
  KEEL_TRY(check_name(spec.name));
  if (find(spec.name) != nullptr) {
    return Status::InvalidArgument("a tool named '" + spec.name + "' is already registered");
  }
  auto schema = detail::CompiledSchema::compile(spec.parameters_schema);
  if (!schema.ok()) return Status::InvalidArgument("tool '" + spec.name + "': " + schema.status().message());
  try {
    schemas_.reserve(schemas_.size() + 1);
    tools_.reserve(tools_.size() + 1);
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory adding tool '" + spec.name + "'");
  }
  // Both vectors have room now; the push_backs below cannot throw.
  schemas_.push_back(std::move(schema).value());
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
    if (tools_[i]->spec().name == name) return schemas_[i]->validate(args, name);
  }
  return Status::NotFound("unknown tool '" + std::string(name) + "'");
}

}  // namespace keel
