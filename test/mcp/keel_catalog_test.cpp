// KeelCatalog: the workspace's sessions, memory notes and files as MCP resources, knowledge skills
// as prompts, completions — and that nothing outside the workspace can be read or listed.
#include "mcp_server/keel_catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "keel/store/sqlite_store.hpp"
#include "support/temp_dir.hpp"

namespace keel::mcp {
namespace {

namespace fs = std::filesystem;

// Decodes standard base64 (with '=' padding); what the catalog's blobs must round-trip through.
std::string kc_base64_decode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    int v = value(c);
    if (v < 0) return "<bad base64>";
    bits = bits << 6 | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

bool kc_has_uri(const std::vector<ResourceEntry>& entries, const std::string& uri) {
  return std::any_of(entries.begin(), entries.end(), [&](const ResourceEntry& e) { return e.uri == uri; });
}

const ResourceEntry* kc_find(const std::vector<ResourceEntry>& entries, const std::string& uri) {
  for (const ResourceEntry& e : entries) {
    if (e.uri == uri) return &e;
  }
  return nullptr;
}

class KeelCatalogTest : public ::testing::Test {
 protected:
  KeelCatalogTest() {
    ws_ = tmp_.path() / "ws";
    outside_ = tmp_.path() / "outside";
    fs::create_directories(ws_);
    fs::create_directories(outside_);
    StoreOptions o;
    o.path = ":memory:";
    o.now_ms = [this] { return ++clock_; };
    auto opened = open_sqlite_store(o);
    if (!opened.ok()) ADD_FAILURE() << opened.status().to_string();
    if (opened.ok()) store_ = std::move(opened).value();
  }

  std::unique_ptr<KeelCatalog> catalog(size_t max_file_bytes = 1 << 20) {
    KeelCatalogOptions o;
    o.store = store_.get();
    o.workspace = ws_.string();
    o.skills = skills_;
    o.max_file_bytes = max_file_bytes;
    return std::make_unique<KeelCatalog>(std::move(o));
  }

  std::string make_session(const std::string& workspace, const std::string& title, const std::string& model = "") {
    SessionInfo info;
    info.workspace = workspace;
    info.title = title;
    info.model = model;
    auto id = store_->create_session(info);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.ok() ? *id : "";
  }

  void append(const std::string& session, const Message& m) {
    auto seq = store_->append_message(session, "", m, 0);
    EXPECT_TRUE(seq.ok()) << seq.status().to_string();
  }

  std::string file_uri(const std::string& relative) const { return "file://" + (ws_ / relative).string(); }

  // The single content of a successful read.
  nlohmann::json read_one(const KeelCatalog& c, const std::string& uri) {
    auto read = c.read_resource(uri);
    EXPECT_TRUE(read.ok()) << uri << ": " << read.status().to_string();
    if (!read.ok()) return nlohmann::json::object();
    EXPECT_EQ(read->size(), 1u);
    return read->empty() ? nlohmann::json::object() : (*read)[0];
  }

  keel::testing::TempDir tmp_;
  fs::path ws_;
  fs::path outside_;
  int64_t clock_ = 1000;
  std::unique_ptr<Store> store_;
  std::vector<KnowledgeSkill> skills_;
};

TEST_F(KeelCatalogTest, ListsWorkspaceSessionsAndRendersTheirTranscripts) {
  std::string sid = make_session(ws_.string(), "fix tests", "openai:gpt-4o");
  append(sid, Message::user("please read a.txt"));
  append(sid, Message::assistant("Reading it.", {{"call_1", "read_file", R"({"path":"a.txt"})"}}));
  ToolResult result;
  result.call_id = "call_1";
  result.name = "read_file";
  result.content = "hello from a.txt";
  append(sid, Message::tool(result));
  append(sid, Message::assistant("It says hello."));
  std::string untitled = make_session(ws_.string(), "");
  std::string other = make_session("/elsewhere", "not ours");

  auto c = catalog();
  std::vector<ResourceEntry> listed = c->resources();
  const ResourceEntry* entry = kc_find(listed, "keel://sessions/" + sid);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name, "fix tests");
  EXPECT_EQ(entry->description, "keel session, 4 messages, model openai:gpt-4o");
  EXPECT_EQ(entry->mime_type, "text/markdown");
  const ResourceEntry* untitled_entry = kc_find(listed, "keel://sessions/" + untitled);
  ASSERT_NE(untitled_entry, nullptr);
  EXPECT_EQ(untitled_entry->name, untitled);
  EXPECT_FALSE(kc_has_uri(listed, "keel://sessions/" + other));

