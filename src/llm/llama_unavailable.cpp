// keel/local_model.hpp in a build without llama.cpp (cmake -DKEEL_LLAMA=OFF): every entry point
// says so, and how to get it.
#include "keel/local_model.hpp"

#if !KEEL_HAS_LLAMA
namespace keel {
namespace {
Status unavailable() {
  return Status::Unavailable("this keel was built without llama.cpp, so gguf: and local/ models cannot run; "
                             "rebuild with -DKEEL_LLAMA=ON (the default) or use a model server (ollama/, llamacpp/)");
}
}  // namespace

struct LocalModel::Impl {};
struct LocalClient::Impl {};

bool local_inference_available() { return false; }
LocalModel::LocalModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LocalModel::~LocalModel() = default;
Result<std::shared_ptr<LocalModel>> LocalModel::load(const std::string&, const LocalLoadOptions&) { return unavailable(); }
const LocalModelInfo& LocalModel::info() const {
  static const LocalModelInfo none;
  return none;
}
Result<std::vector<int32_t>> LocalModel::tokenize(std::string_view, bool, bool) const { return unavailable(); }
std::string LocalModel::detokenize(const std::vector<int32_t>&) const { return {}; }
LocalTokenCounter::LocalTokenCounter(std::shared_ptr<const LocalModel> model, size_t overhead)
    : model_(std::move(model)), overhead_(overhead) {}
size_t LocalTokenCounter::count(std::string_view text) const { return EstimatingTokenCounter().count(text); }
LocalClient::LocalClient(std::shared_ptr<LocalModel>, LocalClientOptions) : impl_(std::make_unique<Impl>()) {}
LocalClient::~LocalClient() = default;
Result<ModelReply> LocalClient::complete(const ModelRequest&, const CallOptions&) { return unavailable(); }
std::string LocalClient::describe() const { return "local llama.cpp (not built)"; }
Result<std::vector<int32_t>> LocalClient::prompt_tokens(const ModelRequest&) const { return unavailable(); }
int64_t LocalClient::last_prompt_evaluated() const { return 0; }
int64_t LocalClient::last_prompt_reused() const { return 0; }
Status LocalClient::save_state(const std::string&) { return unavailable(); }
Status LocalClient::load_state(const std::string&) { return unavailable(); }
}  // namespace keel
#endif  // !KEEL_HAS_LLAMA
