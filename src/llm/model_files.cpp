// The models folder (see keel/model_files.hpp).
#include "keel/model_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace keel {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// "a.gguf, b.gguf" or a hint when there are none.
std::string describe_contents(const std::filesystem::path& dir) {
  Result<std::vector<ModelFile>> models = list_models(dir);
  if (!models.ok() || models->empty()) {
    return "the folder holds no models; download one with keel model pull";
  }
  std::string names = "models there: ";
  for (size_t i = 0; i < models->size(); ++i) {
    if (i > 0) names += ", ";
    names += (*models)[i].name;
  }
  return names;
}

}  // namespace

Result<std::filesystem::path> models_dir() {
  if (std::string dir = env_or_empty("KEEL_MODELS_DIR"); !dir.empty()) return std::filesystem::path(dir);
  if (std::string data = env_or_empty("XDG_DATA_HOME"); !data.empty()) {
    return std::filesystem::path(data) / "keel" / "models";
  }
  if (std::string home = env_or_empty("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".local" / "share" / "keel" / "models";
  }
  return Status::FailedPrecondition(
      "cannot tell where models live: set KEEL_MODELS_DIR (or XDG_DATA_HOME or HOME)");
}

Result<std::filesystem::path> resolve_local_model(std::string_view spec, const std::filesystem::path& dir) {
  std::string_view name = spec;
  if (name.starts_with("local/")) name.remove_prefix(6);
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos) {
    std::string m = "'";
    m.append(spec).append("' is not a local model name: use local/NAME with NAME a file in ");
    m.append(dir.string()).append(" (see keel models list)");
    return Status::InvalidArgument(std::move(m));
  }
  std::error_code ec;
  for (std::string candidate : {std::string(name), std::string(name) + ".gguf"}) {
    std::filesystem::path p = dir / candidate;
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  std::string m = "no model '";
  m.append(name).append("' in ").append(dir.string()).append(" (looked for '").append(name);
  m.append("' and '").append(name).append(".gguf'); ").append(describe_contents(dir));
  return Status::NotFound(std::move(m));
}

Result<std::vector<ModelFile>> list_models(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<ModelFile> out;
  if (!std::filesystem::exists(dir, ec)) return out;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::InvalidArgument("the models folder '" + dir.string() + "' is not a folder");
  }
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return Status::InvalidArgument("cannot read the models folder '" + dir.string() + "': " + ec.message());
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return Status::InvalidArgument("cannot read the models folder '" + dir.string() + "': " + ec.message());
    const std::filesystem::path& p = it->path();
    std::error_code file_ec;
    if (p.extension() != ".gguf" || !std::filesystem::is_regular_file(p, file_ec)) continue;
    ModelFile m;
    m.name = p.filename().string();
    m.path = p;
    Result<GgufInfo> info = read_gguf_info(p);
    if (info.ok()) {
      m.size = info->file_size;
      m.info = std::move(info).value();
    } else {
      m.size = std::filesystem::file_size(p, file_ec);
      if (file_ec) m.size = 0;
      m.error = info.status().message();
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(), [](const ModelFile& a, const ModelFile& b) { return a.name < b.name; });
  return out;
}

}  // namespace keel
