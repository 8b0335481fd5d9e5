// Finding many literal markers in one pass. Auto-detection asks, for every format, whether its
// markers occur in the reply; a find() per marker reads the text some twenty times and compares
// at every false start. A MarkerSet reads it once: each marker is keyed by one of its bytes (the
// rarest-looking one), sixteen bytes at a time are compared with every key byte, and at a key byte
// the byte after it picks the few markers worth comparing (their first sixteen bytes at once).
// The tables a key byte reads are a few kilobytes (a byte per key and following byte, naming one
// of the few distinct lists), so that they stay in the first-level cache between replies.
//
// Thread-safety: scan() is const and may run concurrently; add() and build() may not.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
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
  // Prepares the tables; call after the last add(), before scan(). The markers of the owners in
  // `deferred` are left to scan_deferred(): a second pass, for owners whose markers are common
  // bytes of text and which a caller asks about only now and then.
  void build(std::uint64_t deferred = 0);
  // The owners (bit `id`) of the markers that occur in `text`, those in `deferred` left out. Linear.
  std::uint64_t scan(std::string_view text) const;
  // The owners in `deferred` whose markers occur in `text`. Linear.
  std::uint64_t scan_deferred(std::string_view text) const;
  // The owners build() was given as deferred.
  std::uint64_t deferred() const { return deferred_owners_; }

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

  // Prepares the tables of scan() for `entries`.
  void build_tables(std::vector<Entry> entries);
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
  std::uint64_t deferred_owners_ = 0;
  std::unique_ptr<MarkerSet> deferred_set_;  // the markers of the deferred owners
  std::vector<Entry> entries_;              // one per distinct marker
  // The markers worth comparing at a key byte given the byte after it.
  struct List {
    std::uint64_t owners = 0;  // the owners of its markers
    std::uint64_t sure = 0;    // the owners of its one-byte markers (found without a compare)
    std::uint16_t begin = 0;   // its entries: order_[begin, end)
    std::uint16_t end = 0;
  };
  static constexpr std::size_t kMaxLists = 255;  // distinct lists (beyond: find())
  std::vector<std::uint16_t> order_;        // entries_ indices (one-byte markers left out), grouped by list
  std::vector<std::uint8_t> list_of_;       // key k, following byte f: lists_[list_of_[k*kPairs+f]] (0: none)
  std::vector<List> lists_;                 // lists_[0] is the empty list
  std::array<unsigned char, 256> key_{};    // 0, or 1 + the key index of a byte that keys markers
  std::array<std::uint16_t, 256> base_{};   // k*kPairs for the byte of key k (0 for other bytes)
  std::vector<std::uint64_t> key_owners_;   // per key index: the owners of its markers
  std::vector<unsigned char> key_bytes_;    // the bytes that key markers
  bool too_many_keys_ = false;              // more than kMaxKeys (or kMaxLists): scan() falls back to find()
  bool wide_ = false;                       // the CPU runs scan_wide()
  std::uint64_t all_owners_ = 0;
  // Each key byte repeated sixteen times, for the block compare (loaded, not rebuilt, per scan).
  alignas(16) std::array<std::array<unsigned char, 16>, kMaxKeys> wanted_{};
#if KEEL_MARKER_WIDE
  alignas(32) std::array<std::array<unsigned char, 32>, kUnrolled> wanted_wide_{};  // the same, for scan_wide()
#endif
};

}  // namespace keel::detail
