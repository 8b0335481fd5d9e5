#include "keel/tool.hpp"

#include <exception>
#include <nlohmann/json.hpp>

namespace keel {
namespace {

class FunctionTool final : public Tool {
 public:
  FunctionTool(ToolSpec spec, ToolFunction fn) : spec_(std::move(spec)), fn_(std::move(fn)) {}
  const ToolSpec& spec() const override { return spec_; }
  // An exception from the function (allocation failure, a library that throws) becomes an error
  // result naming the tool, worded as the executor words one from any Tool, so none crosses
  // execute().
  Result<std::string> execute(const nlohmann::json& args, const ToolContext& ctx) override {
    try {
      return fn_(args, ctx);
    } catch (const std::exception& e) {
      return Status::Internal("tool " + spec_.name + " failed: " + e.what());
    } catch (...) {
      return Status::Internal("tool " + spec_.name + " failed: unknown exception");
    }
  }

 private:
  ToolSpec spec_;
  ToolFunction fn_;
};

}  // namespace

std::unique_ptr<Tool> make_tool(ToolSpec spec, ToolFunction fn) {
  return std::make_unique<FunctionTool>(std::move(spec), std::move(fn));
}

}  // namespace keel