  nlohmann::json content = read_one(*c, "keel://sessions/" + sid);
  EXPECT_EQ(content["uri"], "keel://sessions/" + sid);
  EXPECT_EQ(content["mimeType"], "text/markdown");
  std::string text = content.value("text", "");
  std::vector<std::string> in_order = {"# fix tests",
                                       "## 1. user",
                                       "please read a.txt",
                                       "## 2. assistant",
                                       "Reading it.",
                                       R"(read_file({"path":"a.txt"}))",
                                       "## 3. tool result for call call_1 (read_file)",
                                       "hello from a.txt",
                                       "## 4. assistant",
                                       "It says hello."};
  size_t at = 0;
  for (const std::string& piece : in_order) {
    size_t found = text.find(piece, at);
    ASSERT_NE(found, std::string::npos) << "missing or out of order: " << piece << "\n" << text;
    at = found + piece.size();
  }
}

TEST_F(KeelCatalogTest, ListsAtMostFiftySessions) {
  for (int i = 0; i < kCatalogSessionsListed + 5; ++i) make_session(ws_.string(), "s" + std::to_string(i));
  auto c = catalog();
  std::vector<ResourceEntry> listed = c->resources();
  long sessions = std::count_if(listed.begin(), listed.end(),
                                [](const ResourceEntry& e) { return e.uri.starts_with("keel://sessions/"); });
  EXPECT_EQ(sessions, kCatalogSessionsListed);
  EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [](const ResourceEntry& e) { return e.name == "s54"; }));
  EXPECT_FALSE(std::any_of(listed.begin(), listed.end(), [](const ResourceEntry& e) { return e.name == "s0"; }));
}

TEST_F(KeelCatalogTest, AnotherWorkspacesSessionReadsLikeAnUnknownOne) {
  std::string other = make_session("/elsewhere", "secret");
  append(other, Message::user("do not show"));
  auto c = catalog();
  auto read = c->read_resource("keel://sessions/" + other);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(read.status().message(), "no session '" + other + "' in this workspace");
  auto unknown = c->read_resource("keel://sessions/s_0123456789abcdef0123456789abcdef");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "no session 's_0123456789abcdef0123456789abcdef' in this workspace");
  auto version = c->resource_version("keel://sessions/" + other);
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.status().code(), ErrorCode::kNotFound);
}

TEST_F(KeelCatalogTest, ReadsTheWorkspacesAndSharedMemoryNotes) {
  auto ours = store_->memory_write(ws_.string(), "build with ninja", "build");
  auto shared = store_->memory_write("", "prefer small commits", "");
  auto theirs = store_->memory_write("/elsewhere", "their secret", "");
  ASSERT_TRUE(ours.ok() && shared.ok() && theirs.ok());
  auto c = catalog();
  std::vector<ResourceEntry> listed = c->resources();
  std::string ours_uri = "keel://memory/" + std::to_string(*ours);
  std::string shared_uri = "keel://memory/" + std::to_string(*shared);
  std::string theirs_uri = "keel://memory/" + std::to_string(*theirs);
  EXPECT_TRUE(kc_has_uri(listed, ours_uri));
  EXPECT_TRUE(kc_has_uri(listed, shared_uri));
  EXPECT_FALSE(kc_has_uri(listed, theirs_uri));

  nlohmann::json note = read_one(*c, ours_uri);
  EXPECT_EQ(note["mimeType"], "text/plain");
  EXPECT_EQ(note["text"], "build with ninja\n\ntags: build");
  EXPECT_EQ(read_one(*c, shared_uri)["text"], "prefer small commits");
  auto refused = c->read_resource(theirs_uri);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(c->resource_version(ours_uri).ok());
}

