// tools/schema_validator.hpp — a tool's JSON Schema, compiled once, and argument validation
// against it with messages a model can act on.
//
//   auto schema = CompiledSchema::compile(spec.parameters_schema);   // at ToolRegistry::add
//   Status s = (*schema)->validate(args, "fs_read");
//   // "invalid arguments for fs_read: /path: missing required property; /limit: expected
//   //  integer, got string"
//
// valijson (draft 7) decides validity; its raw error list is rewritten into one line per failure,
// keyed by the JSON pointer of the offending value, with the cascade of "failed to validate
// against ..." wrapper errors removed.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

// Thread-safety: immutable after compile(); validate() is const and safe from any thread (each
// call uses its own valijson::Validator).
class CompiledSchema {
 public:
  // Parses and compiles a draft-7 schema given as JSON text. InvalidArgument when the text is not
  // JSON, not an object, or not a schema valijson accepts (e.g. an unknown type name).
  static Result<std::shared_ptr<const CompiledSchema>> compile(std::string_view schema_text);

  ~CompiledSchema();
  CompiledSchema(const CompiledSchema&) = delete;
  CompiledSchema& operator=(const CompiledSchema&) = delete;

  // Ok, or InvalidArgument "invalid arguments for <tool_name>: <pointer>: <problem>; ...".
  Status validate(const nlohmann::json& value, std::string_view tool_name) const;

  // The schema as parsed JSON (used to explain failures).
  const nlohmann::json& json() const;

 private:
  struct Impl;
  explicit CompiledSchema(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel::detail
