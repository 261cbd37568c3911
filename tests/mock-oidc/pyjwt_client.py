"""A relying party written with PyJWT: verifies tokens against a mock-oidc issuer's JWKS through
PyJWKClient (JWK Set cache on, refetched when a token names an unknown kid) and checks each JWK's
x5c certificate with `cryptography`. Driven by protocol_pyjwt_test.ts: one JSON command per stdin
line, one JSON answer per stdout line.

  {"op": "verify", "token", "algorithms", "issuer", "audience"} -> {"ok", "sub", "kid", "alg"}
      or {"ok": false, "error": class name, "message"}
  {"op": "expire"}  -> the cached JWK Set is dropped, as when its lifespan ends -> {"ok": true}
  {"op": "x5c"}     -> for each JWK: whether x5c's certificate holds the JWK's public key, is
                       self-signed and matches x5t#S256 -> {"ok": true, "keys": {kid: bool}}
"""
import base64
import hashlib
import inspect
import json
import sys
import urllib.request

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from jwt.jwk_set_cache import JWKSetCache

JWKS_URL = sys.argv[1]
LIFESPAN = 300

options = {"cache_jwk_set": True, "lifespan": LIFESPAN}
# Releases that have it wait 30 s between forced refreshes; a rotation test cannot wait.
if "cooldown_duration" in inspect.signature(jwt.PyJWKClient.__init__).parameters:
    options["cooldown_duration"] = 0
client = jwt.PyJWKClient(JWKS_URL, **options)


def public_der(key):
    return key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def check_x5c(jwk):
    der = base64.b64decode(jwk["x5c"][0])
    cert = x509.load_der_x509_certificate(der)
    # the certificate holds the JWK's own public key
    same_key = public_der(cert.public_key()) == public_der(jwt.PyJWK(jwk).key)
    # self-signed: its signature verifies with the key it holds
    cert.verify_directly_issued_by(cert)
    thumb = base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()
    return same_key and thumb == jwk["x5t#S256"]


def handle(command):
    op = command["op"]
    if op == "expire":
        client.jwk_set_cache = JWKSetCache(LIFESPAN)
        return {"ok": True}
    if op == "x5c":
        with urllib.request.urlopen(JWKS_URL) as res:
            keys = json.load(res)["keys"]
        return {"ok": True, "keys": {k["kid"]: check_x5c(k) for k in keys}}
    try:
        key = client.get_signing_key_from_jwt(command["token"])
        claims = jwt.decode(
            command["token"],
            key.key,
            algorithms=command["algorithms"],
            issuer=command["issuer"],
            audience=command["audience"],
            options={"verify_iat": False},
        )
        header = jwt.get_unverified_header(command["token"])
        return {"ok": True, "sub": claims["sub"], "kid": header["kid"], "alg": header["alg"]}
    except Exception as err:  # the test reads which error a refused token got
        return {"ok": False, "error": type(err).__name__, "message": str(err)}


for line in sys.stdin:
    print(json.dumps(handle(json.loads(line))), flush=True)