TEST_F(KeelCatalogTest, ListsAndReadsWorkspaceTextFilesWithTheirTypes) {
  tmp_.write("ws/README.md", "# Hello\n");
  tmp_.write("ws/config.json", "{\"a\": 1}");
  tmp_.write("ws/main.cpp", "int main() {}\n");
  tmp_.write("ws/notes", "plain words \xC3\xA9t\xC3\xA9\n");
  tmp_.write("ws/.env", "SECRET=1");
  tmp_.write("ws/src/deep.txt", "below the top");
  auto c = catalog();
  std::vector<ResourceEntry> listed = c->resources();
  const ResourceEntry* readme = kc_find(listed, file_uri("README.md"));
  ASSERT_NE(readme, nullptr);
  EXPECT_EQ(readme->name, "README.md");
  EXPECT_EQ(readme->mime_type, "text/markdown");
  EXPECT_EQ(readme->size, 8);
  EXPECT_TRUE(kc_has_uri(listed, file_uri("config.json")));
  EXPECT_FALSE(kc_has_uri(listed, file_uri(".env")));
  EXPECT_FALSE(kc_has_uri(listed, file_uri("src")));
  EXPECT_FALSE(kc_has_uri(listed, file_uri("src/deep.txt")));

  nlohmann::json md = read_one(*c, file_uri("README.md"));
  EXPECT_EQ(md["uri"], file_uri("README.md"));
  EXPECT_EQ(md["mimeType"], "text/markdown");
  EXPECT_EQ(md["text"], "# Hello\n");
  EXPECT_EQ(read_one(*c, file_uri("config.json"))["mimeType"], "application/json");
  EXPECT_EQ(read_one(*c, file_uri("main.cpp"))["mimeType"], "text/x-c++");
  nlohmann::json plain = read_one(*c, file_uri("notes"));
  EXPECT_EQ(plain["mimeType"], "text/plain");
  EXPECT_EQ(plain["text"], "plain words \xC3\xA9t\xC3\xA9\n");
  EXPECT_EQ(read_one(*c, file_uri("src/deep.txt"))["text"], "below the top");
}

TEST_F(KeelCatalogTest, BinaryFilesAreBase64Blobs) {
  std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe", 18);
  tmp_.write("ws/logo.png", png);
  std::string odd("\xC3(\x01\x02\x03", 5);  // an invalid UTF-8 sequence, then 3 bytes: padding "="
  tmp_.write("ws/data.bin", odd);
  auto c = catalog();
  nlohmann::json image = read_one(*c, file_uri("logo.png"));
  EXPECT_EQ(image["mimeType"], "image/png");
  EXPECT_FALSE(image.contains("text"));
  ASSERT_TRUE(image.contains("blob"));
  EXPECT_EQ(kc_base64_decode(image["blob"]), png);
  nlohmann::json data = read_one(*c, file_uri("data.bin"));
  EXPECT_EQ(data["mimeType"], "application/octet-stream");
  EXPECT_EQ(data["blob"], "wygBAgM=");
  EXPECT_EQ(kc_base64_decode(data["blob"]), odd);
}

