// tools/web/address_policy.hpp — which network addresses the web tools may connect to.
//
// classify_address() is a pure function: it names the special-purpose range an IPv4 or IPv6
// address belongs to (loopback, private, link-local, CGNAT, metadata, multicast, reserved, ...),
// looking through IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) forms to
// the IPv4 address they carry. AddressPolicy adds the configured exceptions (WebToolOptions::allowed)
// and the refused host names, and turns a refusal into a Status the model can act on.
//
//   auto policy = AddressPolicy::create({"127.0.0.1"});
//   Status s = policy->check_address("example.test", *IpAddress::parse("10.0.0.1"));
//   // permission_denied: refused to connect to example.test (10.0.0.1): private network address ...
//
// Thread-safety: IpAddress, the free functions and a constructed AddressPolicy are immutable
// values; safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

struct sockaddr;

namespace keel::detail {

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // network order; an IPv4 address uses bytes[0..3]

  // A literal in canonical textual form: dotted-quad IPv4 ("10.0.0.1") or IPv6 ("::1", also in
  // brackets, a zone "%eth0" ignored). Other spellings (decimal "2130706433", hex, octal) are not
  // literals here: URLs are normalized by libcurl, and the guard checks resolved sockaddrs anyway.
  static std::optional<IpAddress> parse(std::string_view text);
  // The address of an AF_INET or AF_INET6 socket address; nullopt for other families.
  static std::optional<IpAddress> from_sockaddr(const sockaddr* addr, size_t length);
  // "10.0.0.1", "::1".
  std::string to_string() const;
  // The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) carries; nullopt otherwise.
  std::optional<IpAddress> mapped_ipv4() const;

  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

enum class AddressClass {
  kPublic,         // globally routable unicast
  kUnspecified,    // 0.0.0.0/8, ::
  kLoopback,       // 127.0.0.0/8, ::1
  kPrivate,        // 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10, 64:ff9b:1::/48
  kLinkLocal,      // 169.254/16, fe80::/10
  kSharedCgnat,    // 100.64/10
  kCloudMetadata,  // 169.254.169.254, fd00:ec2::254, 100.100.100.200, 168.63.129.16
  kMulticast,      // 224/4, ff00::/8
  kBroadcast,      // 255.255.255.255
  kDocumentation,  // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32
  kReserved,       // 240/4, 192.0.0/24, 198.18/15, 100::/64, IPv6 outside 2000::/3, ...
};

// "public", "loopback", "private", "link-local", "cgnat", "cloud-metadata", ...
std::string_view address_class_name(AddressClass cls);

struct AddressVerdict {
  AddressClass cls = AddressClass::kPublic;
  // Why the address is not public, for people: "loopback address (127.0.0.0/8)", "IPv4-mapped
  // IPv6 form of a private network address (10.0.0.0/8)". Empty for public addresses.
  std::string reason;
  bool is_public() const { return cls == AddressClass::kPublic; }
};

// The range `address` belongs to. Pure: no I/O, no configuration.
AddressVerdict classify_address(const IpAddress& address);

// An address block: "10.0.0.0/8", "fd00::/8", or a single address ("127.0.0.1" = /32).
struct CidrBlock {
  IpAddress base;  // masked to `prefix` bits
  int prefix = 0;  // 0..32 for IPv4, 0..128 for IPv6
  static std::optional<CidrBlock> parse(std::string_view text);
  bool contains(const IpAddress& address) const;
};

// A host name as the guard compares it: lowercase, without a trailing dot or IPv6 brackets.
std::string normalize_host(std::string_view host);

// The reason a host name is refused by name (cloud metadata services: "metadata.google.internal",
// "metadata", ...), or nullopt.
std::optional<std::string> refused_host_name(std::string_view host);

class AddressPolicy {
 public:
  // `allowed`: WebToolOptions::allowed. InvalidArgument names the first entry that is neither an
  // IP address, a CIDR block nor a host name.
  static Result<AddressPolicy> create(const std::vector<std::string>& allowed);

  // Whether `host` is listed by name in `allowed` (such a host skips every check).
  bool host_allowed(std::string_view host) const;
  // Ok, or PermissionDenied when `host` is refused by name.
  Status check_host(std::string_view host) const;
  // Ok when `address` is public or allowed (by address, or because `host` is allowed by name);
  // otherwise PermissionDenied naming host, address, reason and how to allow it.
  Status check_address(std::string_view host, const IpAddress& address) const;

 private:
  std::vector<CidrBlock> blocks_;
  std::vector<std::string> hosts_;
};

}  // namespace keel::detail
