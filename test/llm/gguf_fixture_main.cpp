// keel_gguf_fixture: writes a tiny random-weight llama GGUF for tests (see support/gguf_fixture.hpp).
//
//   keel_gguf_fixture VOCAB.gguf OUT.gguf [--seed N] [--template FILE]
//
// Exit codes: 0 written, 1 the write failed, 2 usage error.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "support/gguf_fixture.hpp"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "keel_gguf_fixture: %s\nusage: keel_gguf_fixture VOCAB.gguf OUT.gguf [--seed N] [--template FILE]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string vocab;
  std::string out;
  keel::testing::GgufFixtureOptions opts;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--seed" || arg == "--template") {
      if (i + 1 >= argc) return usage("a value must follow --seed / --template");
      const std::string value = argv[++i];
      if (arg == "--seed") {
        char* end = nullptr;
        const unsigned long long seed = std::strtoull(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || value[0] == '-') return usage("--seed takes a non-negative integer");
        opts.seed = seed;
      } else {
        std::ifstream in(value, std::ios::binary);
        if (!in) {
          std::fprintf(stderr, "keel_gguf_fixture: cannot read the template file '%s'\n", value.c_str());
          return 2;
        }
        opts.chat_template.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
    } else if (arg.starts_with("--")) {
      return usage("unknown option");
    } else if (vocab.empty()) {
      vocab = arg;
    } else if (out.empty()) {
      out = arg;
    } else {
      return usage("too many arguments");
    }
  }
  if (out.empty()) return usage("VOCAB.gguf and OUT.gguf are required");
  const std::string err = keel::testing::write_random_gguf(vocab, out, opts);
  if (!err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  return 0;
}
