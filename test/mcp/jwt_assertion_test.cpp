// sign_jwt: assertions OpenSSL verifies with the public half of a fresh key (ES256 as r||s per
// RFC 7518 §3.4, RS256), claims that read back, and keys or algorithms that do not fit.
#include "mcp/jwt_assertion.hpp"

#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

namespace keel::mcp {
namespace {

using nlohmann::json;

std::string b64url_decode(std::string s) {
  for (char& c : s) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (s.size() % 4) s += '=';
  std::string out(s.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(s.data()),
                          static_cast<int>(s.size()));
  out.resize(static_cast<size_t>(n < 0 ? 0 : n));
  size_t pad = s.size() - s.find_last_not_of('=') - 1;
  out.resize(out.size() - pad);
  return out;
}

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Key make_key(bool ec) {
  EVP_PKEY* key = ec ? EVP_EC_gen("P-256") : EVP_RSA_gen(2048);
  return Key(key, EVP_PKEY_free);
}

std::string pem_of(EVP_PKEY* key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

bool verifies(EVP_PKEY* key, const std::string& jwt, bool ec) {
  size_t last = jwt.rfind('.');
  std::string input = jwt.substr(0, last);
  std::string sig = b64url_decode(jwt.substr(last + 1));
  std::string der = sig;
  if (ec) {
    if (sig.size() != 64) return false;
    ECDSA_SIG* s = ECDSA_SIG_new();
    ECDSA_SIG_set0(s, BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()), 32, nullptr),
                   BN_bin2bn(reinterpret_cast<const unsigned char*>(sig.data()) + 32, 32, nullptr));
    unsigned char* out = nullptr;
    int n = i2d_ECDSA_SIG(s, &out);
    der.assign(reinterpret_cast<char*>(out), static_cast<size_t>(n));
    OPENSSL_free(out);
    ECDSA_SIG_free(s);
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key);
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(der.data()), der.size(),
                          reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
}

TEST(JwtAssertion, Es256AndRs256VerifyWithThePublicKey) {
  for (bool ec : {true, false}) {
    Key key = make_key(ec);
    ASSERT_TRUE(key);
    json claims = {{"iss", "client-1"}, {"sub", "client-1"}, {"aud", "https://as.example"}, {"exp", 2000000000}};
    Result<std::string> jwt = sign_jwt(claims, pem_of(key.get()), ec ? "ES256" : "RS256");
    ASSERT_TRUE(jwt.ok()) << jwt.status().message();
    EXPECT_TRUE(verifies(key.get(), *jwt, ec)) << (ec ? "ES256" : "RS256");
    size_t first = jwt->find('.');
    size_t last = jwt->rfind('.');
    json header = json::parse(b64url_decode(jwt->substr(0, first)));
    EXPECT_EQ(header["alg"], ec ? "ES256" : "RS256");
    EXPECT_EQ(json::parse(b64url_decode(jwt->substr(first + 1, last - first - 1))), claims);
    std::string tampered = *jwt;
    tampered[first + 2] = tampered[first + 2] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(verifies(key.get(), tampered, ec));
  }
}

TEST(JwtAssertion, KeysAndAlgorithmsThatDoNotFitAreRefused) {
  Key ec = make_key(true);
  EXPECT_EQ(sign_jwt(json::object(), pem_of(ec.get()), "RS256").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(sign_jwt(json::object(), pem_of(ec.get()), "HS256").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(sign_jwt(json::object(), "not a key", "ES256").status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel::mcp
