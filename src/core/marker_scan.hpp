// Finding many literal markers in one pass. Auto-detection asks, for every format, whether its
// markers occur in the reply; a find() per marker reads the text some twenty times and compares
// at every false start. A MarkerSet reads it once: each marker is keyed by one of its bytes (the
// rarest-looking one), a 256-entry table says which bytes key a marker, and at such a byte the
// byte after it picks the few markers worth comparing (their first eight bytes at once).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace keel::detail {

class MarkerSet {
 public:
  // Registers `marker` (non-empty, with storage that outlives the set) for owner `id` (< 64).
  void add(std::string_view marker, unsigned id);
  // Prepares the tables; call after the last add(), before scan().
  void build();
  // The owners (bit `id`) of the markers that occur in `text`. Linear.
  std::uint64_t scan(std::string_view text) const;

 private:
  struct Entry {
    std::string_view marker;
    std::size_t anchor;  // offset of the key byte in the marker
    std::uint64_t owner;
    std::array<std::uint64_t, 2> prefix;  // the marker's first (up to) sixteen bytes, compared first
    std::array<std::uint64_t, 2> mask;    // which bytes of `prefix` count
  };
  static constexpr std::size_t kPairs = 257;   // per key: one list per following byte, plus one for "any"
  static constexpr std::size_t kMaxKeys = 64;  // distinct key bytes of the one-pass scan (beyond: find())

  static bool matches(const Entry& m, const unsigned char* s, std::size_t n, std::size_t i);
  // Compares the markers keyed by s[j] (key index `key`) there; true when all their owners are found.
  bool check(const unsigned char* s, std::size_t n, std::size_t j, std::size_t key, std::uint64_t& found) const;

  std::vector<Entry> added_;
  std::vector<Entry> entries_;              // grouped by (key byte, following byte)
  std::vector<std::uint16_t> lists_;        // key k, following byte f: entries_[lists_[k*kPairs+f], ..+1)
  std::array<unsigned char, 256> key_{};    // 0, or 1 + the key index of a byte that keys markers
  std::vector<std::uint64_t> key_owners_;   // per key index: the owners of its markers
  std::vector<unsigned char> key_bytes_;    // the bytes that key markers
  bool too_many_keys_ = false;              // more than kMaxKeys: scan() falls back to find()
  std::vector<std::uint64_t> list_owners_;  // per list (as lists_): the owners of its markers
  std::uint64_t all_owners_ = 0;
};

}  // namespace keel::detail
