// sign_jwt: EVP_DigestSign with SHA-256; an ECDSA signature comes out DER-encoded and JWS wants
// r || s, 32 bytes each (RFC 7518 §3.4).
#include "mcp/jwt_assertion.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <vector>

#include "core/text/base64.hpp"

namespace keel::mcp {

Result<std::string> sign_jwt(const nlohmann::json& claims, const std::string& private_key_pem,
                             const std::string& algorithm) {
  if (algorithm != "ES256" && algorithm != "RS256") {
    return Status::InvalidArgument("signing algorithm '" + algorithm + "' is not one keel signs with (ES256, RS256)");
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())),
                                                BIO_free);
  if (!bio) return Status::Internal("cannot read the private key");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  if (!key) return Status::InvalidArgument("the private key is not a PEM private key");
  const int type = EVP_PKEY_base_id(key.get());
  if ((algorithm == "ES256" && type != EVP_PKEY_EC) || (algorithm == "RS256" && type != EVP_PKEY_RSA)) {
    return Status::InvalidArgument("the private key is not a " + std::string(algorithm == "ES256" ? "P-256 EC" : "RSA") +
                                   " key, as " + algorithm + " needs");
  }
  const std::string header = keel::detail::base64url_encode(nlohmann::json({{"alg", algorithm}, {"typ", "JWT"}}).dump());
  const std::string payload = keel::detail::base64url_encode(claims.dump());
  const std::string input = header + "." + payload;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t size = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &size, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) {
    return Status::Internal("cannot sign the client assertion");
  }
  std::vector<unsigned char> signature(size);
  if (EVP_DigestSign(ctx.get(), signature.data(), &size, reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return Status::Internal("cannot sign the client assertion");
  }
  signature.resize(size);
  std::string raw(signature.begin(), signature.end());
  if (algorithm == "ES256") {
    const unsigned char* der = signature.data();
    std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(size)),
                                                              ECDSA_SIG_free);
    if (!sig) return Status::Internal("cannot read the ECDSA signature");
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(sig.get(), &r, &s);
    unsigned char rs[64];
    if (BN_bn2binpad(r, rs, 32) != 32 || BN_bn2binpad(s, rs + 32, 32) != 32) {
      return Status::InvalidArgument("the EC key is not a P-256 key, as ES256 needs");
    }
    raw.assign(reinterpret_cast<const char*>(rs), 64);
  }
  return input + "." + keel::detail::base64url_encode(raw);
}

}  // namespace keel::mcp
