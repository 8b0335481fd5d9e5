#include "core/parsing/marker_scan.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if KEEL_MARKER_WIDE
#include <immintrin.h>
#endif

namespace keel::detail {
namespace {

// Bytes by how rarely they occur in replies, rarest first: a marker is keyed by the first of them
// it holds. The rarest letters beat tag punctuation, which replies full of tags repeat at every
// tag ("</think>" is keyed by its 'k'); quotes come late, as JSON is full of them.
constexpr std::string_view kRareBytes = "zqxjkZQXJK|`<>[]{}vbpygfwmucldrhsnioaetVBPYGFWMUCLDRHSNIOAET=\"'";

std::size_t anchor_of(std::string_view marker) {
  for (char rare : kRareBytes) {
    if (std::size_t at = marker.find(rare); at != std::string_view::npos) return at;
  }
  return 0;
}

std::uint64_t load8(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

}  // namespace

void MarkerSet::add(std::string_view marker, unsigned id) {
  for (Entry& e : added_) {  // the same marker for several owners: one comparison finds them all
    if (e.marker == marker) {
      e.owner |= std::uint64_t{1} << id;
      return;
    }
  }
  unsigned char bytes[16] = {};
  unsigned char keep[16] = {};
  for (std::size_t k = 0; k < 16 && k < marker.size(); ++k) {
    bytes[k] = static_cast<unsigned char>(marker[k]);
    keep[k] = 0xFF;
  }
  added_.push_back(Entry{marker,
                         anchor_of(marker),
                         std::uint64_t{1} << id,
                         {load8(bytes), load8(bytes + 8)},
                         {load8(keep), load8(keep + 8)}});
}

void MarkerSet::build(std::uint64_t deferred) {
  deferred_owners_ = deferred;
  std::vector<Entry> now;
  std::vector<Entry> later;
  for (const Entry& e : added_) {  // a marker of both kinds of owner is looked for in both passes
    if ((e.owner & ~deferred) != 0) {
      now.push_back(e);
      now.back().owner &= ~deferred;
    }
    if ((e.owner & deferred) != 0) {
      later.push_back(e);
      later.back().owner &= deferred;
    }
  }
  build_tables(std::move(now));
  deferred_set_.reset();
  if (!later.empty()) {
    deferred_set_ = std::make_unique<MarkerSet>();
    deferred_set_->build_tables(std::move(later));
  }
}

std::uint64_t MarkerSet::scan_deferred(std::string_view text) const {
  return deferred_set_ == nullptr ? 0 : deferred_set_->scan(text);
}

void MarkerSet::build_tables(std::vector<Entry> entries) {
  auto key = [](const Entry& e) { return static_cast<unsigned char>(e.marker[e.anchor]); };
  // The byte after an entry's key, or 256 (any) when the key ends it.
  auto follow = [](const Entry& e) {
    return e.anchor + 1 < e.marker.size() ? static_cast<unsigned>(static_cast<unsigned char>(e.marker[e.anchor + 1]))
                                          : 256u;
  };
  key_.fill(0);
  base_.fill(0);
  key_owners_.clear();
  key_bytes_.clear();
  too_many_keys_ = false;
  entries_ = std::move(entries);
  for (const Entry& e : entries_) {
    if (key_[key(e)] == 0) {
      if (key_bytes_.size() == kMaxKeys) {
        too_many_keys_ = true;
        return;
      }
      key_bytes_.push_back(key(e));
      key_owners_.push_back(0);
      key_[key(e)] = static_cast<unsigned char>(key_owners_.size());
      base_[key(e)] = static_cast<std::uint16_t>((key_owners_.size() - 1) * kPairs);
    }
    key_owners_[key_[key(e)] - 1u] |= e.owner;
  }
  for (std::size_t k = 0; k < key_bytes_.size(); ++k) wanted_[k].fill(key_bytes_[k]);
  // List (k, f) holds the entries keyed by key k that continue with byte f, and those that end at
  // their key (which match whatever follows); list (k, 256) only the latter (the key ends the text).
  std::vector<std::vector<std::uint16_t>> by_key(key_bytes_.size());
  for (std::size_t e = 0; e < entries_.size(); ++e)
    by_key[key_[key(entries_[e])] - 1u].push_back(static_cast<std::uint16_t>(e));
  // Equal lists (a one-byte marker puts its key's list at every following byte) are stored once.
  const std::size_t pairs = key_owners_.size() * kPairs;
  list_of_.assign(pairs, 0);
  lists_.assign(1, List{});
  order_.clear();
  std::map<std::pair<std::uint64_t, std::vector<std::uint16_t>>, std::uint8_t> ids;
  for (std::size_t l = 0; l < pairs; ++l) {
    const unsigned f = static_cast<unsigned>(l % kPairs);
    List list;
    std::vector<std::uint16_t> compared;
    for (std::uint16_t e : by_key[l / kPairs]) {
      const Entry& m = entries_[e];
      if (follow(m) != f && follow(m) != 256u) continue;
      list.owners |= m.owner;
      if (m.marker.size() == 1) {  // the key byte itself: found wherever the key is
        list.sure |= m.owner;
      } else {
        compared.push_back(e);
      }
    }
    if (list.owners == 0) continue;
    auto [it, added] = ids.try_emplace({list.sure, compared}, static_cast<std::uint8_t>(lists_.size()));
    if (added) {
      if (lists_.size() > kMaxLists) {
        too_many_keys_ = true;
        return;
      }
      list.begin = static_cast<std::uint16_t>(order_.size());
      order_.insert(order_.end(), compared.begin(), compared.end());
      list.end = static_cast<std::uint16_t>(order_.size());
      lists_.push_back(list);
    }
    list_of_[l] = it->second;
  }
  all_owners_ = 0;
  for (std::uint64_t o : key_owners_) all_owners_ |= o;
#if KEEL_MARKER_WIDE
  wide_ = __builtin_cpu_supports("avx2") != 0;
  for (std::size_t k = 0; k < key_bytes_.size() && k < kUnrolled; ++k) wanted_wide_[k].fill(key_bytes_[k]);
#endif
}

inline bool MarkerSet::matches(const Entry& m, const unsigned char* s, std::size_t n, std::size_t i) {
  if (i < m.anchor) return false;
  const std::size_t start = i - m.anchor;
  if (n - start < m.marker.size()) return false;
  if (n - start >= 16) {
    if ((load8(s + start) & m.mask[0]) != m.prefix[0] || (load8(s + start + 8) & m.mask[1]) != m.prefix[1])
      return false;
    return m.marker.size() <= 16 || std::memcmp(s + start + 16, m.marker.data() + 16, m.marker.size() - 16) == 0;
  }
  for (std::size_t k = 0; k < m.marker.size(); ++k) {  // near the end of the text: byte by byte
    if (s[start + k] != static_cast<unsigned char>(m.marker[k])) return false;
  }
  return true;
}

// Most key bytes end at the first test: no marker of an owner still missing is keyed by the byte
// and ends there or continues with the byte after it (a key whose owners are all found fails at once).
// `inner`: every flagged byte has a byte after it.
template <bool inner>
[[gnu::always_inline]] inline std::uint64_t MarkerSet::hits(const unsigned char* s, std::size_t n, std::size_t at,
                                                            unsigned bits, std::uint64_t found) const {
  const std::uint16_t* base = base_.data();
  const std::uint8_t* list_of = list_of_.data();
  for (; bits != 0; bits &= bits - 1) {
    const std::size_t j = at + static_cast<std::size_t>(std::countr_zero(bits));
    const unsigned id = list_of[base[s[j]] + (inner || j + 1 < n ? s[j + 1] : 256u)];
    if (id == 0) continue;
    const List& list = lists_[id];
    if ((list.owners & ~found) == 0) continue;
    found |= list.sure;
    for (std::size_t e = list.begin; e < list.end; ++e) {
      const Entry& m = entries_[order_[e]];
      if ((found & m.owner) != m.owner && matches(m, s, n, j)) found |= m.owner;
    }
  }
  return found;
}

#if defined(__SSE2__)
namespace {

// The key bytes among the sixteen at p, one bit each: a fixed sequence of compares for the I keys.
template <std::size_t... I>
inline unsigned key_bits(const unsigned char* p, const __m128i* want, std::index_sequence<I...>) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i eq = _mm_setzero_si128();
  ((eq = _mm_or_si128(eq, _mm_cmpeq_epi8(v, want[I]))), ...);
  return static_cast<unsigned>(_mm_movemask_epi8(eq));
}

inline unsigned key_bits(const unsigned char* p, const __m128i* want, std::size_t keys) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i eq = _mm_setzero_si128();
  for (std::size_t k = 0; k < keys; ++k) eq = _mm_or_si128(eq, _mm_cmpeq_epi8(v, want[k]));
  return static_cast<unsigned>(_mm_movemask_epi8(eq));
}

}  // namespace

