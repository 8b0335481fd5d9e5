// The real keel binary: `keel models list` (table and JSON) on a folder with good and broken GGUF
// files, and `keel model pull` against a local file server.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm/sha256.hpp"
#include "support/cli_runner.hpp"
#include "support/gguf_writer.hpp"
#include "support/range_http_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::CliRun;

CliRun keel(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  testing::CliOptions o;
  o.env = env;
  return testing::run_cli(KEEL_BINARY, args, o);
}

class ModelsCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::GgufWriter llama;
    llama.kv_string("general.architecture", "llama").kv_string("general.name", "Small Llama");
    llama.kv_u32("llama.context_length", 8192).kv_u32("general.file_type", 15);
    llama.kv_string("tokenizer.chat_template", "{{ messages }}");
    llama.tensor("token_embd.weight", {2048, 600000}, 12);  // 1.2B parameters
    dir_.write("models/llama-small.gguf", llama.bytes());

    testing::GgufWriter qwen;
    qwen.kv_string("general.architecture", "qwen2").kv_u64("qwen2.context_length", 32768);
    qwen.tensor("w", {1000, 135}, 8);  // 135K parameters, Q8_0
    dir_.write("models/qwen-tiny.gguf", qwen.bytes());

    dir_.write("models/broken.gguf", "GGUF\x03");
  }

  std::string models() const { return (dir_.path() / "models").string(); }

  testing::TempDir dir_;
};

TEST_F(ModelsCommandTest, ListShowsATable) {
  CliRun r = keel({"models", "list", "--dir", models()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = testing::lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0].rfind("NAME", 0), 0u);
  EXPECT_NE(lines[0].find("PARAMS"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("broken.gguf", 0), 0u);
  EXPECT_NE(lines[1].find("error: '" + models() + "/broken.gguf' is truncated at byte 5"), std::string::npos)
      << lines[1];
  EXPECT_EQ(lines[2].rfind("llama-small.gguf", 0), 0u);
  for (const char* cell : {" 1.2B ", " Q4_K_M ", " 8192 ", " yes"}) {
    EXPECT_NE(lines[2].find(cell), std::string::npos) << cell << " in " << lines[2];
  }
  EXPECT_EQ(lines[3].rfind("qwen-tiny.gguf", 0), 0u);
  for (const char* cell : {" 135K ", " Q8_0 ", " 32768 ", " no"}) {
    EXPECT_NE(lines[3].find(cell), std::string::npos) << cell << " in " << lines[3];
  }
}

TEST_F(ModelsCommandTest, ListAsJsonAndFromTheEnvironment) {
  CliRun r = keel({"models", "list", "--json"}, {{"KEEL_MODELS_DIR", models()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["name"], "broken.gguf");
  EXPECT_EQ(j[0]["size"], 5);
  EXPECT_NE(j[0]["error"].get<std::string>().find("truncated"), std::string::npos);
  EXPECT_FALSE(j[0].contains("architecture"));
  EXPECT_EQ(j[1]["name"], "llama-small.gguf");
  EXPECT_EQ(j[1]["architecture"], "llama");
  EXPECT_EQ(j[1]["model_name"], "Small Llama");
  EXPECT_EQ(j[1]["parameters"], 2048ull * 600000);
  EXPECT_EQ(j[1]["quantization"], "Q4_K_M");
  EXPECT_EQ(j[1]["context_length"], 8192);
  EXPECT_EQ(j[1]["chat_template"], true);
  EXPECT_EQ(j[1]["gguf_version"], 3);
  EXPECT_FALSE(j[1].contains("error"));
  EXPECT_EQ(j[2]["quantization"], "Q8_0");
  EXPECT_EQ(j[2]["chat_template"], false);

  CliRun empty = keel({"models", "list", "--dir", (dir_.path() / "none").string()});
  EXPECT_EQ(empty.exit_code, 0);
  EXPECT_EQ(empty.out, "");
  EXPECT_NE(empty.err.find("no models in"), std::string::npos);
  CliRun empty_json = keel({"models", "list", "--json", "--dir", (dir_.path() / "none").string()});
  EXPECT_EQ(empty_json.out, "[]\n");
}

TEST_F(ModelsCommandTest, PullDownloadsVerifiesAndRefusesToOverwrite) {
  testing::GgufWriter w;
  w.kv_string("general.architecture", "phi3").kv_u32("phi3.context_length", 4096);
  w.tensor("x", {3000, 1000}, 1);
  const std::string body = w.bytes(200000);
  const std::string sha = detail::sha256_hex(body);
  testing::RangeHttpServer server;
  server.serve_file("/o/r/resolve/main/phi.gguf", testing::RangeFile{body, {{"X-Linked-Etag", sha}}, -1, -1, false});
  const std::map<std::string, std::string> env = {{"HF_ENDPOINT", server.url("")}, {"KEEL_MODELS_DIR", models()}};

  CliRun r = keel({"model", "pull", "hf:o/r/phi.gguf"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("saved " + models() + "/phi.gguf (200.1 KB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sha256 " + sha + " verified (X-Linked-Etag)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("phi3 3M F16, context 4096; use it with --model local/phi"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("100% 200.1 KB / 200.1 KB"), std::string::npos) << r.err;  // the one progress line
  EXPECT_EQ(testing::read_file(dir_.path() / "models" / "phi.gguf"), body);

  CliRun again = keel({"model", "pull", "hf:o/r/phi.gguf"}, env);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already exists; pass --force"), std::string::npos) << again.err;

  CliRun named = keel({"model", "pull", server.url("/o/r/resolve/main/phi.gguf"), "--name", "copy", "--sha256",
                       std::string(64, '0')},
                      env);
  EXPECT_EQ(named.exit_code, 1);
  EXPECT_NE(named.err.find("but --sha256 says " + std::string(64, '0')), std::string::npos) << named.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "models" / "copy.gguf"));

  CliRun missing = keel({"model", "pull", "hf:o/r/absent.gguf"}, env);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("answered HTTP 404"), std::string::npos) << missing.err;

  CliRun usage = keel({"model", "pull", "not-a-source"}, env);
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("is not a model source"), std::string::npos) << usage.err;
  EXPECT_EQ(keel({"model", "pull"}, env).exit_code, 2);
}

TEST_F(ModelsCommandTest, CtrlCKeepsThePartAndTheNextPullResumes) {
  const std::string body(50000, 'm');
  testing::RangeHttpServer server;
  testing::RangeFile stalling;
  stalling.body = body;
  stalling.stall_after = 1000;
  server.serve_file("/m.gguf", stalling);
  testing::CliOptions o;
  o.env = {{"KEEL_MODELS_DIR", models()}};
  o.interrupt_after_s = 1.5;
  CliRun r = testing::run_cli(KEEL_BINARY, {"model", "pull", server.url("/m.gguf")}, o);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("was stopped; the 1000 bytes received are kept"), std::string::npos) << r.err;
  EXPECT_EQ(std::filesystem::file_size(dir_.path() / "models" / "m.gguf.part"), 1000u);

  server.serve_file("/m.gguf", testing::RangeFile{body, {}, -1, -1, false});
  CliRun resumed = keel({"model", "pull", server.url("/m.gguf")}, o.env);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("(50.0 KB, resumed at byte 1000)"), std::string::npos) << resumed.out;
  EXPECT_EQ(server.requests().back().headers.at("range"), "bytes=1000-");
  EXPECT_EQ(testing::read_file(dir_.path() / "models" / "m.gguf"), body);
}

}  // namespace
}  // namespace keel
