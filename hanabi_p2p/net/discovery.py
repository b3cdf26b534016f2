"""Finding tables on the LAN with mDNS/DNS-SD (python-zeroconf, asyncio API).

A hosted table is advertised as an instance of ``_hanabi-p2p._tcp.local.`` named
``hanabi-<table id hex>`` (unique per table, so two tables never collide) with TXT keys:

    v      network protocol version (decimal)
    id     table id, 32 hex digits
    name   table name shown to players (<= MAX_TABLE_NAME_CHARS, printable)
    var    variant name, e.g. "standard"
    opt    options, comma-separated, e.g. "empty_clues,choreography" (may be empty)
    seats  "taken/total", e.g. "2/4"
    fp     the host's fingerprint, for players to compare aloud

Discovery is advisory: the handshake checks the table id and keys, so a lying advert can at
worst waste a connection attempt. Parsing is defensive in python-zeroconf's manner: a record
with any malformed field is ignored, never fatal, and nothing from a TXT record reaches the
terminal unless it is short and printable.

Every Zeroconf instance here is pinned to ONE IPv4 interface address given by the caller
(``interfaces=[ip]``), never all interfaces: tests run it on 127.0.0.1 or inside network
namespaces, and a user picks the LAN they play on.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass

from zeroconf import IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from hanabi_p2p.errors import LocalProtocolError, UserError
from hanabi_p2p.limits import MAX_TABLE_NAME_CHARS, TABLE_ID_BYTES
from hanabi_p2p.net.handshake import PROTOCOL_VERSION

SERVICE_TYPE = "_hanabi-p2p._tcp.local."
INSTANCE_PREFIX = "hanabi-"
MAX_TOKEN_CHARS = 32  # variant names, option names
MAX_OPTIONS = 8
MAX_FINGERPRINT_CHARS = 32
MAX_SEATS = 5
MAX_VERSION_DIGITS = 5
# A browse keeps at most this many tables: a flood of adverts cannot grow memory without bound.
MAX_TABLES = 64
RESOLVE_TIMEOUT_S = 1.5
# Used only to ask the kernel which local address routes outward; UDP connect() sends nothing.
_ROUTE_PROBE = ("192.0.2.1", 9)  # TEST-NET-1 (RFC 5737): never a real host


@dataclass(frozen=True, slots=True)
class TableAd:
    """What a host tells the LAN about its table."""

    table_id: bytes
    name: str
    variant: str
    options: tuple[str, ...]
    seats_taken: int
    seats_total: int
    host_fingerprint: str
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        problem = _ad_problem(self)
        if problem is not None:
            raise LocalProtocolError(f"cannot advertise this table: {problem}")


@dataclass(frozen=True, slots=True)
class FoundTable:
    """A table seen on the LAN: its advert and where its host listens."""

    ad: TableAd
    address: str
    port: int

    @property
    def compatible(self) -> bool:
        """False if the host speaks another protocol version (we could not join)."""
        return self.ad.version == PROTOCOL_VERSION


# -- TXT encoding and defensive parsing -------------------------------------------------------


def _is_token(text: str) -> bool:
    return 0 < len(text) <= MAX_TOKEN_CHARS and all(c.isalnum() or c in "-_" for c in text)


def _ad_problem(ad: TableAd) -> str | None:
    """Why `ad` cannot be advertised or accepted, or None if it is fine."""
    if not isinstance(ad.table_id, bytes) or len(ad.table_id) != TABLE_ID_BYTES:
        return f"table id must be {TABLE_ID_BYTES} bytes"
    if not (0 < len(ad.name) <= MAX_TABLE_NAME_CHARS and ad.name.isprintable()):
        return f"table name must be 1..{MAX_TABLE_NAME_CHARS} printable characters"
    if not _is_token(ad.variant):
        return "variant must be a short name of letters, digits, '-' or '_'"
    if len(ad.options) > MAX_OPTIONS or not all(_is_token(o) for o in ad.options):
        return "options must be short names"
    if not (2 <= ad.seats_total <= MAX_SEATS and 0 <= ad.seats_taken <= ad.seats_total):
        return "seats must be taken/total with 0 <= taken <= total and 2 <= total <= 5"
    fp = ad.host_fingerprint
    if not (0 < len(fp) <= MAX_FINGERPRINT_CHARS and fp.isprintable()):
        return "host fingerprint must be short and printable"
    if not 0 <= ad.version < 10**MAX_VERSION_DIGITS:
        return "version out of range"
    return None


def txt_properties(ad: TableAd) -> dict[str, str]:
    """The TXT record of an advert."""
    return {
        "v": str(ad.version),
        "id": ad.table_id.hex(),
        "name": ad.name,
        "var": ad.variant,
        "opt": ",".join(ad.options),
        "seats": f"{ad.seats_taken}/{ad.seats_total}",
        "fp": ad.host_fingerprint,
    }


def _text(props: Mapping[bytes, bytes | None], key: bytes, most_chars: int) -> str | None:
    raw = props.get(key)
    if not isinstance(raw, bytes) or len(raw) > 4 * most_chars:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if len(text) <= most_chars else None


def _small_int(text: str | None) -> int | None:
    # isdecimal() also accepts non-ASCII digits; only plain 0-9 is a valid number here.
    if text is None or not text or len(text) > MAX_VERSION_DIGITS:
        return None
    if not all("0" <= c <= "9" for c in text):
        return None
    return int(text)


def parse_txt(props: Mapping[bytes, bytes | None]) -> TableAd | None:
    """The advert in a TXT record, or None if anything in it is missing or malformed."""
    try:
        version = _small_int(_text(props, b"v", MAX_VERSION_DIGITS))
        table_hex = _text(props, b"id", 2 * TABLE_ID_BYTES)
        name = _text(props, b"name", MAX_TABLE_NAME_CHARS)
        variant = _text(props, b"var", MAX_TOKEN_CHARS)
        options_text = _text(props, b"opt", MAX_OPTIONS * (MAX_TOKEN_CHARS + 1))
        seats = _text(props, b"seats", 2 * MAX_VERSION_DIGITS + 1)
        fingerprint = _text(props, b"fp", MAX_FINGERPRINT_CHARS)
        if None in (version, table_hex, name, variant, options_text, seats, fingerprint):
            return None
        assert table_hex is not None and seats is not None and options_text is not None
        if len(table_hex) != 2 * TABLE_ID_BYTES or not all(
            c in "0123456789abcdef" for c in table_hex
        ):
            return None
        taken_text, slash, total_text = seats.partition("/")
        taken, total = _small_int(taken_text), _small_int(total_text)
        if not slash or taken is None or total is None:
            return None
        options = tuple(options_text.split(",")) if options_text else ()
        return TableAd(
            table_id=bytes.fromhex(table_hex),
            name=str(name),
            variant=str(variant),
            options=options,
            seats_taken=taken,
            seats_total=total,
            host_fingerprint=str(fingerprint),
            version=int(version or 0),
        )
    except LocalProtocolError:  # TableAd's own checks: junk from the network, ignore it
        return None


# -- interfaces -------------------------------------------------------------------------------


def check_interface(address: str) -> str:
    """A usable IPv4 interface address as text, or a UserError saying why not."""
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        raise UserError(f"--interface must be an IPv4 address, not {address!r}") from None
    if ip.is_unspecified or ip.is_multicast or ip == ipaddress.IPv4Address("255.255.255.255"):
        raise UserError(f"--interface must be one address of this machine, not {address}")
    return str(ip)


def default_interface_address() -> str:
    """The IPv4 address of the interface holding the default route.

    Asks the kernel which source address it would use to reach a documentation-only address:
    connect() on a UDP socket picks a route and sends no packet.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(_ROUTE_PROBE)
        except OSError as exc:
            raise UserError(
                "no default route to pick a network from; pass --interface ADDRESS"
            ) from exc
        address: str = probe.getsockname()[0]
    return address


