#include "core/marker_scan.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
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

void MarkerSet::build() {
  auto key = [](const Entry& e) { return static_cast<unsigned char>(e.marker[e.anchor]); };
  // The list an entry belongs to: the byte after its key, or 256 (any) when the key ends it.
  auto follow = [](const Entry& e) {
    return e.anchor + 1 < e.marker.size() ? static_cast<unsigned>(static_cast<unsigned char>(e.marker[e.anchor + 1]))
                                          : 256u;
  };
  key_.fill(0);
  key_owners_.clear();
  key_bytes_.clear();
  too_many_keys_ = false;
  entries_ = added_;
  for (const Entry& e : added_) {
    if (key_[key(e)] == 0) {
      if (key_bytes_.size() == kMaxKeys) {
        too_many_keys_ = true;
        return;
      }
      key_bytes_.push_back(key(e));
      key_owners_.push_back(0);
      key_[key(e)] = static_cast<unsigned char>(key_owners_.size());
    }
    key_owners_[key_[key(e)] - 1u] |= e.owner;
  }
  auto list = [&](const Entry& e) { return (key_[key(e)] - 1u) * kPairs + follow(e); };
  std::stable_sort(entries_.begin(), entries_.end(), [&](const Entry& a, const Entry& b) { return list(a) < list(b); });
  lists_.assign(key_owners_.size() * kPairs + 1, 0);
  std::size_t i = 0;
  for (std::size_t l = 0; l < key_owners_.size() * kPairs; ++l) {
    lists_[l] = static_cast<std::uint16_t>(i);
    while (i < entries_.size() && list(entries_[i]) == l) ++i;
  }
  lists_.back() = static_cast<std::uint16_t>(i);
  list_owners_.assign(key_owners_.size() * kPairs, 0);
  for (const Entry& e : entries_) list_owners_[list(e)] |= e.owner;
  all_owners_ = 0;
  for (std::uint64_t o : key_owners_) all_owners_ |= o;
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

bool MarkerSet::check(const unsigned char* s, std::size_t n, std::size_t j, std::size_t key,
                      std::uint64_t& found) const {
  const std::size_t lists[2] = {key * kPairs + 256, key * kPairs + (j + 1 < n ? s[j + 1] : 256u)};
  for (std::size_t l : lists) {
    if ((list_owners_[l] & ~found) == 0) continue;
    for (std::size_t e = lists_[l]; e < lists_[l + 1]; ++e) {
      const Entry& m = entries_[e];
      if ((found & m.owner) == 0 && matches(m, s, n, j)) found |= m.owner;
    }
    if (lists[1] == lists[0]) break;
  }
  return (key_owners_[key] & ~found) == 0;
}

std::uint64_t MarkerSet::scan(std::string_view text) const {
  std::uint64_t found = 0;
  if (too_many_keys_) {
    for (const Entry& e : entries_) {
      if (text.find(e.marker) != std::string_view::npos) found |= e.owner;
    }
    return found;
  }
  std::uint64_t dead = 0;  // bit k: the owners keyed by key k are all found, so its byte stops mattering
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  // At key byte s[j] (key index k, not dead): true when the markers it keys are now all found.
  // Most visits end at the first test: no marker of an owner still missing is keyed by s[j] and
  // ends there or continues with s[j + 1].
  auto visit = [&](std::size_t j, std::size_t k) {
    const std::size_t f = j + 1 < n ? s[j + 1] : 256u;
    if (((list_owners_[k * kPairs + 256] | list_owners_[k * kPairs + f]) & ~found) == 0) return false;
    if (!check(s, n, j, k, found)) return false;
    dead |= std::uint64_t{1} << k;
    return true;
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time: one compare per key byte (a fixed count, so the loop predicts well),
  // then only the hits.
  const std::size_t keys = key_bytes_.size();
  __m128i wanted[kMaxKeys];
  for (std::size_t k = 0; k < keys; ++k) wanted[k] = _mm_set1_epi8(static_cast<char>(key_bytes_[k]));
  while (keys > 0 && i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    __m128i eq = _mm_cmpeq_epi8(v, wanted[0]);
    for (std::size_t k = 1; k < keys; ++k) eq = _mm_or_si128(eq, _mm_cmpeq_epi8(v, wanted[k]));
    for (unsigned bits = static_cast<unsigned>(_mm_movemask_epi8(eq)); bits != 0; bits &= bits - 1) {
      const std::size_t j = i + static_cast<std::size_t>(std::countr_zero(bits));
      const std::size_t k = key_[s[j]] - 1u;
      if ((dead >> k & 1) == 0 && visit(j, k) && found == all_owners_) return found;
    }
    i += 16;
  }
#endif
  for (; i < n; ++i) {
    while (i + 4 <= n && (key_[s[i]] | key_[s[i + 1]] | key_[s[i + 2]] | key_[s[i + 3]]) == 0) i += 4;
    while (i < n && key_[s[i]] == 0) ++i;
    if (i == n) break;
    const std::size_t k = key_[s[i]] - 1u;
    if ((dead >> k & 1) == 0 && visit(i, k) && found == all_owners_) break;
  }
  return found;
}

}  // namespace keel::detail
