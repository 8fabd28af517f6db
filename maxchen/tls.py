"""HTTPS for phones on the LAN: browsers give motion sensors to secure pages only.

A self-signed certificate (made with `cryptography`) names localhost and the
machine's LAN addresses; it is kept in the instance folder and made anew when
the addresses change or it nears its end.
"""

import datetime
import ipaddress
from pathlib import Path

import ifaddr
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from . import paths

VALID_DAYS = 365
RENEW_DAYS = 30
LOCAL_NAMES = ("localhost",)
LOCAL_IPS = ("127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, in a stable order."""
    found = set()
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if ip.is_IPv4:
                address = ipaddress.ip_address(ip.ip)
                if not (address.is_loopback or address.is_link_local or address.is_unspecified):
                    found.add(str(address))
    return sorted(found, key=ipaddress.ip_address)


def certificate_names(cert_path) -> set[str]:
    """The DNS names and IP addresses a certificate file covers."""
    cert = x509.load_pem_x509_certificate(Path(cert_path).read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return {str(n) for n in names.get_values_for_type(x509.IPAddress)} | set(names.get_values_for_type(x509.DNSName))


def _still_good(cert_path: Path, addresses) -> bool:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except (OSError, ValueError):
        return False
    left = cert.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
    return left > datetime.timedelta(days=RENEW_DAYS) and set(addresses) <= certificate_names(cert_path)


def ensure_certificate(folder, addresses) -> tuple[Path, Path]:
    """(cert, key) in `folder` covering localhost and `addresses`; made or renewed as needed."""
    folder = paths.private_folder(Path(folder))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    if key_path.exists() and _still_good(cert_path, addresses):
        return cert_path, paths.private_file(key_path)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "maxchen party server")])
    ips = [ipaddress.ip_address(a) for a in (*LOCAL_IPS, *addresses)]
    alt = x509.SubjectAlternativeName([x509.DNSName(n) for n in LOCAL_NAMES] + [x509.IPAddress(ip) for ip in ips])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(alt, critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    paths.write_private(key_path, key_bytes)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path