def _zeroconf_on(interface: str) -> AsyncZeroconf:
    try:
        return AsyncZeroconf(interfaces=[check_interface(interface)], ip_version=IPVersion.V4Only)
    except OSError as exc:
        raise UserError(f"cannot use {interface} for mDNS: {exc.strerror or exc}") from exc


def _instance_name(table_id: bytes) -> str:
    return f"{INSTANCE_PREFIX}{table_id.hex()}.{SERVICE_TYPE}"


# -- advertising ------------------------------------------------------------------------------


class TableAdvertiser:
    """Advertises one table on one interface; `update()` when seats change; `close()`."""

    def __init__(self, interface: str, port: int, ad: TableAd) -> None:
        self._interface = check_interface(interface)
        self._port = port
        self._ad = ad
        self._zc: AsyncZeroconf | None = None

    @property
    def ad(self) -> TableAd:
        return self._ad

    def _info(self) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            SERVICE_TYPE,
            _instance_name(self._ad.table_id),
            port=self._port,
            addresses=[socket.inet_aton(self._interface)],
            properties=dict(txt_properties(self._ad)),
            server=f"{INSTANCE_PREFIX}{self._ad.table_id.hex()[:12]}.local.",
        )

    async def start(self) -> None:
        """Register the service (probes the name first, which takes about a second)."""
        self._zc = _zeroconf_on(self._interface)
        announced = await self._zc.async_register_service(self._info())
        await announced

    async def update(self, ad: TableAd) -> None:
        """Announce a changed advert (seats taken, options) for the same table."""
        if ad.table_id != self._ad.table_id:
            raise LocalProtocolError("an advertiser serves one table; start another for a new one")
        self._ad = ad
        if self._zc is not None:
            announced = await self._zc.async_update_service(self._info())
            await announced

    async def close(self) -> None:
        """Say goodbye on the LAN (so browsers drop the table) and stop."""
        if self._zc is None:
            return
        zc, self._zc = self._zc, None
        with contextlib.suppress(Exception):  # best effort: we are leaving either way
            await zc.async_unregister_all_services()
        await zc.async_close()


