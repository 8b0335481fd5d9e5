// Address classification tables and the allow list; see address_policy.hpp.
#include "tools/web/address_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace keel::detail {
namespace {

// One special-purpose range. Tables are searched in order; the first match wins, so narrower
// ranges come before the blocks containing them.
struct Range {
  const char* cidr;
  AddressClass cls;
  const char* reason;
};

constexpr Range kIpv4Ranges[] = {
    {"169.254.169.254/32", AddressClass::kCloudMetadata, "cloud metadata endpoint (169.254.169.254)"},
    {"100.100.100.200/32", AddressClass::kCloudMetadata, "cloud metadata endpoint (100.100.100.200)"},
    {"168.63.129.16/32", AddressClass::kCloudMetadata, "cloud platform endpoint (168.63.129.16)"},
    {"0.0.0.0/8", AddressClass::kUnspecified, "unspecified address (0.0.0.0/8)"},
    {"10.0.0.0/8", AddressClass::kPrivate, "private network address (10.0.0.0/8)"},
    {"100.64.0.0/10", AddressClass::kSharedCgnat, "shared CGNAT address (100.64.0.0/10)"},
    {"127.0.0.0/8", AddressClass::kLoopback, "loopback address (127.0.0.0/8)"},
    {"169.254.0.0/16", AddressClass::kLinkLocal, "link-local address (169.254.0.0/16)"},
    {"172.16.0.0/12", AddressClass::kPrivate, "private network address (172.16.0.0/12)"},
    {"192.0.0.0/24", AddressClass::kReserved, "reserved address (IETF protocol assignments, 192.0.0.0/24)"},
    {"192.0.2.0/24", AddressClass::kDocumentation, "documentation address (192.0.2.0/24)"},
    {"192.88.99.0/24", AddressClass::kReserved, "reserved address (6to4 relay anycast, 192.88.99.0/24)"},
    {"192.168.0.0/16", AddressClass::kPrivate, "private network address (192.168.0.0/16)"},
    {"198.18.0.0/15", AddressClass::kReserved, "reserved address (benchmarking, 198.18.0.0/15)"},
    {"198.51.100.0/24", AddressClass::kDocumentation, "documentation address (198.51.100.0/24)"},
    {"203.0.113.0/24", AddressClass::kDocumentation, "documentation address (203.0.113.0/24)"},
    {"224.0.0.0/4", AddressClass::kMulticast, "multicast address (224.0.0.0/4)"},
    {"255.255.255.255/32", AddressClass::kBroadcast, "broadcast address (255.255.255.255)"},
    {"240.0.0.0/4", AddressClass::kReserved, "reserved address (240.0.0.0/4)"},
};

constexpr Range kIpv6Ranges[] = {
    {"::/128", AddressClass::kUnspecified, "unspecified address (::)"},
    {"::1/128", AddressClass::kLoopback, "loopback address (::1)"},
    {"64:ff9b:1::/48", AddressClass::kPrivate, "local-use NAT64 address (64:ff9b:1::/48)"},
    {"100::/64", AddressClass::kReserved, "reserved address (discard-only, 100::/64)"},
    {"2001:2::/48", AddressClass::kReserved, "reserved address (benchmarking, 2001:2::/48)"},
    {"2001:db8::/32", AddressClass::kDocumentation, "documentation address (2001:db8::/32)"},
    {"fd00:ec2::254/128", AddressClass::kCloudMetadata, "cloud metadata endpoint (fd00:ec2::254)"},
    {"fc00::/7", AddressClass::kPrivate, "unique local address (fc00::/7)"},
    {"fe80::/10", AddressClass::kLinkLocal, "link-local address (fe80::/10)"},
    {"fec0::/10", AddressClass::kPrivate, "site-local address (fec0::/10)"},
    {"ff00::/8", AddressClass::kMulticast, "multicast address (ff00::/8)"},
};

// IPv6 prefixes that carry an IPv4 address; it decides the verdict.
struct Embedding {
  const char* cidr;
  size_t offset;  // first byte of the IPv4 address
  const char* form;
};

constexpr Embedding kEmbeddings[] = {
    {"::ffff:0:0/96", 12, "IPv4-mapped IPv6 form"},
    {"::ffff:0:0:0/96", 12, "IPv4-translated IPv6 form"},
    {"64:ff9b::/96", 12, "NAT64 IPv6 form"},
    {"2002::/16", 2, "6to4 IPv6 form"},
    {"::/96", 12, "IPv4-compatible IPv6 form"},  // after :: and ::1, which the table names
};

const std::vector<std::pair<CidrBlock, const Range*>>& compiled(bool v6) {
  static const auto build = [](const auto& table) {
    std::vector<std::pair<CidrBlock, const Range*>> out;
    for (const Range& r : table) out.emplace_back(*CidrBlock::parse(r.cidr), &r);
    return out;
  };
  static const auto v4_table = build(kIpv4Ranges);
  static const auto v6_table = build(kIpv6Ranges);
  return v6 ? v6_table : v4_table;
}

const std::vector<std::pair<CidrBlock, const Embedding*>>& compiled_embeddings() {
  static const auto table = [] {
    std::vector<std::pair<CidrBlock, const Embedding*>> out;
    for (const Embedding& e : kEmbeddings) out.emplace_back(*CidrBlock::parse(e.cidr), &e);
    return out;
  }();
  return table;
}

IpAddress ipv4_at(const IpAddress& v6, size_t offset) {
  IpAddress v4;
  std::copy_n(v6.bytes.begin() + static_cast<std::ptrdiff_t>(offset), 4, v4.bytes.begin());
  return v4;
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Letters, digits, '-', '_' and '.', with at least one character that is not a digit or a dot (so
// that a broken IPv4 literal like "10.0.0" is not taken for a name).
bool looks_like_host_name(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  bool has_non_numeric = false;
  for (char c : s) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '-' && c != '_' && c != '.') return false;
    if (c != '.' && !(c >= '0' && c <= '9')) has_non_numeric = true;
  }
  return has_non_numeric;
}

}  // namespace

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
  std::string s(text);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  IpAddress a;
  if (s.find(':') != std::string::npos) {
    if (const size_t zone = s.find('%'); zone != std::string::npos) s.resize(zone);
    if (::inet_pton(AF_INET6, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
    a.v6 = true;
    return a;
  }
  if (::inet_pton(AF_INET, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
  return a;
}

std::optional<IpAddress> IpAddress::from_sockaddr(const sockaddr* addr, size_t length) {
  if (addr == nullptr) return std::nullopt;
  IpAddress a;
  if (addr->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    sockaddr_in in{};
    std::memcpy(&in, addr, sizeof in);
    std::memcpy(a.bytes.data(), &in.sin_addr, 4);
    return a;
  }
  if (addr->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, addr, sizeof in6);
    std::memcpy(a.bytes.data(), &in6.sin6_addr, 16);
    a.v6 = true;
    return a;
  }
  return std::nullopt;
}

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf) == nullptr) return "?";
  return buf;
}

