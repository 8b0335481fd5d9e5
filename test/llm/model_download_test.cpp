// `keel model pull`'s library half against a local file server: full and resumed downloads, the
// checksum sources, hf: URLs, and every failure (404, wrong digest, existing file, stalled server).
// Also the SHA-256 implementation against the FIPS 180-4 example vectors.
#include "keel/model_download.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "llm/sha256.hpp"
#include "support/range_http_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::RangeFile;
using testing::RangeHttpServer;

TEST(Sha256Test, NistVectors) {
  EXPECT_EQ(detail::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(detail::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(detail::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  detail::Sha256 million;
  const std::string thousand(1000, 'a');
  for (int i = 0; i < 1000; ++i) million.update(thousand);
  EXPECT_EQ(million.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, AnySplitOfTheInputGivesTheSameDigest) {
  std::string text;
  for (int i = 0; i < 300; ++i) text.push_back(static_cast<char>(i * 7));
  const std::string whole = detail::sha256_hex(text);
  for (size_t step : {size_t{1}, size_t{3}, size_t{55}, size_t{56}, size_t{63}, size_t{64}, size_t{65}, size_t{129}}) {
    detail::Sha256 h;
    for (size_t i = 0; i < text.size(); i += step) h.update(std::string_view(text).substr(i, step));
    EXPECT_EQ(h.hex_digest(), whole) << step;
  }
  EXPECT_TRUE(detail::is_sha256_hex(whole));
  EXPECT_TRUE(detail::is_sha256_hex("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"));
  EXPECT_FALSE(detail::is_sha256_hex(whole.substr(1)));
  EXPECT_FALSE(detail::is_sha256_hex(whole.substr(1) + "g"));
}

// Deterministic bytes that are not all alike.
std::string model_bytes(size_t n) {
  std::string s(n, '\0');
  uint32_t x = 12345;
  for (char& c : s) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 16);
  }
  return s;
}

class ModelDownloadTest : public ::testing::Test {
 protected:
  ModelPullOptions options(const std::string& source) {
    ModelPullOptions o;
    o.source = source;
    o.dir = dir_.path() / "models";
    o.connect_timeout_ms = 5000;
    return o;
  }
  std::filesystem::path file(const std::string& name) const { return dir_.path() / "models" / name; }

  testing::TempDir dir_;
  RangeHttpServer server_;
  const std::string body_ = model_bytes(300000);
  const std::string sha_ = detail::sha256_hex(body_);
};

TEST_F(ModelDownloadTest, FullDownloadVerifiedByTheLinkedEtag) {
  RangeFile f;
  f.body = body_;
  f.headers = {{"X-Linked-Etag", "\"" + sha_ + "\""}, {"ETag", "\"not-a-digest\""}};
  server_.serve_file("/files/tiny.gguf", f);
  ModelPullProgress last;
  int calls = 0;
  ModelPullOptions o = options(server_.url("/files/tiny.gguf"));
  o.on_progress = [&](const ModelPullProgress& p) {
    last = p;
    ++calls;
  };
  Result<ModelPullResult> r = pull_model(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->path, file("tiny.gguf"));
  EXPECT_EQ(r->bytes, body_.size());
  EXPECT_EQ(r->resumed_from, 0u);
  EXPECT_EQ(r->sha256, sha_);
  EXPECT_EQ(r->verified_by, "X-Linked-Etag");
  EXPECT_EQ(testing::read_file(file("tiny.gguf")), body_);
  EXPECT_FALSE(std::filesystem::exists(file("tiny.gguf.part")));
  EXPECT_GE(calls, 1);
  EXPECT_TRUE(last.done);
  EXPECT_EQ(last.bytes, body_.size());
  EXPECT_EQ(last.total, static_cast<int64_t>(body_.size()));
  ASSERT_EQ(server_.requests().size(), 1u);
  EXPECT_EQ(server_.requests()[0].headers.count("range"), 0u);
}

TEST_F(ModelDownloadTest, ChecksumFromTheFlagOrTheEtagOrNone) {
  RangeFile f;
  f.body = body_;
  f.headers = {{"ETag", "W/\"" + sha_ + "\""}};
  server_.serve_file("/a.gguf", f);
  server_.serve_file("/b", RangeFile{body_, {}, -1, -1, false});

  Result<ModelPullResult> etag = pull_model(options(server_.url("/a.gguf")));
  ASSERT_TRUE(etag.ok()) << etag.status().message();
  EXPECT_EQ(etag->verified_by, "ETag");

  ModelPullOptions flag = options(server_.url("/b"));
  flag.sha256 = sha_;
  for (char& c : *flag.sha256) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Result<ModelPullResult> by_flag = pull_model(flag);
  ASSERT_TRUE(by_flag.ok()) << by_flag.status().message();
  EXPECT_EQ(by_flag->verified_by, "--sha256");
  EXPECT_EQ(by_flag->path, file("b.gguf"));  // ".gguf" added to a name without it

  ModelPullOptions none = options(server_.url("/b"));
  none.name = "other";
  Result<ModelPullResult> unverified = pull_model(none);
  ASSERT_TRUE(unverified.ok()) << unverified.status().message();
  EXPECT_EQ(unverified->verified_by, "");
  EXPECT_EQ(unverified->sha256, sha_);
  EXPECT_EQ(testing::read_file(file("other.gguf")), body_);
}

TEST_F(ModelDownloadTest, InterruptedDownloadResumesWithARangeRequest) {
  RangeFile f;
  f.body = body_;
  f.headers = {{"X-Linked-Etag", "\"" + sha_ + "\""}};
  f.cut_after = 100000;
  server_.serve_file("/m.gguf", f);

  Result<ModelPullResult> first = pull_model(options(server_.url("/m.gguf")));
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(first.status().message().find("run the same command again to resume"), std::string::npos)
      << first.status().message();
  EXPECT_FALSE(std::filesystem::exists(file("m.gguf")));
  ASSERT_TRUE(std::filesystem::exists(file("m.gguf.part")));
  EXPECT_EQ(std::filesystem::file_size(file("m.gguf.part")), 100000u);

  Result<ModelPullResult> second = pull_model(options(server_.url("/m.gguf")));
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->resumed_from, 100000u);
  EXPECT_EQ(second->verified_by, "X-Linked-Etag");
  EXPECT_EQ(testing::read_file(file("m.gguf")), body_);
  EXPECT_FALSE(std::filesystem::exists(file("m.gguf.part")));
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].headers.count("range"), 0u);
  EXPECT_EQ(requests[1].headers.at("range"), "bytes=100000-");
}