TEST_F(KeelCatalogTest, PathsLeadingOutOfTheWorkspaceAreRefused) {
  tmp_.write("outside/secret.txt", "top secret");
  tmp_.write("ws/inside.txt", "fine");
  fs::create_symlink(outside_ / "secret.txt", ws_ / "link.txt");
  fs::create_directory_symlink(outside_, ws_ / "out");
  auto c = catalog();
  for (const std::string& uri :
       {"file://" + (ws_ / ".." / "outside" / "secret.txt").string(), "file://" + (outside_ / "secret.txt").string(),
        file_uri("link.txt"), file_uri("out/secret.txt"), std::string("file:///etc/passwd")}) {
    auto read = c->read_resource(uri);
    ASSERT_FALSE(read.ok()) << uri;
    EXPECT_EQ(read.status().code(), ErrorCode::kNotFound) << uri;
    EXPECT_NE(read.status().message().find(uri.substr(7)), std::string::npos) << read.status().message();
    EXPECT_NE(read.status().message().find("outside the workspace"), std::string::npos) << read.status().message();
    EXPECT_FALSE(c->resource_version(uri).ok()) << uri;
  }
  // `..` that stays inside is an ordinary path; after a link it climbs from the link's target, as
  // the kernel does.
  fs::create_directories(ws_ / "sub");
  EXPECT_EQ(read_one(*c, "file://" + (ws_ / "sub" / ".." / "inside.txt").string())["text"], "fine");
  EXPECT_EQ(c->read_resource("file://" + (ws_ / "out" / ".." / "inside.txt").string()).status().code(),
            ErrorCode::kNotFound);
  EXPECT_FALSE(kc_has_uri(c->resources(), file_uri("link.txt")));
}

