#include "tools/web/address_policy.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

namespace keel::detail {
namespace {

struct Case {
  const char* address;
  AddressClass expected;
  const char* reason_part;  // a piece the reason must contain ("" for public)
};

void expect_class(const Case& c) {
  const std::optional<IpAddress> ip = IpAddress::parse(c.address);
  ASSERT_TRUE(ip.has_value()) << c.address;
  const AddressVerdict v = classify_address(*ip);
  EXPECT_EQ(address_class_name(v.cls), address_class_name(c.expected)) << c.address << ": " << v.reason;
  if (c.expected == AddressClass::kPublic) {
    EXPECT_TRUE(v.reason.empty()) << c.address;
  } else {
    EXPECT_NE(v.reason.find(c.reason_part), std::string::npos) << c.address << ": " << v.reason;
  }
}

TEST(AddressPolicyTest, ClassifiesIpv4RangesAtTheirBoundaries) {
  const Case cases[] = {
      {"0.0.0.0", AddressClass::kUnspecified, "unspecified"},
      {"0.255.255.255", AddressClass::kUnspecified, "0.0.0.0/8"},
      {"1.0.0.0", AddressClass::kPublic, ""},
      {"9.255.255.255", AddressClass::kPublic, ""},
      {"10.0.0.0", AddressClass::kPrivate, "10.0.0.0/8"},
      {"10.0.0.1", AddressClass::kPrivate, "private"},
      {"10.255.255.255", AddressClass::kPrivate, "10.0.0.0/8"},
      {"11.0.0.0", AddressClass::kPublic, ""},
      {"100.63.255.255", AddressClass::kPublic, ""},
      {"100.64.0.0", AddressClass::kSharedCgnat, "CGNAT"},
      {"100.127.255.255", AddressClass::kSharedCgnat, "100.64.0.0/10"},
      {"100.128.0.0", AddressClass::kPublic, ""},
      {"126.255.255.255", AddressClass::kPublic, ""},
      {"127.0.0.0", AddressClass::kLoopback, "loopback"},
      {"127.0.0.1", AddressClass::kLoopback, "loopback"},
      {"127.1.2.3", AddressClass::kLoopback, "127.0.0.0/8"},
      {"127.255.255.255", AddressClass::kLoopback, "loopback"},
      {"128.0.0.0", AddressClass::kPublic, ""},
      {"169.253.255.255", AddressClass::kPublic, ""},
      {"169.254.0.1", AddressClass::kLinkLocal, "link-local"},
      {"169.254.169.254", AddressClass::kCloudMetadata, "metadata"},
      {"169.254.255.255", AddressClass::kLinkLocal, "169.254.0.0/16"},
      {"169.255.0.0", AddressClass::kPublic, ""},
      {"172.15.255.255", AddressClass::kPublic, ""},
      {"172.16.0.0", AddressClass::kPrivate, "172.16.0.0/12"},
      {"172.16.0.1", AddressClass::kPrivate, "private"},
      {"172.31.255.255", AddressClass::kPrivate, "172.16.0.0/12"},
      {"172.32.0.1", AddressClass::kPublic, ""},
      {"192.0.0.8", AddressClass::kReserved, "192.0.0.0/24"},
      {"192.0.2.1", AddressClass::kDocumentation, "documentation"},
      {"192.88.99.1", AddressClass::kReserved, "6to4 relay"},
      {"192.167.255.255", AddressClass::kPublic, ""},
      {"192.168.0.0", AddressClass::kPrivate, "192.168.0.0/16"},
      {"192.168.1.1", AddressClass::kPrivate, "private"},
      {"192.168.255.255", AddressClass::kPrivate, "192.168.0.0/16"},
      {"192.169.0.0", AddressClass::kPublic, ""},
      {"198.17.255.255", AddressClass::kPublic, ""},
      {"198.18.0.0", AddressClass::kReserved, "benchmarking"},
      {"198.19.255.255", AddressClass::kReserved, "benchmarking"},
      {"198.20.0.0", AddressClass::kPublic, ""},
      {"198.51.100.7", AddressClass::kDocumentation, "198.51.100.0/24"},
      {"203.0.113.9", AddressClass::kDocumentation, "203.0.113.0/24"},
      {"100.100.100.200", AddressClass::kCloudMetadata, "metadata"},
      {"8.8.8.8", AddressClass::kPublic, ""},
      {"93.184.216.34", AddressClass::kPublic, ""},
      {"223.255.255.255", AddressClass::kPublic, ""},
      {"224.0.0.1", AddressClass::kMulticast, "multicast"},
      {"239.255.255.255", AddressClass::kMulticast, "224.0.0.0/4"},
      {"240.0.0.1", AddressClass::kReserved, "240.0.0.0/4"},
      {"255.255.255.254", AddressClass::kReserved, "240.0.0.0/4"},
      {"255.255.255.255", AddressClass::kBroadcast, "broadcast"},
  };
  for (const Case& c : cases) expect_class(c);
}

TEST(AddressPolicyTest, ClassifiesIpv6RangesAndEmbeddedIpv4Forms) {
  const Case cases[] = {
      {"::", AddressClass::kUnspecified, "unspecified"},
      {"::1", AddressClass::kLoopback, "loopback"},
      {"::2", AddressClass::kUnspecified, "IPv4-compatible"},
      {"::ffff:127.0.0.1", AddressClass::kLoopback, "IPv4-mapped IPv6 form of a loopback address"},
      {"::ffff:7f00:1", AddressClass::kLoopback, "IPv4-mapped"},
      {"::ffff:10.1.2.3", AddressClass::kPrivate, "IPv4-mapped"},
      {"::ffff:169.254.169.254", AddressClass::kCloudMetadata, "metadata"},
      {"::ffff:8.8.8.8", AddressClass::kPublic, ""},
      {"::ffff:0:192.168.1.1", AddressClass::kPrivate, "IPv4-translated"},
      {"::127.0.0.1", AddressClass::kLoopback, "IPv4-compatible"},
      {"64:ff9b::127.0.0.1", AddressClass::kLoopback, "NAT64"},
      {"64:ff9b::a9fe:a9fe", AddressClass::kCloudMetadata, "NAT64"},
      {"64:ff9b::8.8.4.4", AddressClass::kPublic, ""},
      {"64:ff9b:1::1", AddressClass::kPrivate, "NAT64"},
      {"2002:7f00:1::", AddressClass::kLoopback, "6to4"},
      {"2002:c0a8:101::1", AddressClass::kPrivate, "6to4"},
      {"2002:808:808::1", AddressClass::kPublic, ""},
      {"100::1", AddressClass::kReserved, "discard"},
      {"2001:db8::1", AddressClass::kDocumentation, "2001:db8::/32"},
      {"2001:2::1", AddressClass::kReserved, "benchmarking"},
      {"fbff:ffff::1", AddressClass::kReserved, "2000::/3"},
      {"fc00::", AddressClass::kPrivate, "fc00::/7"},
      {"fd12:3456::1", AddressClass::kPrivate, "unique local"},
      {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", AddressClass::kPrivate, "fc00::/7"},
      {"fd00:ec2::254", AddressClass::kCloudMetadata, "metadata"},
      {"fe7f:ffff::1", AddressClass::kReserved, "2000::/3"},
      {"fe80::", AddressClass::kLinkLocal, "fe80::/10"},
      {"fe80::1%eth0", AddressClass::kLinkLocal, "link-local"},
      {"febf:ffff::1", AddressClass::kLinkLocal, "link-local"},
      {"fec0::1", AddressClass::kPrivate, "site-local"},
      {"ff02::1", AddressClass::kMulticast, "multicast"},
      {"[::1]", AddressClass::kLoopback, "loopback"},
      {"2001:4860:4860::8888", AddressClass::kPublic, ""},
      {"2606:4700::1111", AddressClass::kPublic, ""},
      {"3fff:ffff::1", AddressClass::kPublic, ""},
      {"4000::1", AddressClass::kReserved, "2000::/3"},
  };
  for (const Case& c : cases) expect_class(c);
}

TEST(AddressPolicyTest, ParsesOnlyCanonicalLiterals) {
  for (const char* bad : {"", "localhost", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "1.2.3.4.5",
                          "256.0.0.1", "::g", "[::1", "1.2.3.4/8"}) {
    EXPECT_FALSE(IpAddress::parse(bad).has_value()) << bad;
  }
  EXPECT_EQ(IpAddress::parse("10.0.0.1")->to_string(), "10.0.0.1");
  EXPECT_EQ(IpAddress::parse("[0:0::1]")->to_string(), "::1");
  EXPECT_EQ(IpAddress::parse("::ffff:127.0.0.1")->mapped_ipv4()->to_string(), "127.0.0.1");
  EXPECT_FALSE(IpAddress::parse("127.0.0.1")->mapped_ipv4().has_value());
}

TEST(AddressPolicyTest, ReadsSocketAddresses) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  ASSERT_EQ(inet_pton(AF_INET, "192.168.4.5", &in.sin_addr), 1);
  auto a = IpAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&in), sizeof in);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->to_string(), "192.168.4.5");
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  ASSERT_EQ(inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr), 1);
  auto b = IpAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&in6), sizeof in6);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(classify_address(*b).cls, AddressClass::kLoopback);
  EXPECT_FALSE(IpAddress::from_sockaddr(reinterpret_cast<const sockaddr*>(&in), 4).has_value());  // too short
}