template <std::size_t K>
std::uint64_t MarkerSet::scan_blocks(const unsigned char* s, std::size_t n) const {
  // K > 0: a compile-time count, so the compares unroll and the key vectors stay in registers.
  const auto* want = reinterpret_cast<const __m128i*>(wanted_.data());
  auto bits_at = [&](const unsigned char* p) {
    if constexpr (K > 0) {
      return key_bits(p, want, std::make_index_sequence<K>{});
    } else {
      return key_bits(p, want, key_bytes_.size());
    }
  };
  // Two phases per run of blocks: the compares note the blocks that hold key bytes, then those
  // blocks are looked at, so that the compare loop keeps its key vectors in registers.
  constexpr std::size_t kRun = 32;
  std::uint64_t found = 0;
  std::size_t i = 0;
  while (i + 16 < n) {  // whole blocks, not the last byte: each key byte has a following byte
    std::uint32_t at[kRun];
    unsigned bits[kRun];
    std::size_t noted = 0;
    for (std::size_t b = 0; b < kRun && i + 16 < n; ++b, i += 16) {
      at[noted] = static_cast<std::uint32_t>(i);
      bits[noted] = bits_at(s + i);
      noted += bits[noted] != 0 ? 1 : 0;
    }
    for (std::size_t b = 0; b < noted; ++b) found = hits<true>(s, n, at[b], bits[b], found);
    if (found == all_owners_) return found;
  }
  // The last partial block: the sixteen bytes that end the text, less those already seen; a text
  // shorter than a block is copied into one.
  std::size_t base = 0;
  unsigned last;
  if (n >= 16) {
    base = n - 16;
    last = bits_at(s + base) & (0xFFFFu << (i - base));
  } else {
    unsigned char pad[16] = {};
    std::memcpy(pad, s, n);
    last = bits_at(pad) & ((1u << n) - 1u);
  }
  return hits<false>(s, n, base, last, found);
}
#endif