TEST_F(ModelDownloadTest, ServerIgnoringTheRangeRestartsFromZero) {
  RangeFile f;
  f.body = body_;
  f.ignore_range = true;
  server_.serve_file("/m.gguf", f);
  dir_.write("models/m.gguf.part", "stale bytes from some other file");
  ModelPullOptions o = options(server_.url("/m.gguf"));
  o.sha256 = sha_;
  Result<ModelPullResult> r = pull_model(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->resumed_from, 0u);
  EXPECT_EQ(testing::read_file(file("m.gguf")), body_);
  EXPECT_EQ(server_.requests().at(0).headers.at("range"), "bytes=32-");
}

TEST_F(ModelDownloadTest, CompletePartAnswered416IsVerifiedAndKept) {
  server_.serve_file("/m.gguf", RangeFile{body_, {{"X-Linked-Etag", sha_}}, -1, -1, false});
  dir_.write("models/m.gguf.part", body_);
  Result<ModelPullResult> r = pull_model(options(server_.url("/m.gguf")));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->resumed_from, body_.size());
  EXPECT_EQ(r->verified_by, "X-Linked-Etag");
  EXPECT_EQ(testing::read_file(file("m.gguf")), body_);
}

TEST_F(ModelDownloadTest, WrongChecksumDeletesThePart) {
  server_.serve_file("/m.gguf", RangeFile{body_, {}, -1, -1, false});
  ModelPullOptions o = options(server_.url("/m.gguf"));
  const std::string wrong = detail::sha256_hex("something else");
  o.sha256 = wrong;
  Result<ModelPullResult> r = pull_model(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("its SHA-256 is " + sha_ + " but --sha256 says " + wrong), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(std::filesystem::exists(file("m.gguf")));
  EXPECT_FALSE(std::filesystem::exists(file("m.gguf.part")));

  o.sha256 = "abc";
  Result<ModelPullResult> bad = pull_model(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("--sha256 'abc' is not a SHA-256"), std::string::npos);
}

TEST_F(ModelDownloadTest, HfSourcesMapToTheEndpointWithTheToken) {
  EXPECT_EQ(resolve_pull_url("hf:owner/repo/file.gguf", "https://huggingface.co").value(),
            "https://huggingface.co/owner/repo/resolve/main/file.gguf");
  EXPECT_EQ(resolve_pull_url("hf:o/r/sub/dir/f.gguf@v1.0", "http://mirror/").value(),
            "http://mirror/o/r/resolve/v1.0/sub/dir/f.gguf");
  EXPECT_EQ(resolve_pull_url("hf:o/r/f.gguf@refs/pr/1", "http://h").value(), "http://h/o/r/resolve/refs%2Fpr%2F1/f.gguf");
  EXPECT_EQ(resolve_pull_url("https://x/y.gguf", "http://h").value(), "https://x/y.gguf");
  for (const char* bad : {"hf:owner/repo", "hf:owner/repo/", "hf:/repo/f.gguf", "hf:o//f.gguf", "hf:o/r/f@",
                          "ftp://x/y.gguf", "model.gguf"}) {
    Result<std::string> r = resolve_pull_url(bad, "http://h");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << bad;
  }

  // Hugging Face answers with a redirect that carries the LFS digest; the CDN's ETag is something else.
  server_.redirect("/owner/repo/resolve/v2/sub/tiny.gguf", "/cdn/blob", {{"X-Linked-Etag", "\"" + sha_ + "\""}});
  server_.serve_file("/cdn/blob", RangeFile{body_, {{"ETag", "\"cdn-etag\""}}, -1, -1, false});
  ModelPullOptions o = options("hf:owner/repo/sub/tiny.gguf@v2");
  o.hf_endpoint = server_.url("");
  o.hf_token = "hf_secret";
  Result<ModelPullResult> r = pull_model(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->url, server_.url("/owner/repo/resolve/v2/sub/tiny.gguf"));
  EXPECT_EQ(r->path, file("tiny.gguf"));
  EXPECT_EQ(r->verified_by, "X-Linked-Etag");
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].target, "/owner/repo/resolve/v2/sub/tiny.gguf");
  EXPECT_EQ(requests[0].headers.at("authorization"), "Bearer hf_secret");
  EXPECT_EQ(requests[1].target, "/cdn/blob");
}