TEST(AddressPolicyTest, CidrBlocksMatchTheirRangeOnly) {
  auto block = CidrBlock::parse("10.20.0.0/16");
  ASSERT_TRUE(block.has_value());
  EXPECT_TRUE(block->contains(*IpAddress::parse("10.20.0.0")));
  EXPECT_TRUE(block->contains(*IpAddress::parse("10.20.255.255")));
  EXPECT_FALSE(block->contains(*IpAddress::parse("10.21.0.0")));
  EXPECT_FALSE(block->contains(*IpAddress::parse("::ffff:10.20.0.1")));  // families differ

  auto odd = CidrBlock::parse("172.16.5.9/12");  // host bits are masked off
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->base.to_string(), "172.16.0.0");
  EXPECT_TRUE(odd->contains(*IpAddress::parse("172.31.0.1")));
  EXPECT_FALSE(odd->contains(*IpAddress::parse("172.32.0.1")));

  auto v6 = CidrBlock::parse("fd00::/8");
  ASSERT_TRUE(v6.has_value());
  EXPECT_TRUE(v6->contains(*IpAddress::parse("fdff::1")));
  EXPECT_FALSE(v6->contains(*IpAddress::parse("fc00::1")));
  EXPECT_TRUE(CidrBlock::parse("0.0.0.0/0")->contains(*IpAddress::parse("8.8.8.8")));
  EXPECT_EQ(CidrBlock::parse("127.0.0.1")->prefix, 32);

  for (const char* bad : {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/a", "10.0.0/8", "/8"}) {
    EXPECT_FALSE(CidrBlock::parse(bad).has_value()) << bad;
  }
}