#if KEEL_MARKER_WIDE
namespace {

// The key bytes among the thirty-two at p, one bit each (AVX2); `want` holds a key byte in each
// of its bytes, I indexing the keys.
template <std::size_t... I>
[[gnu::always_inline]] inline __attribute__((target("avx2"))) unsigned wide_key_bits(const unsigned char* p,
                                                                                     const __m256i* want,
                                                                                     std::index_sequence<I...>) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m256i eq = _mm256_setzero_si256();
  ((eq = _mm256_or_si256(eq, _mm256_cmpeq_epi8(v, want[I]))), ...);
  return static_cast<unsigned>(_mm256_movemask_epi8(eq));
}

}  // namespace

// scan_blocks() thirty-two bytes at a time, for CPUs with AVX2 (chosen in build()).
template <std::size_t K>
__attribute__((target("avx2"))) std::uint64_t MarkerSet::scan_wide(const unsigned char* s, std::size_t n) const {
  const auto* want = reinterpret_cast<const __m256i*>(wanted_wide_.data());
  auto bits_at = [&](const unsigned char* p) __attribute__((always_inline, target("avx2"))) {
    return wide_key_bits(p, want, std::make_index_sequence<K>{});
  };
  constexpr std::size_t kRun = 32;
  std::uint64_t found = 0;
  std::size_t i = 0;
  while (i + 32 < n) {  // whole blocks, not the last byte: each key byte has a following byte
    std::uint32_t at[kRun];
    unsigned bits[kRun];
    std::size_t noted = 0;
    for (std::size_t b = 0; b < kRun && i + 32 < n; ++b, i += 32) {
      at[noted] = static_cast<std::uint32_t>(i);
      bits[noted] = bits_at(s + i);
      noted += bits[noted] != 0 ? 1 : 0;
    }
    for (std::size_t b = 0; b < noted; ++b) found = hits<true>(s, n, at[b], bits[b], found);
    if (found == all_owners_) return found;
  }
  // The last partial block: the thirty-two bytes that end the text, less those already seen; a
  // text shorter than a block is copied into one.
  std::size_t base = 0;
  unsigned last;
  if (n >= 32) {
    base = n - 32;
    last = bits_at(s + base) & static_cast<unsigned>(0xFFFFFFFFull << (i - base));
  } else {
    unsigned char pad[32] = {};
    std::memcpy(pad, s, n);
    last = bits_at(pad) & static_cast<unsigned>((1ull << n) - 1u);
  }
  return hits<false>(s, n, base, last, found);
}
#endif

std::uint64_t MarkerSet::scan(std::string_view text) const {
  std::uint64_t found = 0;
  if (too_many_keys_) {
    for (const Entry& e : entries_) {
      if (text.find(e.marker) != std::string_view::npos) found |= e.owner;
    }
    return found;
  }
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  if (key_bytes_.empty() || n == 0) return found;
#if defined(__SSE2__)
  using Blocks = std::uint64_t (MarkerSet::*)(const unsigned char*, std::size_t) const;
  const std::size_t keys = key_bytes_.size();
#if KEEL_MARKER_WIDE
  static constexpr auto kWide = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<Blocks, sizeof...(K)>{&MarkerSet::scan_wide<K + 1>...};
  }
  (std::make_index_sequence<kUnrolled>{});
  if (wide_ && keys <= kUnrolled) return (this->*kWide[keys - 1])(s, n);
#endif
  static constexpr auto kBlocks = []<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<Blocks, sizeof...(K)>{&MarkerSet::scan_blocks<K>...};
  }
  (std::make_index_sequence<kUnrolled + 1>{});
  return (this->*kBlocks[keys <= kUnrolled ? keys : 0])(s, n);
#else
  for (std::size_t i = 0; i < n; ++i) {
    while (i + 4 <= n && (key_[s[i]] | key_[s[i + 1]] | key_[s[i + 2]] | key_[s[i + 3]]) == 0) i += 4;
    while (i < n && key_[s[i]] == 0) ++i;
    if (i == n) break;
    found = hits<false>(s, n, i, 1u, found);
    if (found == all_owners_) break;
  }
  return found;
#endif
}

}  // namespace keel::detail
