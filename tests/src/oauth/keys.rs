//! Signing keys made by the tests, one per algorithm, with the public JWK
//! the issuer publishes.

use std::sync::LazyLock;

use ed25519_dalek::pkcs8::{EncodePrivateKey as _, KeypairBytes};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs1::{EncodeRsaPrivateKey as _, EncodeRsaPublicKey as _};

/// A signing key and the public JWK its issuer publishes.
pub struct TestKey {
    /// Its key id.
    pub kid: String,
    /// Its algorithm.
    pub alg: Algorithm,
    /// The private key tokens are signed with.
    pub encoding: EncodingKey,
    /// The public key, as the JWKS lists it.
    pub jwk: Jwk,
}

impl TestKey {
    fn new(kid: &str, alg: Algorithm, encoding: EncodingKey) -> Self {
        let mut jwk = Jwk::from_encoding_key(&encoding, alg).expect("public JWK");
        jwk.common.key_id = Some(kid.to_owned());
        TestKey {
            kid: kid.to_owned(),
            alg,
            encoding,
            jwk,
        }
    }

    /// An RS256 key (the binary's one RSA key) named `kid`.
    pub fn rs256(kid: &str) -> Self {
        Self::new(kid, Algorithm::RS256, EncodingKey::from_rsa_der(&RSA.0))
    }

    /// A fresh ES256 (P-256) key named `kid`.
    pub fn es256(kid: &str) -> Self {
        let secret = p256::ecdsa::SigningKey::from_slice(&random_32()).expect("a P-256 scalar");
        let der = p256::pkcs8::EncodePrivateKey::to_pkcs8_der(&secret).expect("PKCS#8");
        Self::new(
            kid,
            Algorithm::ES256,
            EncodingKey::from_ec_der(der.as_bytes()),
        )
    }

    /// A fresh EdDSA (Ed25519) key named `kid`.
    pub fn ed25519(kid: &str) -> Self {
        // PKCS#8 v1 (no public key): the 48-byte form jsonwebtoken reads.
        let pair = KeypairBytes {
            secret_key: random_32(),
            public_key: None,
        };
        let der = pair.to_pkcs8_der().expect("PKCS#8");
        Self::new(
            kid,
            Algorithm::EdDSA,
            EncodingKey::from_ed_der(der.as_bytes()),
        )
    }

    /// A header with this key's `alg` and `kid`.
    pub fn header(&self) -> Header {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        header
    }

    /// `claims` signed with this key, as a compact JWS.
    pub fn sign(&self, claims: &serde_json::Value) -> String {
        jsonwebtoken::encode(&self.header(), claims, &self.encoding).expect("signed")
    }
}

/// The RSA public key in PKCS#1 DER: what an attacker has, used as an HMAC
/// secret by the HS256 confusion case.
pub fn rsa_public_der() -> Vec<u8> {
    RSA.1.clone()
}

/// One 2048-bit RSA key per test binary: generating it unoptimized takes
/// seconds, the EC and Ed25519 keys take microseconds.
static RSA: LazyLock<(Vec<u8>, Vec<u8>)> = LazyLock::new(|| {
    let key = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).expect("an RSA key");
    let private = key.to_pkcs1_der().expect("PKCS#1").as_bytes().to_vec();
    let public = key
        .to_public_key()
        .to_pkcs1_der()
        .expect("PKCS#1")
        .as_bytes()
        .to_vec();
    (private, public)
});

fn random_32() -> [u8; 32] {
    let mut bytes = [0; 32];
    getrandom::fill(&mut bytes).expect("OS randomness");
    bytes
}
