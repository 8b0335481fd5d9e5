// Which programs a command line runs: the scope of the shell's not_metadata_only postcondition.
#include "core/guards/command_words.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel::detail {
namespace {

bool runs_ls(std::string_view line) {
  static const std::vector<std::string> kPrograms = {"ls", "dir", "vdir"};
  return runs_program(line, kPrograms);
}

TEST(CommandWordsTest, FindsProgramsInCommandPosition) {
  for (const char* line : {"ls", "ls -l", "  ls -lS | head -n 1", "cd src && ls -l", "cd src; ls", "false || ls",
                           "sleep 1 & ls", "LC_ALL=C ls -l", "A=1 B=2 ls", "/bin/ls -l", "/usr/bin/vdir",
                           "sudo ls /root", "env LC_ALL=C ls", "time ls", "command ls", "nice nohup ls",
                           "echo $(ls -l | head -1)", "echo \"$(ls -l | head -1)\"", "echo \"`ls`\"", "echo `ls`",
                           "(ls -l)", "{ ls; }", "for f in *; do ls -l \"$f\"; done", "if true; then ls; fi",
                           "! ls", "mkdir -p x\nls -l x", "ls>out.txt", "dir -l", "'ls' -l", "l\\s"}) {
    EXPECT_TRUE(runs_ls(line)) << line;
  }
}

TEST(CommandWordsTest, IgnoresArgumentsQuotesAndRedirections) {
  for (const char* line : {"echo ls", "echo 'ls -l | head'", "echo \"ls | head\"", "python3 sum.py", "git ls-files",
                           "lsof -i", "ls2", "lsblk", "cat ls", "grep -r ls .", "find . -name ls", "echo hi > ls",
                           "cat < ls", "echo hi 2>&1 ls", ">ls echo hi", "wc -l *.txt | tail -n 1", "du -sh .",
                           "echo '$(ls)'", "printf 'total 12\\n'", "", "   "}) {
    EXPECT_FALSE(runs_ls(line)) << line;
  }
}

TEST(CommandWordsTest, NoProgramsMatchNothing) {
  EXPECT_FALSE(runs_program("ls -l", {}));
  const std::vector<std::string> empty_name = {""};
  EXPECT_FALSE(runs_program("ls -l", empty_name));
}

TEST(CommandWordsTest, UnterminatedQuotesAndDeepNestingAreSafe) {
  EXPECT_FALSE(runs_ls("echo 'ls"));
  EXPECT_FALSE(runs_ls("echo \"ls"));
  EXPECT_TRUE(runs_ls("echo \"$(ls"));
  EXPECT_TRUE(runs_ls("echo $(echo $(echo $(ls)))"));
  std::string deep = "echo ";
  for (int i = 0; i < 2000; ++i) deep += "\"$(";
  deep += "ls";
  EXPECT_FALSE(runs_ls(deep));  // substitutions nested deeper than the scanner looks
  EXPECT_TRUE(runs_ls("echo \"$(echo \"$(ls)\")\""));
}

}  // namespace
}  // namespace keel::detail
