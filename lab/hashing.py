"""How EOS stores secrets typed in clear: ``secret 0 x`` becomes ``secret sha512 $6$...``.

Examples:
    >>> hashed = sha512_crypt("admin", salt="abcdefgh")
    >>> hashed.startswith("$6$abcdefgh$") and len(hashed) == 98
    True
    >>> type7_encode("cisco", seed=2)
    '02050D480809'
    >>> type7_decode("02050D480809")
    'cisco'
"""

from __future__ import annotations

import hashlib
import secrets

_ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# The byte order sha512-crypt uses when it base64-encodes the final digest.
_SHA512_ORDER = (
    (0, 21, 42),
    (22, 43, 1),
    (44, 2, 23),
    (3, 24, 45),
    (25, 46, 4),
    (47, 5, 26),
    (6, 27, 48),
    (28, 49, 7),
    (50, 8, 29),
    (9, 30, 51),
    (31, 52, 10),
    (53, 11, 32),
    (12, 33, 54),
    (34, 55, 13),
    (56, 14, 35),
    (15, 36, 57),
    (37, 58, 16),
    (59, 17, 38),
    (18, 39, 60),
    (40, 61, 19),
    (62, 20, 41),
)


def _b64_from_24bit(b2: int, b1: int, b0: int, n: int) -> str:
    w = (b2 << 16) | (b1 << 8) | b0
    out = []
    for _ in range(n):
        out.append(_ITOA64[w & 0x3F])
        w >>= 6
    return "".join(out)


def sha512_crypt(password: str, salt: str | None = None, rounds: int = 5000) -> str:
    """The glibc ``$6$`` (SHA-512 crypt) hash EOS prints after ``secret sha512``."""
    if salt is None:
        salt = "".join(secrets.choice(_ITOA64) for _ in range(16))
    pw, sl = password.encode(), salt[:16].encode()
    b = hashlib.sha512(pw + sl + pw).digest()
    a = hashlib.sha512(pw + sl)
    length = len(pw)
    while length > 64:
        a.update(b)
        length -= 64
    a.update(b[:length])
    i = len(pw)
    while i:
        a.update(b if i & 1 else pw)
        i >>= 1
    da = a.digest()
    dp_h = hashlib.sha512(pw * len(pw)).digest()
    p = (dp_h * (len(pw) // 64 + 1))[: len(pw)]
    ds_h = hashlib.sha512(sl * (16 + da[0])).digest()
    s = (ds_h * (len(sl) // 64 + 1))[: len(sl)]
    c = da
    for r in range(rounds):
        h = hashlib.sha512()
        h.update(p if r & 1 else c)
        if r % 3:
            h.update(s)
        if r % 7:
            h.update(p)
        h.update(c if r & 1 else p)
        c = h.digest()
    enc = "".join(_b64_from_24bit(c[x], c[y], c[z], 4) for x, y, z in _SHA512_ORDER)
    enc += _b64_from_24bit(0, 0, c[63], 2)
    return f"$6${salt[:16]}${enc}"


_XLAT = "dsfd;kfoA,.iyewrkldJKDHSUBsgvca69834ncxv9873254k;fg87"


def type7_encode(clear: str, seed: int | None = None) -> str:
    """The reversible 'type 7' form EOS shows for ``key 0`` / ``password 0`` lines."""
    if seed is None:
        seed = secrets.randbelow(16)
    out = f"{seed:02d}"
    for i, ch in enumerate(clear):
        out += f"{ord(ch) ^ ord(_XLAT[(seed + i) % len(_XLAT)]):02X}"
    return out


def type7_decode(encoded: str) -> str:
    """Inverse of :func:`type7_encode`."""
    seed = int(encoded[:2])
    data = encoded[2:]
    return "".join(
        chr(int(data[i : i + 2], 16) ^ ord(_XLAT[(seed + i // 2) % len(_XLAT)])) for i in range(0, len(data), 2)
    )