TEST_F(KeelCatalogTest, DirectoriesMissingAndOversizeFilesAreRefusedByName) {
  fs::create_directories(ws_ / "src");
  tmp_.write("ws/big.txt", std::string(11, 'x'));
  tmp_.write("ws/fits.txt", std::string(10, 'x'));
  auto c = catalog(10);
  auto dir = c->read_resource(file_uri("src"));
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(dir.status().message().find((ws_ / "src").string()), std::string::npos) << dir.status().message();
  auto missing = c->read_resource(file_uri("nope.txt"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find((ws_ / "nope.txt").string()), std::string::npos);
  auto big = c->read_resource(file_uri("big.txt"));
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(big.status().message().find((ws_ / "big.txt").string()), std::string::npos) << big.status().message();
  EXPECT_EQ(read_one(*c, file_uri("fits.txt"))["text"], std::string(10, 'x'));
}

TEST_F(KeelCatalogTest, PercentEncodedPathsAreListedAndRead) {
  tmp_.write("ws/my notes #1.txt", "spaced out");
  auto c = catalog();
  std::string encoded = "file://" + ws_.string() + "/my%20notes%20%231.txt";
  EXPECT_TRUE(kc_has_uri(c->resources(), encoded));
  nlohmann::json content = read_one(*c, encoded);
  EXPECT_EQ(content["text"], "spaced out");
  EXPECT_EQ(content["uri"], encoded);
  auto bad = c->read_resource("file://" + ws_.string() + "/bad%zz");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(KeelCatalogTest, VersionsChangeWhenContentsChange) {
  tmp_.write("ws/a.txt", "one");
  std::string sid = make_session(ws_.string(), "t");
  append(sid, Message::user("first"));
  auto c = catalog();
  auto file_before = c->resource_version(file_uri("a.txt"));
  auto session_before = c->resource_version("keel://sessions/" + sid);
  ASSERT_TRUE(file_before.ok() && session_before.ok());
  EXPECT_EQ(*c->resource_version(file_uri("a.txt")), *file_before);
  EXPECT_TRUE(session_before->starts_with("1:")) << *session_before;

  tmp_.write("ws/a.txt", "three");
  append(sid, Message::assistant("second"));
  auto file_after = c->resource_version(file_uri("a.txt"));
  auto session_after = c->resource_version("keel://sessions/" + sid);
  ASSERT_TRUE(file_after.ok() && session_after.ok());
  EXPECT_NE(*file_after, *file_before);
  EXPECT_TRUE(file_after->ends_with(":5")) << *file_after;
  EXPECT_NE(*session_after, *session_before);
  EXPECT_TRUE(session_after->starts_with("2:")) << *session_after;
}

TEST_F(KeelCatalogTest, EnabledSkillsArePromptsWithATaskArgument) {
  KnowledgeSkill gas;
  gas.name = "gas";
  gas.description = "Current gas prices";
  gas.body = "## Gas\nRead the fee history first.\n";
  gas.resources = {"ref/fees.md", "table.csv"};
  KnowledgeSkill off;
  off.name = "off";
  off.description = "disabled";
  off.body = "never";
  off.enabled = false;
  skills_ = {gas, off};
  auto c = catalog();
  std::vector<PromptEntry> prompts = c->prompts();
  ASSERT_EQ(prompts.size(), 1u);
  EXPECT_EQ(prompts[0].name, "gas");
  EXPECT_EQ(prompts[0].description, "Current gas prices");
  ASSERT_EQ(prompts[0].arguments.size(), 1u);
  EXPECT_EQ(prompts[0].arguments[0].name, "task");
  EXPECT_FALSE(prompts[0].arguments[0].required);

  auto got = c->get_prompt("gas", {{"task", "estimate a swap"}});
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0]["role"], "user");
  EXPECT_EQ((*got)[0]["content"]["type"], "text");
  EXPECT_EQ((*got)[0]["content"]["text"],
            "## Gas\nRead the fee history first.\n\nFiles in this skill: ref/fees.md, table.csv\n\n"
            "Task: estimate a swap");
  auto no_task = c->get_prompt("gas", {});
  ASSERT_TRUE(no_task.ok());
  EXPECT_EQ((*no_task)[0]["content"]["text"].get<std::string>().find("Task:"), std::string::npos);

  auto bad_arg = c->get_prompt("gas", {{"tsak", "x"}});
  ASSERT_FALSE(bad_arg.ok());
  EXPECT_EQ(bad_arg.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad_arg.status().message().find("tsak"), std::string::npos);
  EXPECT_EQ(c->get_prompt("off", {}).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(c->get_prompt("nope", {}).status().code(), ErrorCode::kNotFound);
}

TEST_F(KeelCatalogTest, CompletesPathsInsideTheWorkspaceOnly) {
  fs::create_directories(ws_ / "src" / "lib");
  fs::create_directories(ws_ / ".git");
  tmp_.write("ws/setup.py", "");
  tmp_.write("ws/README.md", "");
  tmp_.write("ws/src/a.cpp", "");
  tmp_.write("outside/secret.txt", "");
  fs::create_directory_symlink(outside_, ws_ / "sneaky");
  auto c = catalog();
  const std::string w = ws_.string();
  auto complete = [&](const std::string& value) {
    CompletionQuery q;
    q.is_prompt = false;
    q.ref = "file://{+path}";
    q.argument = "path";
    q.value = value;
    auto r = c->complete(q);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : std::vector<std::string>{"<error>"};
  };
  EXPECT_EQ(complete(""), (std::vector<std::string>{w + "/README.md", w + "/setup.py", w + "/src/"}));
  EXPECT_EQ(complete(w + "/s"), (std::vector<std::string>{w + "/setup.py", w + "/src/"}));
  EXPECT_EQ(complete(w + "/src/"), (std::vector<std::string>{w + "/src/a.cpp", w + "/src/lib/"}));
  EXPECT_EQ(complete(w + "/."), (std::vector<std::string>{w + "/.git/"}));
  // Above the workspace: only the way back into it.
  EXPECT_EQ(complete(tmp_.path().string() + "/"), (std::vector<std::string>{w + "/"}));
  EXPECT_EQ(complete(w + "/../"), std::vector<std::string>{});
  EXPECT_EQ(complete(w + "/../outside/"), std::vector<std::string>{});
  EXPECT_EQ(complete(w + "/sneaky/"), std::vector<std::string>{});
  EXPECT_EQ(complete("/"), (std::vector<std::string>{w + "/"}));
  EXPECT_EQ(complete("relative"), std::vector<std::string>{});
}

TEST_F(KeelCatalogTest, CompletesSessionAndNoteIdsAndRefusesUnknownReferences) {
  std::string a = make_session(ws_.string(), "a");
  std::string b = make_session(ws_.string(), "b");
  std::string other = make_session("/elsewhere", "c");
  auto note = store_->memory_write(ws_.string(), "remember", "");
  ASSERT_TRUE(note.ok());
  KnowledgeSkill skill;
  skill.name = "gas";
  skill.description = "gas";
  skills_ = {skill};
  auto c = catalog();
  CompletionQuery q;
  q.is_prompt = false;
  q.ref = "keel://sessions/{id}";
  q.argument = "id";
  q.value = "s_";
  auto ids = c->complete(q);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->size(), 2u);
  EXPECT_NE(std::find(ids->begin(), ids->end(), a), ids->end());
  EXPECT_NE(std::find(ids->begin(), ids->end(), b), ids->end());
  EXPECT_EQ(std::find(ids->begin(), ids->end(), other), ids->end());
  q.value = a;
  EXPECT_EQ(*c->complete(q), std::vector<std::string>{a});

  q.ref = "keel://memory/{id}";
  q.value = std::to_string(*note).substr(0, 1);
  auto notes = c->complete(q);
  ASSERT_TRUE(notes.ok());
  EXPECT_NE(std::find(notes->begin(), notes->end(), std::to_string(*note)), notes->end());

  q.ref = "keel://nothing/{id}";
  EXPECT_EQ(c->complete(q).status().code(), ErrorCode::kNotFound);
  CompletionQuery prompt;
  prompt.ref = "gas";
  prompt.argument = "task";
  prompt.value = "est";
  auto free_text = c->complete(prompt);
  ASSERT_TRUE(free_text.ok());
  EXPECT_TRUE(free_text->empty());
  prompt.ref = "nope";
  EXPECT_EQ(c->complete(prompt).status().code(), ErrorCode::kNotFound);
}

