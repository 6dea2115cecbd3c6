"""The lab's TLS: a self-signed certificate made at start, as a switch makes one at first boot.

EOS serves eAPI over HTTPS by default with a self-signed certificate, and pyeapi (under NAPALM's
``transport: https``) connects without verifying it unless told to (``enforce_verification`` or
an ``ssl.SSLContext`` in ``context``). The lab does the same: one ECDSA P-256 key per lab, kept
in memory, and a certificate for ``127.0.0.1`` and ``localhost`` a verifying client can trust.

Example:
    >>> context, pem = server_context()
    >>> pem.startswith(b"-----BEGIN CERTIFICATE-----")
    True
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

__all__ = ["server_context"]

COMMON_NAME = "fabricops-lab"
VALID_DAYS = 365


def server_context() -> tuple[ssl.SSLContext, bytes]:
    """A server-side TLS context with a fresh self-signed certificate, and that certificate (PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM)
    secret = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.num_tickets = 0  # pyeapi opens a connection per request and never resumes a session
    # ssl loads a chain from files only: a private directory that lives for this call.
    with tempfile.TemporaryDirectory(prefix="fabricops-lab-tls-") as tmp:
        cert_file, key_file = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        with open(cert_file, "wb") as handle:
            handle.write(pem)
        with open(os.open(key_file, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as handle:
            handle.write(secret)
        context.load_cert_chain(cert_file, key_file)
    return context, pem
