// The models folder: where it is, finding a model by name, listing with broken files kept.
#include "keel/model_files.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

#include "support/gguf_writer.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

// Sets an environment variable for one scope (and restores it after).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ModelFilesTest, ModelsDirFollowsTheEnvironment) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv keel("KEEL_MODELS_DIR", "/models/here");
    ScopedEnv xdg("XDG_DATA_HOME", "/xdg");
    EXPECT_EQ(models_dir().value(), "/models/here");
  }
  {
    ScopedEnv keel("KEEL_MODELS_DIR", "");  // empty counts as unset
    ScopedEnv xdg("XDG_DATA_HOME", "/xdg");
    EXPECT_EQ(models_dir().value(), "/xdg/keel/models");
  }
  {
    ScopedEnv keel("KEEL_MODELS_DIR", nullptr);
    ScopedEnv xdg("XDG_DATA_HOME", nullptr);
    EXPECT_EQ(models_dir().value(), "/home/someone/.local/share/keel/models");
    ScopedEnv no_home("HOME", nullptr);
    Result<std::filesystem::path> none = models_dir();
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.status().code(), ErrorCode::kFailedPrecondition);
    EXPECT_NE(none.status().message().find("set KEEL_MODELS_DIR"), std::string::npos);
  }
}

TEST(ModelFilesTest, ResolvesLocalNames) {
  testing::TempDir dir;
  dir.write("qwen.gguf", testing::GgufWriter().bytes());
  dir.write("plain-name", "x");
  EXPECT_EQ(resolve_local_model("local/qwen", dir.path()).value(), dir.path() / "qwen.gguf");
  EXPECT_EQ(resolve_local_model("local/qwen.gguf", dir.path()).value(), dir.path() / "qwen.gguf");
  EXPECT_EQ(resolve_local_model("qwen", dir.path()).value(), dir.path() / "qwen.gguf");
  EXPECT_EQ(resolve_local_model("local/plain-name", dir.path()).value(), dir.path() / "plain-name");

  Result<std::filesystem::path> missing = resolve_local_model("local/llama", dir.path());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no model 'llama' in " + dir.path().string()), std::string::npos);
  EXPECT_NE(missing.status().message().find("models there: qwen.gguf"), std::string::npos)
      << missing.status().message();

  for (const char* bad : {"local/", "local/../x", "local/a/b", "local/.."}) {
    Result<std::filesystem::path> r = resolve_local_model(bad, dir.path());
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << bad;
  }

  testing::TempDir empty;
  Result<std::filesystem::path> none = resolve_local_model("local/x", empty.path() / "absent");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("holds no models; download one with keel model pull"), std::string::npos);
}

TEST(ModelFilesTest, ListsGgufFilesSortedWithTheirErrors) {
  testing::TempDir dir;
  testing::GgufWriter a;
  a.kv_string("general.architecture", "llama").kv_u32("llama.context_length", 2048);
  dir.write("b-model.gguf", a.bytes());
  dir.write("a-broken.gguf", "not a model");
  dir.write("c-download.gguf.part", "half");
  dir.write("notes.txt", "hello");
  std::filesystem::create_directory(dir.path() / "sub.gguf");  // a folder, not a file

  Result<std::vector<ModelFile>> r = list_models(dir.path());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "a-broken.gguf");
  EXPECT_FALSE((*r)[0].info.has_value());
  EXPECT_EQ((*r)[0].size, 11u);
  EXPECT_NE((*r)[0].error.find("is not a GGUF file"), std::string::npos);
  EXPECT_EQ((*r)[1].name, "b-model.gguf");
  ASSERT_TRUE((*r)[1].info.has_value());
  EXPECT_EQ((*r)[1].info->context_length, 2048u);
  EXPECT_EQ((*r)[1].error, "");
  EXPECT_EQ((*r)[1].path, dir.path() / "b-model.gguf");

  Result<std::vector<ModelFile>> absent = list_models(dir.path() / "nothing-here");
  ASSERT_TRUE(absent.ok());
  EXPECT_TRUE(absent->empty());
  Result<std::vector<ModelFile>> file = list_models(dir.path() / "notes.txt");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("is not a folder"), std::string::npos);
}

}  // namespace
}  // namespace keel
