// keel/model_files.hpp — the local models folder: where GGUF files live, finding one by name, and
// listing them with what their headers say.
//
//   KEEL_ASSIGN_OR_RETURN(std::filesystem::path dir, keel::models_dir());
//   KEEL_ASSIGN_OR_RETURN(std::filesystem::path file, keel::resolve_local_model("local/qwen2.5-1.5b", dir));
//   KEEL_ASSIGN_OR_RETURN(std::vector<keel::ModelFile> all, keel::list_models(dir));
//
// Thread-safety: free functions; they read the environment and the file system only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/gguf_info.hpp"
#include "keel/result.hpp"

namespace keel {

// The models folder: $KEEL_MODELS_DIR, else $XDG_DATA_HOME/keel/models, else
// ~/.local/share/keel/models (empty variables count as unset). It need not exist.
// FailedPrecondition when none of KEEL_MODELS_DIR, XDG_DATA_HOME and HOME is set.
Result<std::filesystem::path> models_dir();

// The file a `local/NAME` model spec (or a bare NAME) names: NAME, else NAME.gguf, in `dir`.
// InvalidArgument when NAME is empty or not a plain file name (no '/', not "." or "..");
// NotFound when neither file exists, with a message listing the models that are there.
Result<std::filesystem::path> resolve_local_model(std::string_view name, const std::filesystem::path& dir);

// One *.gguf file of the models folder.
struct ModelFile {
  std::string name;              // file name, e.g. "llama-3.2-1b.Q4_K_M.gguf"
  std::filesystem::path path;    // full path
  uint64_t size = 0;             // bytes
  std::optional<GgufInfo> info;  // the header, when it could be read
  std::string error;             // why it could not be read (set exactly when info is empty)
};

// Every *.gguf regular file (or link to one) in `dir`, sorted by name; downloads in progress
// (*.part) are left out. Unreadable files are listed with their error. A folder that does not
// exist holds no models (an empty list); InvalidArgument when `dir` is not a folder or cannot be
// read.
Result<std::vector<ModelFile>> list_models(const std::filesystem::path& dir);

}  // namespace keel