# -- browsing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrowseResult:
    """What a browse saw: valid tables, and how many adverts were ignored as malformed."""

    tables: list[FoundTable]
    ignored: int


class _Malformed:
    """An advert that answered but made no sense (bad TXT, no address, name/id mismatch)."""


_MALFORMED = _Malformed()


async def _resolve(zc: Zeroconf, name: str) -> FoundTable | _Malformed | None:
    """The table behind `name`; None if it did not answer in time."""
    info = AsyncServiceInfo(SERVICE_TYPE, name)
    if not await info.async_request(zc, RESOLVE_TIMEOUT_S * 1000):
        return None
    ad = parse_txt(info.properties)
    addresses = info.parsed_addresses(IPVersion.V4Only)
    if ad is None or not addresses or not info.port:
        return _MALFORMED
    if name != _instance_name(ad.table_id):  # the name must match the id it carries
        return _MALFORMED
    return FoundTable(ad=ad, address=addresses[0], port=info.port)


async def browse_tables(interface: str, timeout: float) -> BrowseResult:
    """Tables advertised on the LAN of `interface`, watched for `timeout` seconds."""
    if not 0 < timeout <= 60:
        raise UserError("the browse timeout must be between 0 and 60 seconds")
    aiozc = _zeroconf_on(interface)
    found: dict[str, FoundTable] = {}
    malformed: set[str] = set()
    resolving: set[asyncio.Task[None]] = set()
    loop = asyncio.get_running_loop()

    async def resolve(name: str) -> None:
        table = await _resolve(aiozc.zeroconf, name)
        if isinstance(table, _Malformed):
            malformed.add(name)
        elif table is not None and (name in found or len(found) < MAX_TABLES):
            malformed.discard(name)
            found[name] = table

    def schedule(name: str) -> None:
        if len(resolving) + len(found) + len(malformed) >= 2 * MAX_TABLES:
            return
        task = loop.create_task(resolve(name))
        resolving.add(task)
        task.add_done_callback(resolving.discard)

    def on_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            found.pop(name, None)
        elif name.endswith("." + SERVICE_TYPE):
            loop.call_soon_threadsafe(schedule, name)

    browser = AsyncServiceBrowser(aiozc.zeroconf, SERVICE_TYPE, handlers=[on_change])
    try:
        await asyncio.sleep(timeout)
    finally:
        for task in list(resolving):
            task.cancel()
        await asyncio.gather(*resolving, return_exceptions=True)
        await browser.async_cancel()
        await aiozc.async_close()
    tables = sorted(found.values(), key=lambda t: (t.ad.name, t.ad.table_id))
    return BrowseResult(tables, ignored=len(malformed))
