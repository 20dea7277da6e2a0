"""Key pairs: fingerprints of imported keys, keys generated for the
user (API before 2.92), as upstream Nova computes them.

* an SSH public key (``ssh-rsa AAAA... comment``) must load as one; its
  fingerprint is the MD5 of its blob, in colon-separated hex;
* an X.509 certificate (PEM, type ``x509`` from 2.2): the SHA-1 of its
  DER, likewise;
* a generated key is RSA 2048: the private key in the traditional
  OpenSSL PEM form (returned once, never stored), the public key in
  OpenSSH form with the comment ``Generated-by-Nova``.
"""

import base64
import binascii
import hashlib
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from lite_common.context import RequestContext
from nova_lite import exception
from nova_lite.db import keypairs as db

SSH, X509 = 'ssh', 'x509'


def _colons(hex_digest: str) -> str:
    return ':'.join(
        hex_digest[i : i + 2] for i in range(0, len(hex_digest), 2)
    )


def fingerprint(public_key: str, key_type: str) -> str:
    """:raises InvalidKeypair: not a key (or certificate) of that type."""
    if key_type == X509:
        try:
            cert = x509.load_pem_x509_certificate(public_key.encode())
        except Exception as exc:  # anything the parser refuses
            raise exception.InvalidKeypair(
                reason=f'failed to generate X509 fingerprint. Error '
                f'message: {exc}'
            ) from None
        return _colons(
            binascii.hexlify(cert.fingerprint(hashes.SHA1())).decode('ascii')
        )
    try:
        serialization.load_ssh_public_key(public_key.encode())
        blob = base64.b64decode(public_key.split(' ')[1])
    except Exception:  # any refusal (an unknown key type included)
        raise exception.InvalidKeypair(
            reason='failed to generate fingerprint'
        ) from None
    return _colons(hashlib.md5(blob, usedforsecurity=False).hexdigest())


def generate() -> tuple[str, str]:
    """(private key PEM, public key OpenSSH) of a new RSA 2048 key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(
            serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
        )
        .decode()
    )
    return private, f'{public} Generated-by-Nova'


def create(
    ctx: RequestContext,
    project_id: str,
    user_id: str,
    name: str,
    key_type: str,
    public_key: str | None,
) -> dict[str, Any]:
    """Import ``public_key`` or, without one, generate a key pair (the
    row gets ``private_key``, which is not stored).

    :raises InvalidKeypair, KeyPairExists, KeypairLimitExceeded:
    """
    private = None
    if public_key is None:
        private, public_key = generate()
    row = db.create(
        ctx,
        project_id,
        {
            'name': name,
            'user_id': user_id,
            'type': key_type,
            'public_key': public_key,
            'fingerprint': fingerprint(public_key, key_type),
        },
    )
    if private is not None:
        row['private_key'] = private
    return row
