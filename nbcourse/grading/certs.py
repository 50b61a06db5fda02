"""The instructor's certificates for grading on a Dask cluster, and the ``Security`` made
from them.

A Dask scheduler started without TLS accepts any machine that reaches its port as a
worker or a client, and a worker is sent every hidden input and every notebook of the
batch.  ``make_certificates`` writes a certificate authority of the instructor's own and,
signed by it, one certificate and key for the scheduler, the workers and the grader (the
Dask client).  Started with them (see the README), the scheduler and the workers accept
a connection only from a peer holding a certificate of that authority, in both
directions (distributed's ``Security``: mutual TLS, ``require_encryption``).

The authority's private key is never written: nothing can be signed later, so the
certificates handed out are all there will ever be.  More certificates mean a new folder
and a restart of the scheduler and workers with it.
"""
from __future__ import annotations

import datetime
import os
from pathlib import Path

ROLES = ("scheduler", "worker", "client")
CA_FILE = "ca.pem"


def cert_file(role: str) -> str:
    return f"{role}.pem"


def key_file(role: str) -> str:
    return f"{role}-key.pem"


def certificate_files() -> list[str]:
    """Every file ``make_certificates`` writes, in the order it writes them."""
    return [CA_FILE] + [name for role in ROLES for name in (cert_file(role), key_file(role))]


def make_certificates(folder: str | Path, days: int = 365) -> list[Path]:
    """Write the CA and the scheduler's, workers' and client's certificates into ``folder``.

    The folder is made with mode 700 (or must hold none of the files already); each key is
    written with mode 600.  Returns the files written."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    if not isinstance(days, int) or isinstance(days, bool) or days < 1:
        raise ValueError(f"days must be a whole number of at least 1, got {days!r}")
    folder = Path(folder)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    present = [name for name in certificate_files() if (folder / name).exists()]
    if present:
        raise FileExistsError(f"{folder} already holds {', '.join(present)}: choose an empty "
                              "folder (the old certificates stay valid until they expire)")
    now = datetime.datetime.now(datetime.timezone.utc)
    valid = (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=days))
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = _certificate(ca_key, "CA", ca_key, valid)
    written = [_write(folder / CA_FILE, ca_cert.public_bytes(serialization.Encoding.PEM), 0o644)]
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _certificate(key, role, ca_key, valid)
        written.append(_write(folder / cert_file(role),
                              cert.public_bytes(serialization.Encoding.PEM), 0o644))
        written.append(_write(folder / key_file(role), key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()), 0o600))
    return written


def _name(role: str):
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "nbcourse grading"),
                      x509.NameAttribute(NameOID.COMMON_NAME, f"nbcourse grading {role}")])


def _certificate(key, role: str, ca_key, valid: tuple):
    """The CA's own certificate (``key is ca_key``), or ``role``'s signed by the CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import ExtendedKeyUsageOID

    is_ca = key is ca_key
    usage = dict(digital_signature=not is_ca, content_commitment=False, key_encipherment=False,
                 data_encipherment=False, key_agreement=not is_ca, key_cert_sign=is_ca,
                 crl_sign=is_ca, encipher_only=False, decipher_only=False)
    builder = (
        x509.CertificateBuilder().subject_name(_name(role)).issuer_name(_name("CA"))
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(valid[0]).not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=is_ca, path_length=0 if is_ca else None),
                       critical=True)
        .add_extension(x509.KeyUsage(**usage), critical=True))
    if is_ca:
        builder = builder.add_extension(
            x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    else:
        builder = (
            # every Dask role both listens and connects (a worker to the scheduler and to
            # other workers), so each certificate serves as a server's and as a client's
            builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                         ExtendedKeyUsageOID.CLIENT_AUTH]),
                                  critical=False)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(f"nbcourse-{role}")]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False))
    return builder.sign(ca_key, hashes.SHA256())


def _write(path: Path, data: bytes, mode: int) -> Path:
    """A new file (never an existing one or a link) with ``mode`` from its creation."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     mode)
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.chmod(path, mode)  # whatever the umask took away from the certificates' 644
    return path


def client_security(folder: str | Path):
    """distributed's ``Security`` for the grader: the CA and the client's certificate and
    key from ``folder`` (made by ``make_certificates``), TLS required."""
    from distributed import Security

    folder = Path(folder)
    files = [CA_FILE, cert_file("client"), key_file("client")]
    missing = [name for name in files if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"--tls {folder}: no {', '.join(missing)} there; make the "
                                f"certificates with 'nbcourse certs {folder}'")
    ca, cert, key = (str(folder / name) for name in files)
    return Security(require_encryption=True, tls_ca_file=ca, tls_client_cert=cert,
                    tls_client_key=key)
