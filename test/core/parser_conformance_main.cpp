// keel_parser_conformance — runs both tool-call parser corpora and reports how keel reads them.
//
//   keel_parser_conformance                 lists every case that is not exact; exit 1 if any
//   keel_parser_conformance --table         prints docs/parser-conformance.md (the table is made
//                                           from the corpora, so it cannot drift from them)
//   keel_parser_conformance --only FAMILY   limits the listing to one family
//   keel_parser_conformance --stream        also streams every case at every split (CallStreamFilter)
#include <cstdio>
#include <cstring>
#include <string>

#include "support/parser_conformance.hpp"
#include "support/parser_corpus.hpp"
#include "support/parser_stream_check.hpp"

int main(int argc, char** argv) {
  bool table = false;
  bool streaming = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--table") == 0) {
      table = true;
    } else if (std::strcmp(argv[i], "--stream") == 0) {
      streaming = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: keel_parser_conformance [--table] [--stream] [--only FAMILY]\n");
      return 2;
    }
  }
  auto cases = keel::testing::load_parser_corpus(keel::testing::real_outputs_dir(), true);
  auto own = keel::testing::load_parser_corpus(keel::testing::protocol_corpus_dir(), false);
  cases.insert(cases.end(), own.begin(), own.end());
  if (table) {
    std::fputs(keel::testing::conformance_markdown(cases).c_str(), stdout);
    return 0;
  }
  size_t failed = 0;
  size_t shown = 0;
  for (const auto& c : cases) {
    if (!only.empty() && c.family != only) continue;
    ++shown;
    auto diffs = keel::testing::check_parser_case(c);
    if (streaming && c.load_error.empty() && c.data.value("format", std::string("auto")) == "auto") {
      static const auto parser = std::move(keel::UniversalToolCallParser::create("auto")).value();
      std::string why = keel::testing::check_streaming(*parser, c);
      if (!why.empty()) diffs.push_back("streaming: " + why);
    }
    if (diffs.empty()) continue;
    ++failed;
    std::printf("FAIL %s: %s%s\n", c.file.c_str(), c.name.c_str(), c.cite.empty() ? "" : (" [" + c.cite + "]").c_str());
    for (const auto& d : diffs) std::printf("  %s\n", d.c_str());
  }
  std::printf("%zu of %zu cases exact\n", shown - failed, shown);
  return failed == 0 ? 0 : 1;
}
