// sign_jwt: EVP_DigestSign with SHA-256; an ECDSA signature comes out DER-encoded and JWS wants
// r || s, 32 bytes each (RFC 7518 §3.4). libcrypto is loaded when the first assertion is signed,
// as libcurl is at its first request: runs that never sign one never map it.
#include "mcp/jwt_assertion.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "base/shared_library.hpp"
#include "core/text/base64.hpp"

namespace keel::mcp {

namespace {

// The libcrypto functions sign_jwt uses, resolved from the library at first use.
struct Crypto {
  decltype(&::BIO_new_mem_buf) BIO_new_mem_buf = nullptr;
  decltype(&::BIO_free) BIO_free = nullptr;
  decltype(&::PEM_read_bio_PrivateKey) PEM_read_bio_PrivateKey = nullptr;
  decltype(&::EVP_PKEY_free) EVP_PKEY_free = nullptr;
  decltype(&::EVP_PKEY_get_base_id) EVP_PKEY_get_base_id = nullptr;
  decltype(&::EVP_MD_CTX_new) EVP_MD_CTX_new = nullptr;
  decltype(&::EVP_MD_CTX_free) EVP_MD_CTX_free = nullptr;
  decltype(&::EVP_sha256) EVP_sha256 = nullptr;
  decltype(&::EVP_DigestSignInit) EVP_DigestSignInit = nullptr;
  decltype(&::EVP_DigestSign) EVP_DigestSign = nullptr;
  decltype(&::d2i_ECDSA_SIG) d2i_ECDSA_SIG = nullptr;
  decltype(&::ECDSA_SIG_get0) ECDSA_SIG_get0 = nullptr;
  decltype(&::ECDSA_SIG_free) ECDSA_SIG_free = nullptr;
  decltype(&::BN_bn2binpad) BN_bn2binpad = nullptr;
  std::string error;  // why it could not be loaded; "" when every function was found
};

const Crypto& crypto() {
  static const Crypto loaded = [] {
    Crypto c;
    const std::string files[] = {"libcrypto.so.3", "libcrypto.so"};
    keel::detail::OpenedLibrary lib = keel::detail::open_first_library(files);
    if (lib.handle == nullptr) {
      c.error = "libcrypto (OpenSSL 3) cannot be loaded: " + lib.why;
      return c;
    }
    bool all = true;
    auto bind = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(keel::detail::library_symbol(lib.handle, name));
      if (fn == nullptr) {
        all = false;
        c.error = std::string(lib.path) + " has no " + name;
      }
    };
    bind(c.BIO_new_mem_buf, "BIO_new_mem_buf");
    bind(c.BIO_free, "BIO_free");
    bind(c.PEM_read_bio_PrivateKey, "PEM_read_bio_PrivateKey");
    bind(c.EVP_PKEY_free, "EVP_PKEY_free");
    bind(c.EVP_PKEY_get_base_id, "EVP_PKEY_get_base_id");
    bind(c.EVP_MD_CTX_new, "EVP_MD_CTX_new");
    bind(c.EVP_MD_CTX_free, "EVP_MD_CTX_free");
    bind(c.EVP_sha256, "EVP_sha256");
    bind(c.EVP_DigestSignInit, "EVP_DigestSignInit");
    bind(c.EVP_DigestSign, "EVP_DigestSign");
    bind(c.d2i_ECDSA_SIG, "d2i_ECDSA_SIG");
    bind(c.ECDSA_SIG_get0, "ECDSA_SIG_get0");
    bind(c.ECDSA_SIG_free, "ECDSA_SIG_free");
    bind(c.BN_bn2binpad, "BN_bn2binpad");
    if (!all && c.error.empty()) c.error = "libcrypto is incomplete";
    return c;
  }();
  return loaded;
}

}  // namespace

Result<std::string> sign_jwt(const nlohmann::json& claims, const std::string& private_key_pem,
                             const std::string& algorithm) {
  if (algorithm != "ES256" && algorithm != "RS256") {
    return Status::InvalidArgument("signing algorithm '" + algorithm + "' is not one keel signs with (ES256, RS256)");
  }
  const Crypto& c = crypto();
  if (!c.error.empty()) return Status::Unavailable(c.error + " (install libssl3 to sign client assertions)");
  std::unique_ptr<BIO, decltype(c.BIO_free)> bio(
      c.BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())), c.BIO_free);
  if (!bio) return Status::Internal("cannot read the private key");
  std::unique_ptr<EVP_PKEY, decltype(c.EVP_PKEY_free)> key(
      c.PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), c.EVP_PKEY_free);
  if (!key) return Status::InvalidArgument("the private key is not a PEM private key");
  const int type = c.EVP_PKEY_get_base_id(key.get());
  if ((algorithm == "ES256" && type != EVP_PKEY_EC) || (algorithm == "RS256" && type != EVP_PKEY_RSA)) {
    return Status::InvalidArgument("the private key is not a " + std::string(algorithm == "ES256" ? "P-256 EC" : "RSA") +
                                   " key, as " + algorithm + " needs");
  }
  const std::string header = keel::detail::base64url_encode(nlohmann::json({{"alg", algorithm}, {"typ", "JWT"}}).dump());
  const std::string payload = keel::detail::base64url_encode(claims.dump());
  const std::string input = header + "." + payload;
  std::unique_ptr<EVP_MD_CTX, decltype(c.EVP_MD_CTX_free)> ctx(c.EVP_MD_CTX_new(), c.EVP_MD_CTX_free);
  size_t size = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(input.data());
  if (!ctx || c.EVP_DigestSignInit(ctx.get(), nullptr, c.EVP_sha256(), nullptr, key.get()) != 1 ||
      c.EVP_DigestSign(ctx.get(), nullptr, &size, bytes, input.size()) != 1) {
    return Status::Internal("cannot sign the client assertion");
  }
  std::vector<unsigned char> signature(size);
  if (c.EVP_DigestSign(ctx.get(), signature.data(), &size, bytes, input.size()) != 1) {
    return Status::Internal("cannot sign the client assertion");
  }
  signature.resize(size);
  std::string raw(signature.begin(), signature.end());
  if (algorithm == "ES256") {
    const unsigned char* der = signature.data();
    std::unique_ptr<ECDSA_SIG, decltype(c.ECDSA_SIG_free)> sig(
        c.d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(size)), c.ECDSA_SIG_free);
    if (!sig) return Status::Internal("cannot read the ECDSA signature");
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    c.ECDSA_SIG_get0(sig.get(), &r, &s);
    unsigned char rs[64];
    if (c.BN_bn2binpad(r, rs, 32) != 32 || c.BN_bn2binpad(s, rs + 32, 32) != 32) {
      return Status::InvalidArgument("the EC key is not a P-256 key, as ES256 needs");
    }
    raw.assign(reinterpret_cast<const char*>(rs), 64);
  }
  return input + "." + keel::detail::base64url_encode(raw);
}

}  // namespace keel::mcp
