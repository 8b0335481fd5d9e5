#include "keel/tool.hpp"

#include <nlohmann/json.hpp>

namespace keel {
namespace {

class FunctionTool final : public Tool {
 public:
  FunctionTool(ToolSpec spec, ToolFunction fn) : spec_(std::move(spec)), fn_(std::move(fn)) {}
  const ToolSpec& spec() const override { return spec_; }
  Result<std::string> execute(const nlohmann::json& args, const ToolContext& ctx) override { return fn_(args, ctx); }

 private:
  ToolSpec spec_;
  ToolFunction fn_;
};

}  // namespace

std::unique_ptr<Tool> make_tool(ToolSpec spec, ToolFunction fn) {
  return std::make_unique<FunctionTool>(std::move(spec), std::move(fn));
}

}  // namespace keel
