// Finding many literal markers in one pass. Auto-detection asks, for every format, whether its
// markers occur in the reply; a find() per marker reads the text some twenty times and compares
// at every false start. A MarkerSet reads it once: each marker is keyed by one of its bytes (the
// rarest-looking one), sixteen bytes at a time are compared with every key byte, and at a key byte
// the byte after it picks the few markers worth comparing (their first sixteen bytes at once).
//
// Thread-safety: scan() is const and may run concurrently; add() and build() may not.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

// x86-64 builds look for markers thirty-two bytes at a time where the CPU has AVX2.
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define KEEL_MARKER_WIDE 1
#else
#define KEEL_MARKER_WIDE 0
#endif

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
    std::size_t anchor;                   // offset of the key byte in the marker
    std::uint64_t owner;                  // every owner of this marker (a marker added twice is one entry)
    std::array<std::uint64_t, 2> prefix;  // the marker's first (up to) sixteen bytes, compared first
    std::array<std::uint64_t, 2> mask;    // which bytes of `prefix` count
  };
  static constexpr std::size_t kPairs = 257;    // per key: one list per following byte, plus one for "any"
  static constexpr std::size_t kMaxKeys = 64;   // distinct key bytes of the one-pass scan (beyond: find())
  static constexpr std::size_t kUnrolled = 16;  // key counts up to this compare with a fixed, unrolled sequence

  static bool matches(const Entry& m, const unsigned char* s, std::size_t n, std::size_t i);
  // `found` with the owners of the markers at the key bytes flagged in `bits` (bit k: s[at + k]).
  template <bool inner>
  std::uint64_t hits(const unsigned char* s, std::size_t n, std::size_t at, unsigned bits, std::uint64_t found) const;
  // The sixteen-byte scan for exactly K key bytes (K <= kUnrolled), or any count (K == 0).
  template <std::size_t K>
  std::uint64_t scan_blocks(const unsigned char* s, std::size_t n) const;
  // scan_blocks() for exactly K key bytes (0 < K <= kUnrolled), thirty-two bytes at a time (AVX2).
  template <std::size_t K>
  std::uint64_t scan_wide(const unsigned char* s, std::size_t n) const;

  std::vector<Entry> added_;
  std::vector<Entry> entries_;              // one per distinct marker
  std::vector<std::uint16_t> order_;        // entries_ indices (one-byte markers left out), grouped by list
  std::vector<std::uint16_t> lists_;        // key k, following byte f: order_[lists_[k*kPairs+f], ..+1)
  std::array<unsigned char, 256> key_{};    // 0, or 1 + the key index of a byte that keys markers
  std::array<std::uint16_t, 256> base_{};   // k*kPairs for the byte of key k (0 for other bytes)
  std::vector<std::uint64_t> key_owners_;   // per key index: the owners of its markers
  std::vector<unsigned char> key_bytes_;    // the bytes that key markers
  bool too_many_keys_ = false;              // more than kMaxKeys: scan() falls back to find()
  bool wide_ = false;                       // the CPU runs scan_wide()
  std::vector<std::uint64_t> list_owners_;  // per list (as lists_): the owners of its markers
  std::vector<std::uint64_t> list_sure_;    // per list: the owners of its one-byte markers (no compare)
  std::uint64_t all_owners_ = 0;
  // Each key byte repeated sixteen times, for the block compare (loaded, not rebuilt, per scan).
  alignas(16) std::array<std::array<unsigned char, 16>, kMaxKeys> wanted_{};
#if KEEL_MARKER_WIDE
  alignas(32) std::array<std::array<unsigned char, 32>, kUnrolled> wanted_wide_{};  // the same, for scan_wide()
#endif
};

}  // namespace keel::detail