std::optional<IpAddress> IpAddress::mapped_ipv4() const {
  if (!v6) return std::nullopt;
  static const CidrBlock mapped = *CidrBlock::parse("::ffff:0:0/96");
  if (!mapped.contains(*this)) return std::nullopt;
  return ipv4_at(*this, 12);
}

std::string_view address_class_name(AddressClass cls) {
  switch (cls) {
    case AddressClass::kPublic: return "public";
    case AddressClass::kUnspecified: return "unspecified";
    case AddressClass::kLoopback: return "loopback";
    case AddressClass::kPrivate: return "private";
    case AddressClass::kLinkLocal: return "link-local";
    case AddressClass::kSharedCgnat: return "cgnat";
    case AddressClass::kCloudMetadata: return "cloud-metadata";
    case AddressClass::kMulticast: return "multicast";
    case AddressClass::kBroadcast: return "broadcast";
    case AddressClass::kDocumentation: return "documentation";
    case AddressClass::kReserved: return "reserved";
  }
  return "reserved";
}

AddressVerdict classify_address(const IpAddress& address) {
  for (const auto& [block, range] : compiled(address.v6)) {
    if (block.contains(address)) return {range->cls, range->reason};
  }
  if (!address.v6) return {};
  for (const auto& [block, embedding] : compiled_embeddings()) {
    if (!block.contains(address)) continue;
    AddressVerdict inner = classify_address(ipv4_at(address, embedding->offset));
    if (inner.is_public()) return inner;
    const bool vowel = std::string_view("aeiou").find(inner.reason.front()) != std::string_view::npos;
    inner.reason = std::string(embedding->form) + (vowel ? " of an " : " of a ") + inner.reason;
    return inner;
  }
  // Global unicast is 2000::/3; everything else is unassigned or special.
  if ((address.bytes[0] & 0xE0) != 0x20) {
    return {AddressClass::kReserved, "reserved address (outside global unicast 2000::/3)"};
  }
  return {};
}