TEST_F(KeelCatalogTest, TemplatesMatchOnlyWellFormedUris) {
  std::string sid = make_session(ws_.string(), "t");
  auto c = catalog();
  std::vector<ResourceTemplateEntry> templates = c->resource_templates();
  ASSERT_EQ(templates.size(), 3u);
  EXPECT_EQ(templates[0].uri_template, "keel://sessions/{id}");
  EXPECT_EQ(templates[0].name, "session");
  EXPECT_EQ(templates[1].uri_template, "keel://memory/{id}");
  EXPECT_EQ(templates[1].name, "memory note");
  EXPECT_EQ(templates[2].uri_template, "file://{+path}");
  EXPECT_EQ(templates[2].name, "workspace file");
  for (const ResourceTemplateEntry& t : templates) EXPECT_FALSE(t.description.empty()) << t.name;

  EXPECT_TRUE(c->read_resource("keel://sessions/" + sid).ok());
  for (const std::string& uri :
       {std::string("keel://sessions/"), "keel://sessions/" + sid + "/extra", std::string("keel://memory/"),
        std::string("keel://memory/12abc"), std::string("keel://memory/-1"), std::string("file://"),
        std::string("file://relative.txt"), std::string("file://host/etc/passwd"), std::string("other://x")}) {
    auto read = c->read_resource(uri);
    ASSERT_FALSE(read.ok()) << uri;
    EXPECT_EQ(read.status().code(), ErrorCode::kNotFound) << uri;
    EXPECT_EQ(c->resource_version(uri).status().code(), ErrorCode::kNotFound) << uri;
  }

  // Without a store: no session or memory templates, and their URIs are not this catalog's.
  KeelCatalogOptions bare;
  bare.workspace = ws_.string();
  KeelCatalog files_only(std::move(bare));
  ASSERT_EQ(files_only.resource_templates().size(), 1u);
  EXPECT_EQ(files_only.resource_templates()[0].uri_template, "file://{+path}");
  EXPECT_EQ(files_only.read_resource("keel://sessions/" + sid).status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace keel::mcp
