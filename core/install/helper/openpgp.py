"""OpenPGP public keys for the privileged helper: dearmor, parse, fingerprint (pure Python).

The helper writes an apt keyring only when the key's own fingerprint is one it trusts. This module
computes that fingerprint without any program and without touching a keyring: it removes the ASCII
armour (checking the CRC-24), walks the packets (RFC 4880 section 4.2), insists on exactly one
primary key (a v4 public-key packet, tag 6) followed only by user ids, user attributes,
signatures, subkeys and trust packets, and hashes the primary key packet as RFC 4880 section 12.2
says (SHA-1 over 0x99, a two-octet length and the packet body). A second primary key in the same
file would be trusted by apt too, so it is refused, as is anything that does not parse.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass

__all__ = ["MAX_KEY_BYTES", "KeyFormatError", "ParsedKey", "dearmor", "parse_key"]

MAX_KEY_BYTES = 96 * 1024
ARMOR_BEGIN = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
ARMOR_END = "-----END PGP PUBLIC KEY BLOCK-----"
TAG_PUBLIC_KEY = 6
# signature, secret-less key material only: public key, user id, public subkey, user attribute,
# trust (gpg writes these in exports).
ALLOWED_TAGS = frozenset({2, 6, 12, 13, 14, 17})
MAX_PACKETS = 4096


class KeyFormatError(ValueError):
    """The bytes are not one OpenPGP v4 public key (the message says why)."""


@dataclass(frozen=True)
class ParsedKey:
    """One public key: its binary (dearmored) form and the primary key's fingerprint."""

    binary: bytes
    fingerprint: str
    packets: int


def _crc24(data: bytes) -> int:
    """The CRC-24 of RFC 4880 section 6.1."""
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def dearmor(text: str) -> bytes:
    """The binary key inside one ASCII-armoured public key block; anything else is refused."""
    lines = [line.rstrip("\r ") for line in text.strip().split("\n")]
    if not lines or lines[0] != ARMOR_BEGIN:
        raise KeyFormatError("the key does not start with " + ARMOR_BEGIN)
    if lines[-1] != ARMOR_END:
        raise KeyFormatError("the key does not end with " + ARMOR_END)
    body = lines[1:-1]
    try:
        blank = body.index("")
    except ValueError:
        blank = -1
    if blank >= 0:
        headers, body = body[:blank], body[blank + 1:]
        for header in headers:
            if ": " not in header:
                raise KeyFormatError(f"malformed armour header {header[:40]!r}")
    checksum: str | None = None
    if body and body[-1].startswith("="):
        checksum, body = body[-1][1:], body[:-1]
    if not body or any(not line for line in body):
        raise KeyFormatError("the armoured key has no data, or a blank line inside its data")
    try:
        binary = base64.b64decode("".join(body), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise KeyFormatError(f"the armoured key is not valid base64: {exc}") from exc
    if checksum is not None:
        try:
            expected = int.from_bytes(base64.b64decode(checksum, validate=True), "big")
        except (binascii.Error, ValueError) as exc:
            raise KeyFormatError("the armour checksum is not valid base64") from exc
        if expected != _crc24(binary):
            raise KeyFormatError("the armour checksum (CRC-24) does not match: the key is damaged")
    return binary


def _packet_header(data: bytes, pos: int) -> tuple[int, int, int]:
    """(tag, header length, body length) of the packet at ``pos``."""
    first = data[pos]
    if not first & 0x80:
        raise KeyFormatError(f"byte {pos} is not an OpenPGP packet header")
    rest = len(data) - pos - 1
    if first & 0x40:  # new format
        tag = first & 0x3F
        if rest < 1:
            raise KeyFormatError("truncated packet header")
        octet = data[pos + 1]
        if octet < 192:
            return tag, 2, octet
        if octet < 224:
            if rest < 2:
                raise KeyFormatError("truncated packet header")
            return tag, 3, ((octet - 192) << 8) + data[pos + 2] + 192
        if octet == 255:
            if rest < 5:
                raise KeyFormatError("truncated packet header")
            return tag, 6, int.from_bytes(data[pos + 2:pos + 6], "big")
        raise KeyFormatError("partial body lengths are not allowed in a key")
    tag = (first >> 2) & 0x0F
    length_type = first & 0x03
    if length_type == 3:
        raise KeyFormatError("indeterminate packet lengths are not allowed in a key")
    size = 1 << length_type
    if rest < size:
        raise KeyFormatError("truncated packet header")
    return tag, 1 + size, int.from_bytes(data[pos + 1:pos + 1 + size], "big")


def _packets(data: bytes) -> list[tuple[int, bytes]]:
    """Every (tag, body) in ``data``; the packets must cover it exactly."""
    packets: list[tuple[int, bytes]] = []
    pos = 0
    while pos < len(data):
        if len(packets) >= MAX_PACKETS:
            raise KeyFormatError("too many packets in the key")
        tag, header, length = _packet_header(data, pos)
        start = pos + header
        end = start + length
        if end > len(data):
            raise KeyFormatError(f"packet at byte {pos} runs past the end of the key")
        packets.append((tag, data[start:end]))
        pos = end
    return packets


def _fingerprint(body: bytes) -> str:
    """The v4 fingerprint of a public-key packet body (RFC 4880 section 12.2)."""
    if not body:
        raise KeyFormatError("empty public-key packet")
    if body[0] != 4:
        raise KeyFormatError(f"only version 4 keys are accepted (this is version {body[0]})")
    if len(body) < 8 or len(body) > 0xFFFF:
        raise KeyFormatError("public-key packet has an impossible length")
    digest = hashlib.sha1(b"\x99" + len(body).to_bytes(2, "big") + body).hexdigest()
    return digest.upper()


def parse_key(data: bytes) -> ParsedKey:
    """Parse a binary or armoured public key: exactly one primary v4 key, else
    :class:`KeyFormatError`."""
    if not data:
        raise KeyFormatError("the key is empty")
    if len(data) > MAX_KEY_BYTES * 2:
        raise KeyFormatError(f"the key is larger than {MAX_KEY_BYTES * 2} bytes")
    if data.lstrip()[:5] == b"-----":
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError as exc:
            raise KeyFormatError("the armoured key is not ASCII") from exc
        data = dearmor(text)
    if len(data) > MAX_KEY_BYTES:
        raise KeyFormatError(f"the key is larger than {MAX_KEY_BYTES} bytes")
    packets = _packets(data)
    if not packets or packets[0][0] != TAG_PUBLIC_KEY:
        raise KeyFormatError("the data does not start with a public key (a secret key is refused)")
    primaries = [body for tag, body in packets if tag == TAG_PUBLIC_KEY]
    if len(primaries) != 1:
        raise KeyFormatError(
            f"the file holds {len(primaries)} primary keys; exactly one is accepted"
        )
    strange = sorted({tag for tag, _ in packets if tag not in ALLOWED_TAGS})
    if strange:
        raise KeyFormatError(f"unexpected OpenPGP packet type(s) {strange} in a public key")
    return ParsedKey(binary=data, fingerprint=_fingerprint(primaries[0]), packets=len(packets))