TEST_F(ModelDownloadTest, TokenIsNotSentToOtherHosts) {
  server_.serve_file("/m.gguf", RangeFile{body_, {}, -1, -1, false});
  ModelPullOptions o = options(server_.url("/m.gguf"));
  o.hf_token = "hf_secret";  // the endpoint stays huggingface.co
  ASSERT_TRUE(pull_model(o).ok());
  EXPECT_EQ(server_.requests().at(0).headers.count("authorization"), 0u);
}

TEST_F(ModelDownloadTest, NotFoundIsAClearError) {
  Result<ModelPullResult> r = pull_model(options(server_.url("/missing.gguf")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find(server_.url("/missing.gguf") + " answered HTTP 404 (not found)"),
            std::string::npos)
      << r.status().message();
  EXPECT_FALSE(std::filesystem::exists(file("missing.gguf")));
  EXPECT_FALSE(std::filesystem::exists(file("missing.gguf.part")));
}

TEST_F(ModelDownloadTest, RefusesToOverwriteWithoutForce) {
  server_.serve_file("/m.gguf", RangeFile{body_, {}, -1, -1, false});
  dir_.write("models/m.gguf", "an older model");
  Result<ModelPullResult> r = pull_model(options(server_.url("/m.gguf")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("m.gguf' already exists; pass --force to replace it"), std::string::npos);
  EXPECT_EQ(testing::read_file(file("m.gguf")), "an older model");
  EXPECT_TRUE(server_.requests().empty());

  ModelPullOptions o = options(server_.url("/m.gguf"));
  o.force = true;
  ASSERT_TRUE(pull_model(o).ok());
  EXPECT_EQ(testing::read_file(file("m.gguf")), body_);
}

TEST_F(ModelDownloadTest, StalledServerHitsTheLowSpeedTimeout) {
  RangeFile f;
  f.body = body_;
  f.stall_after = 500;  // under 1 KB in the first second: libcurl averages the rate over a few seconds
  server_.serve_file("/m.gguf", f);
  ModelPullOptions o = options(server_.url("/m.gguf"));
  o.low_speed_seconds = 1;
  o.low_speed_bytes_per_s = 1024;
  const auto start = std::chrono::steady_clock::now();
  Result<ModelPullResult> r = pull_model(o);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_NE(r.status().message().find("stalled (under 1024 bytes/s for 1 s)"), std::string::npos)
      << r.status().message();
  EXPECT_GE(ms, 900);
  EXPECT_LT(ms, 20000);
  EXPECT_EQ(std::filesystem::file_size(file("m.gguf.part")), 500u);  // kept for a resume
}

TEST_F(ModelDownloadTest, StopTokenCancels) {
  RangeFile f;
  f.body = body_;
  f.stall_after = 10;
  server_.serve_file("/m.gguf", f);
  std::stop_source stop;
  ModelPullOptions o = options(server_.url("/m.gguf"));
  o.stop = stop.get_token();
  o.on_progress = [&](const ModelPullProgress& p) {
    if (p.bytes >= 10) stop.request_stop();
  };
  Result<ModelPullResult> r = pull_model(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
}

TEST_F(ModelDownloadTest, BadNames) {
  ModelPullOptions o = options(server_.url("/dir/"));
  Result<ModelPullResult> r = pull_model(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("pass --name NAME"), std::string::npos);
  o.name = "../escape";
  r = pull_model(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--name '../escape' is not a plain file name"), std::string::npos);
}

}  // namespace
}  // namespace keel