std::optional<CidrBlock> CidrBlock::parse(std::string_view text) {
  const size_t slash = text.find('/');
  const std::optional<IpAddress> base = IpAddress::parse(text.substr(0, slash));
  if (!base) return std::nullopt;
  const int max_prefix = base->v6 ? 128 : 32;
  int prefix = max_prefix;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    prefix = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      prefix = prefix * 10 + (c - '0');
    }
    if (prefix > max_prefix) return std::nullopt;
  }
  CidrBlock block;
  block.base = *base;
  block.prefix = prefix;
  for (int bit = prefix; bit < 128; ++bit) {
    block.base.bytes[static_cast<size_t>(bit / 8)] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
  return block;
}

bool CidrBlock::contains(const IpAddress& address) const {
  if (address.v6 != base.v6) return false;
  const int full = prefix / 8;
  for (int i = 0; i < full; ++i) {
    if (address.bytes[static_cast<size_t>(i)] != base.bytes[static_cast<size_t>(i)]) return false;
  }
  const int rest = prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<uint8_t>(0xFFu << (8 - rest));
  return (address.bytes[static_cast<size_t>(full)] & mask) == base.bytes[static_cast<size_t>(full)];
}

std::string normalize_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  while (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string out(host);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::optional<std::string> refused_host_name(std::string_view host) {
  static constexpr std::string_view kMetadataNames[] = {
      "metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal",
  };
  const std::string name = normalize_host(host);
  for (std::string_view refused : kMetadataNames) {
    if (name == refused) return "cloud metadata host name ('" + std::string(refused) + "')";
  }
  return std::nullopt;
}

Result<AddressPolicy> AddressPolicy::create(const std::vector<std::string>& allowed) {
  AddressPolicy policy;
  for (const std::string& entry : allowed) {
    if (std::optional<CidrBlock> block = CidrBlock::parse(entry)) {
      policy.blocks_.push_back(*block);
    } else if (entry.find_first_of(":/") == std::string::npos && looks_like_host_name(entry)) {
      policy.hosts_.push_back(normalize_host(entry));
    } else {
      return Status::InvalidArgument("web tools: allowed entry '" + entry +
                                     "' is not an IP address, a CIDR block (e.g. 10.0.0.0/8) or a host name");
    }
  }
  return policy;
}

bool AddressPolicy::host_allowed(std::string_view host) const {
  const std::string name = normalize_host(host);
  return std::find(hosts_.begin(), hosts_.end(), name) != hosts_.end();
}

Status AddressPolicy::check_host(std::string_view host) const {
  if (host_allowed(host)) return Status::Ok();
  if (std::optional<std::string> reason = refused_host_name(host)) {
    return Status::PermissionDenied("refused to connect to " + std::string(host) + ": " + *reason +
                                    ". The web tools do not reach cloud metadata services; to allow this host, "
                                    "add it to the web tools' allowed list (WebToolOptions::allowed)");
  }
  return Status::Ok();
}

Status AddressPolicy::check_address(std::string_view host, const IpAddress& address) const {
  if (host_allowed(host)) return Status::Ok();
  const std::optional<IpAddress> mapped = address.mapped_ipv4();
  for (const CidrBlock& block : blocks_) {
    if (block.contains(address) || (mapped && block.contains(*mapped))) return Status::Ok();
  }
  const AddressVerdict verdict = classify_address(address);
  if (verdict.is_public()) return Status::Ok();
  const std::string shown = address.to_string();
  return Status::PermissionDenied(
      "refused to connect to " + std::string(host) + (normalize_host(host) == shown ? "" : " (" + shown + ")") + ": " +
      verdict.reason +
      ". The web tools do not reach loopback, private, link-local, reserved or cloud metadata addresses; to allow "
      "this one, add \"" + shown + "\" (or a CIDR block containing it) to the web tools' allowed list "
      "(WebToolOptions::allowed)");
}

}  // namespace keel::detail
