// Reading an SQLite write-ahead log in tests: how many transactions it holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace keel::testing {

// The transactions committed to a store's write-ahead log: frames whose "database size after
// commit" field is set, while their salts are the log header's. -1 when the log was reset by a
// checkpoint since it was made (its checkpoint sequence is not 0): the count would be partial.
inline int wal_commits(const std::filesystem::path& wal) {
  std::ifstream in(wal, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto u32 = [&](std::size_t at) {
    return (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at])) << 24) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 16) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 8) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 3]));
  };
  if (bytes.size() < 32 || u32(12) != 0) return -1;
  const std::size_t frame = 24 + u32(8);
  int commits = 0;
  for (std::size_t at = 32; at + frame <= bytes.size(); at += frame) {
    if (u32(at + 8) != u32(16) || u32(at + 12) != u32(20)) break;  // a frame of an earlier log
    commits += u32(at + 4) != 0 ? 1 : 0;
  }
  return commits;
}

}  // namespace keel::testing