TEST(AddressPolicyTest, RefusesPrivateAddressesWithAnActionableMessage) {
  auto policy = AddressPolicy::create({});
  ASSERT_TRUE(policy.ok());
  const Status s = policy->check_address("intranet.test", *IpAddress::parse("10.1.2.3"));
  EXPECT_EQ(s.code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(s.message().find("intranet.test"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("10.1.2.3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("private"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("allowed"), std::string::npos) << s.message();
  EXPECT_TRUE(policy->check_address("example.org", *IpAddress::parse("93.184.216.34")).ok());
}

TEST(AddressPolicyTest, AllowedEntriesLetAddressesAndHostsThrough) {
  auto policy = AddressPolicy::create({"127.0.0.1", "10.20.0.0/16", "fd00::/8", "Build.Internal."});
  ASSERT_TRUE(policy.ok()) << policy.status().to_string();
  EXPECT_TRUE(policy->check_address("x", *IpAddress::parse("127.0.0.1")).ok());
  EXPECT_TRUE(policy->check_address("x", *IpAddress::parse("::ffff:127.0.0.1")).ok());  // mapped form too
  EXPECT_FALSE(policy->check_address("x", *IpAddress::parse("127.0.0.2")).ok());
  EXPECT_TRUE(policy->check_address("x", *IpAddress::parse("10.20.3.4")).ok());
  EXPECT_FALSE(policy->check_address("x", *IpAddress::parse("10.21.3.4")).ok());
  EXPECT_TRUE(policy->check_address("x", *IpAddress::parse("fd12::1")).ok());
  EXPECT_FALSE(policy->check_address("x", *IpAddress::parse("::1")).ok());
  // A host allowed by name is trusted whatever it resolves to.
  EXPECT_TRUE(policy->check_address("build.internal", *IpAddress::parse("192.168.0.9")).ok());
  EXPECT_TRUE(policy->host_allowed("BUILD.internal"));
  EXPECT_FALSE(policy->check_address("other.internal", *IpAddress::parse("192.168.0.9")).ok());
}

TEST(AddressPolicyTest, RejectsMalformedAllowedEntries) {
  for (const char* bad : {"10.0.0.0/40", "10.0.0", "::g/8", "http://x", "a b", "fd00::/x", ""}) {
    auto policy = AddressPolicy::create({bad});
    ASSERT_FALSE(policy.ok()) << bad;
    EXPECT_EQ(policy.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(policy.status().message().find("allowed entry"), std::string::npos);
  }
}

TEST(AddressPolicyTest, RefusesMetadataHostNames) {
  auto policy = AddressPolicy::create({});
  ASSERT_TRUE(policy.ok());
  for (const char* name : {"metadata.google.internal", "METADATA.google.internal.", "metadata", "metadata.goog"}) {
    const Status s = policy->check_host(name);
    EXPECT_EQ(s.code(), ErrorCode::kPermissionDenied) << name;
    EXPECT_NE(s.message().find("metadata"), std::string::npos);
  }
  EXPECT_TRUE(policy->check_host("metadata.example.com").ok());
  EXPECT_TRUE(policy->check_host("example.com").ok());
  auto allowing = AddressPolicy::create({"metadata.google.internal"});
  ASSERT_TRUE(allowing.ok());
  EXPECT_TRUE(allowing->check_host("metadata.google.internal").ok());
}

}  // namespace
}  // namespace keel::detail
