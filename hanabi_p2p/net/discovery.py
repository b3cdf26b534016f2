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
    host   the host's player name (optional: older hosts do not send it)
    timer  the table's turn timer in seconds (optional: only at a table that has one)
    clock  the table's total clock per player in seconds (optional, likewise)

Discovery is advisory: anyone on the LAN can advertise anything, including a copy of a real
table's name and fingerprint. So a joiner checks the advertised fingerprint against the key
the host presents when probed (`hanabi_p2p.peer.probe.advert_problem`), and the handshake then
proves that key. Parsing is defensive in python-zeroconf's manner: `parse_txt` either returns
an advert or raises `BadAdvert` (one typed error, whatever the bytes), a browse ignores such
records, and nothing from a TXT record reaches the terminal unless it is short and printable.

Every Zeroconf instance here is pinned to ONE IPv4 interface address given by the caller
(``interfaces=[ip]``), never all interfaces: tests run it on 127.0.0.1 or inside network
namespaces, and a user picks the LAN they play on.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ipaddress
import secrets
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from zeroconf import IPVersion, ServiceStateChange, Zeroconf
from zeroconf._dns import DNSQuestion
from zeroconf._protocol.incoming import DNSIncoming
from zeroconf._protocol.outgoing import DNSOutgoing
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
from zeroconf.const import _CLASS_IN, _FLAGS_QR_QUERY, _MDNS_ADDR, _MDNS_PORT, _TYPE_PTR

from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError, UserError
from hanabi_p2p.limits import (
    MAX_PLAYER_NAME_CHARS,
    MAX_PLAYERS,
    MAX_TABLE_NAME_CHARS,
    MIN_PLAYERS,
    TABLE_ID_BYTES,
)
from hanabi_p2p.net.tasks import owned_tasks
from hanabi_p2p.net.version import PROTOCOL_VERSION
from hanabi_p2p.safe_text import safe_name

SERVICE_TYPE = "_hanabi-p2p._tcp.local."
INSTANCE_PREFIX = "hanabi-"
MAX_TOKEN_CHARS = 32  # variant names, option names
MAX_OPTIONS = 8
MAX_FINGERPRINT_CHARS = 32
MAX_VERSION_DIGITS = 5
# A browse keeps at most this many tables: a flood of adverts cannot grow memory without bound.
MAX_TABLES = 64
RESOLVE_TIMEOUT_S = 1.5
# How long a browse may last at most (`tables --timeout`, `join --browse-seconds`).
MAX_BROWSE_S = 60.0
# Once a browse has an answer that a late advert could still change (the only open table, or
# the only name with a given start), it waits this much longer, from that first answer, before
# settling. Besides the ordinary browse, a browse asks once more as a legacy unicast querier
# (RFC 6762 6.7: from a port other than 5353): every responder answers such a query at once,
# by unicast to that port alone - no random delay, no aggregation, and none of the one-second
# wait a responder keeps between two multicasts of a record (6.), which is what a browse of
# multicast answers had to allow for (1.2 s: a host that multicast its advert in the second
# before, to another browser or announcing a change of seats, waits that long before
# answering again). So every table on the link answers within a round trip of that query,
# sent when the browse starts; 0.3 s covers a round trip on a slow Wi-Fi and a host whose
# event loop is busy for a moment. (The query is sent twice, against a lost datagram; with
# no answer to it at all the browse falls back to MULTICAST_GRACE_S.)
BROWSE_GRACE_S = 0.3
# Without any answer to the legacy unicast query (a firewall that lets mDNS in but not unicast
# to other ports, a responder that ignores such queries), only multicast answers count, and
# one may come a second late: the browse then waits this long after the first answer instead.
MULTICAST_GRACE_S = 1.2
# A browse for one table (`join`, `watch`) that has not found it yet goes on past its
# timeout while tables are still being found: a busy LAN, or a machine too busy to read the
# answers in time (45 programs on 2 cores saw 14-25 of 30 tables in 3 s, issue 33), must not
# make a table that is there look absent. It stops once no new table came for this long ...
STILL_FINDING_S = 1.0
# ... and at the latest this many times its timeout after it began.
MAX_BROWSE_STRETCH = 4.0
# The legacy unicast query goes out when the browse starts and once more this much later.
CENSUS_RESEND_S = 0.1
# A legacy unicast answer is one UDP datagram of at most this many bytes (RFC 6762 17).
CENSUS_MAX_DATAGRAM = 9000
# Datagrams read from the census socket in one browse at most (anyone can send some).
CENSUS_MAX_DATAGRAMS = 4 * 64
# A table id prefix must be this long to name a table (`tables` shows 8 hex digits); a
# shorter word is only matched against table names.
MIN_ID_PREFIX_CHARS = 4
# Used only to ask the kernel which local address routes outward; UDP connect() sends nothing.
_ROUTE_PROBE = ("192.0.2.1", 9)  # TEST-NET-1 (RFC 5737): never a real host
_HEX_DIGITS = frozenset("0123456789abcdef")


class BadAdvert(RemoteProtocolError):
    """An mDNS record under our service type that is not a valid table advert (a broken
    host or a hostile one); it is ignored, never shown."""


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
    host_name: str = ""
    turn_timer: int | None = None  # seconds a turn may last (SPEC 5.6), None: no timer
    total_clock: int | None = None  # seconds a player has for all its turns, None: no clock

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


def _is_short_printable(text: object, most: int, *, allow_empty: bool = False) -> bool:
    return (
        isinstance(text, str)
        and (allow_empty or len(text) > 0)
        and len(text) <= most
        and text.isprintable()
    )


def _ad_problem(ad: TableAd) -> str | None:
    """Why `ad` cannot be advertised or accepted, or None if it is fine."""
    if not isinstance(ad.table_id, bytes) or len(ad.table_id) != TABLE_ID_BYTES:
        return f"table id must be {TABLE_ID_BYTES} bytes"
    if not _is_short_printable(ad.name, MAX_TABLE_NAME_CHARS):
        return f"table name must be 1..{MAX_TABLE_NAME_CHARS} printable characters"
    if not _is_token(ad.variant):
        return "variant must be a short name of letters, digits, '-' or '_'"
    if len(ad.options) > MAX_OPTIONS or not all(_is_token(o) for o in ad.options):
        return "options must be short names"
    if not (
        MIN_PLAYERS <= ad.seats_total <= MAX_PLAYERS and 0 <= ad.seats_taken <= ad.seats_total
    ):
        return (
            f"seats must be taken/total with 0 <= taken <= total and "
            f"{MIN_PLAYERS} <= total <= {MAX_PLAYERS}"
        )
    if not _is_short_printable(ad.host_fingerprint, MAX_FINGERPRINT_CHARS):
        return "host fingerprint must be short and printable"
    if not _is_short_printable(ad.host_name, MAX_PLAYER_NAME_CHARS, allow_empty=True):
        return f"host name must be at most {MAX_PLAYER_NAME_CHARS} printable characters"
    if not 0 <= ad.version < 10**MAX_VERSION_DIGITS:
        return "version out of range"
    for clock in (ad.turn_timer, ad.total_clock):
        if clock is not None and not 0 < clock < 10**MAX_VERSION_DIGITS:
            return "turn timer or total clock out of range"
    return None


def txt_properties(ad: TableAd) -> dict[str, str]:
    """The TXT record of an advert."""
    props = {
        "v": str(ad.version),
        "id": ad.table_id.hex(),
        "name": ad.name,
        "var": ad.variant,
        "opt": ",".join(ad.options),
        "seats": f"{ad.seats_taken}/{ad.seats_total}",
        "fp": ad.host_fingerprint,
    }
    if ad.host_name:
        props["host"] = ad.host_name
    if ad.turn_timer is not None:
        props["timer"] = str(ad.turn_timer)
    if ad.total_clock is not None:
        props["clock"] = str(ad.total_clock)
    return props


def _text(props: Mapping[bytes, bytes | None], key: bytes, most_chars: int,
          source: str, *, required: bool = True) -> str:
    """The TXT value under `key` as text of at most `most_chars` characters."""
    raw = props.get(key)
    if raw is None and not required and key not in props:
        return ""
    if not isinstance(raw, bytes):
        raise BadAdvert(source, f"TXT key {key!r} is missing or has no value")
    # A UTF-8 character is at most 4 bytes: longer values are refused before decoding.
    if len(raw) > 4 * most_chars:
        raise BadAdvert(source, f"TXT key {key!r} is too long")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadAdvert(source, f"TXT key {key!r} is not UTF-8") from None
    if len(text) > most_chars:
        raise BadAdvert(source, f"TXT key {key!r} is too long")
    return text


def _small_int(text: str, what: str, source: str) -> int:
    # isdecimal() also accepts non-ASCII digits; only plain 0-9 is a valid number here.
    if not 0 < len(text) <= MAX_VERSION_DIGITS or not all("0" <= c <= "9" for c in text):
        raise BadAdvert(source, f"{what} is not a small decimal number")
    return int(text)


def parse_txt(props: Mapping[bytes, bytes | None], source: str = "mDNS advert") -> TableAd:
    """The advert in a TXT record; `BadAdvert` (naming `source`) if anything in it is missing
    or malformed. No other exception escapes, whatever `props` holds (see the fuzz test)."""
    if not isinstance(props, Mapping):
        raise BadAdvert(source, "TXT record is not a map")
    version = _small_int(_text(props, b"v", MAX_VERSION_DIGITS, source), "version", source)
    table_hex = _text(props, b"id", 2 * TABLE_ID_BYTES, source)
    name = _text(props, b"name", MAX_TABLE_NAME_CHARS, source)
    variant = _text(props, b"var", MAX_TOKEN_CHARS, source)
    options_text = _text(props, b"opt", MAX_OPTIONS * (MAX_TOKEN_CHARS + 1), source)
    seats = _text(props, b"seats", 2 * MAX_VERSION_DIGITS + 1, source)
    fingerprint = _text(props, b"fp", MAX_FINGERPRINT_CHARS, source)
    host_name = _text(props, b"host", MAX_PLAYER_NAME_CHARS, source, required=False)
    timer_text = _text(props, b"timer", MAX_VERSION_DIGITS, source, required=False)
    timer = _small_int(timer_text, "turn timer", source) if timer_text else None
    clock_text = _text(props, b"clock", MAX_VERSION_DIGITS, source, required=False)
    clock = _small_int(clock_text, "total clock", source) if clock_text else None
    # Only the lower-case hex we write is accepted: refuse rather than guess.
    if len(table_hex) != 2 * TABLE_ID_BYTES or not _HEX_DIGITS.issuperset(table_hex):
        raise BadAdvert(source, "table id is not 32 lower-case hex digits")
    taken_text, slash, total_text = seats.partition("/")
    if not slash:
        raise BadAdvert(source, "seats are not taken/total")
    taken = _small_int(taken_text, "seats taken", source)
    total = _small_int(total_text, "seats", source)
    options = tuple(options_text.split(",")) if options_text else ()
    try:
        return TableAd(
            table_id=bytes.fromhex(table_hex),
            name=name,
            variant=variant,
            options=options,
            seats_taken=taken,
            seats_total=total,
            host_fingerprint=fingerprint,
            version=version,
            host_name=host_name,
            turn_timer=timer,
            total_clock=clock,
        )
    except LocalProtocolError as exc:  # TableAd's own checks: junk from the network
        raise BadAdvert(source, str(exc).removeprefix("cannot advertise this table: ")) from None


# -- choosing a table -------------------------------------------------------------------------


class Settled(enum.Enum):
    """How far a browse for one `join` has got (see `settled`)."""

    NOT_YET = "not yet"  # nothing that answers the question: keep looking
    SOON = "soon"  # an answer that a late advert could still change: wait the grace period
    NOW = "now"  # more adverts cannot change the answer: stop browsing


class AmbiguousTable(UserError):
    """More than one table fits what the player asked for; `candidates` are those tables."""

    def __init__(self, message: str, candidates: Sequence[FoundTable]) -> None:
        super().__init__(message)
        self.candidates = list(candidates)


def table_key(table: FoundTable) -> tuple[bytes, str, int]:
    """What tells one advert from another: a copy differs from the real one in at least one."""
    return table.ad.table_id, table.address, table.port


def _id_prefix(wanted: str) -> str | None:
    text = wanted.lower()
    if len(text) >= MIN_ID_PREFIX_CHARS and _HEX_DIGITS.issuperset(text):
        return text
    return None


@dataclass(frozen=True, slots=True)
class _Matches:
    """The tables we could join that fit a word, best kind first."""

    by_id: list[FoundTable]  # the table id starts with it
    by_name: list[FoundTable]  # named exactly that (case does not matter)
    by_prefix: list[FoundTable]  # the name starts with it


def _matches(tables: Sequence[FoundTable], wanted: str, *, compatible: bool = True) -> _Matches:
    """The tables `wanted` names, among those we could join (or, with compatible=False,
    among those whose host speaks another protocol version)."""
    key, id_prefix = wanted.casefold(), _id_prefix(wanted)
    found = _Matches([], [], [])
    for table in tables:
        if table.compatible != compatible:
            continue
        name = table.ad.name.casefold()
        if id_prefix is not None and table.ad.table_id.hex().startswith(id_prefix):
            found.by_id.append(table)
        elif name == key:
            found.by_name.append(table)
        elif name.startswith(key):
            found.by_prefix.append(table)
    return found


def settled(tables: Sequence[FoundTable], wanted: str | None) -> Settled:
    """Whether a browse for `join [wanted]` can stop with what it has seen so far.

    The first advert with the wanted id or exact name ends the browse: the player said which
    table (a copied advert is then caught by asking its host for its key, and the joiner
    browses on for the real one). A name prefix, or the only open table when none is named,
    is worth a grace period: another table that fits may still answer, and joining the wrong
    one without a word would be worse than waiting. Two open tables with no name given are
    ambiguous whatever comes next.
    """
    if wanted:
        found = _matches(tables, wanted)
        if found.by_id or found.by_name:
            return Settled.NOW
        return Settled.SOON if found.by_prefix else Settled.NOT_YET
    usable = [t for t in tables if t.compatible]
    if len(usable) > 1:
        return Settled.NOW
    return Settled.SOON if usable else Settled.NOT_YET


def describe_table(table: FoundTable) -> str:
    """One table in an error message: its name, seats, host and id (peer text made safe)."""
    ad = table.ad
    host = f"{safe_name(ad.host_name)} " if ad.host_name else ""
    return (f"{safe_name(ad.name, MAX_TABLE_NAME_CHARS)!r} ({ad.seats_taken}/{ad.seats_total} "
            f"seats, host {host}{safe_name(ad.host_fingerprint)}, id {ad.table_id.hex()[:8]})")


def _listing(tables: Sequence[FoundTable]) -> str:
    return "; ".join(describe_table(t) for t in tables)


def pick_table(tables: Sequence[FoundTable], wanted: str | None) -> FoundTable:
    """The table to join: the only one, the one with that id or name, or the only one whose
    name starts with `wanted`. `AmbiguousTable` (listing the candidates) when several fit,
    a UserError when none does."""
    usable = [t for t in tables if t.compatible]
    if wanted:
        found = _matches(tables, wanted)
        shown = safe_name(wanted, MAX_TABLE_NAME_CHARS)
        for kind, fitting in (("have an id starting with", found.by_id),
                              ("are named", found.by_name)):
            if len(fitting) == 1:
                return fitting[0]
            if fitting:
                raise AmbiguousTable(f"several tables {kind} {shown!r}; give its id: "
                                     + _listing(fitting), fitting)
        if len(found.by_prefix) == 1:
            return found.by_prefix[0]
        if found.by_prefix:
            raise AmbiguousTable(f"{shown!r} could be any of these tables, name one: "
                                 + _listing(found.by_prefix), found.by_prefix)
        other = _matches(tables, wanted, compatible=False)
        elsewhere = other.by_id or other.by_name or other.by_prefix
        if elsewhere:
            raise UserError(
                f"the table {shown!r} is open, but its host runs a hanabi-p2p that speaks "
                f"network protocol {elsewhere[0].ad.version} and this one speaks "
                f"{PROTOCOL_VERSION}: both players need releases that speak the same version")
        names = ", ".join(repr(safe_name(t.ad.name, MAX_TABLE_NAME_CHARS)) for t in usable)
        raise UserError(f"no table named {shown!r} on the network (visible: {names or 'none'})")
    if not usable:
        hint = " (some speak another protocol version)" if tables else ""
        raise UserError("no table found on the network" + hint
                        + "; if multicast is blocked, use --address HOST:PORT")
    if len(usable) > 1:
        raise AmbiguousTable("several tables are open, name one: " + _listing(usable), usable)
    return usable[0]


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


def lan_addresses() -> list[tuple[str, str]]:
    """(address, interface name) of every IPv4 address of this machine that could face a LAN:
    all but loopback (link-local 169.254.x.y stays: it is what a LAN without a router or DHCP
    server gives its machines)."""
    import ifaddr  # (only when there is no default route: not on the way of every join)

    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):  # IPv6 addresses come as tuples
                continue
            address = ipaddress.IPv4Address(ip.ip)
            if address.is_loopback or address.is_unspecified:
                continue
            found.append((str(address), str(adapter.nice_name)))
    return sorted(set(found))


def default_interface_address() -> str:
    """The IPv4 address to play on when none is given.

    That is the address of the interface holding the default route (the kernel is asked which
    source address it would use to reach a documentation-only address: connect() on a UDP
    socket picks a route and sends no packet). A LAN without a router has no default route:
    then the only non-loopback address is used, and with several the error lists them.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(_ROUTE_PROBE)
            address: str = probe.getsockname()[0]
            return address
        except OSError:
            pass
    candidates = lan_addresses()
    if len(candidates) == 1:
        return candidates[0][0]
    if not candidates:
        raise UserError("no default route to pick a network from, and no network address "
                        "but loopback; connect to a network or pass --interface ADDRESS")
    listing = ", ".join(f"{address} ({name})" for address, name in candidates)
    raise UserError(f"no default route to pick a network from; this machine has several "
                    f"addresses: {listing}; pass --interface ADDRESS with one of them")


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
    try:
        ad = parse_txt(info.properties, source=name)
    except BadAdvert:
        return _MALFORMED
    addresses = info.parsed_addresses(IPVersion.V4Only)
    if not addresses or not info.port:
        return _MALFORMED
    if name != _instance_name(ad.table_id):  # the name must match the id it carries
        return _MALFORMED
    return FoundTable(ad=ad, address=addresses[0], port=info.port)


def _census_socket(interface: str) -> socket.socket:
    """A UDP socket on an ephemeral port of `interface` that multicasts out of it alone."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setblocking(False)
        sock.bind((interface, 0))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(interface))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
    except OSError:
        sock.close()
        raise
    return sock


async def _census(zc: Zeroconf, interface: str, on_answer: Callable[[], None]) -> None:
    """Ask every table on the link at once, as a legacy unicast querier (see BROWSE_GRACE_S),
    and feed the answers to `zc`'s cache like any mDNS answer: the browse sees the tables,
    and resolving them needs no further query. `on_answer` is called for each answer.
    Runs until cancelled."""
    loop = asyncio.get_running_loop()
    try:
        sock = _census_socket(interface)
    except OSError:
        return  # the ordinary browse still finds the tables, only later
    query = DNSOutgoing(_FLAGS_QR_QUERY, multicast=False, id_=secrets.randbelow(0xFFFF) + 1)
    query.add_question(DNSQuestion(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN))
    packets = query.packets()

    async def ask() -> None:
        for delay in (0.0, CENSUS_RESEND_S):
            await asyncio.sleep(delay)
            for packet in packets:
                with contextlib.suppress(OSError):  # (the browse goes on without it)
                    await loop.sock_sendto(sock, packet, (_MDNS_ADDR, _MDNS_PORT))

    try:
        async with owned_tasks() as group:
            # (a bug in the asker ends the census with its error, never lost with its task)
            asker = group.create_task(ask(), name="census query")
            for _ in range(CENSUS_MAX_DATAGRAMS):
                data, (host, port) = await loop.sock_recvfrom(sock, CENSUS_MAX_DATAGRAM)
                message = DNSIncoming(data, (host, port))
                # (answers only, from port 5353: what an mDNS responder sends)
                if message.valid and message.is_response() and port == _MDNS_PORT:
                    zc.record_manager.async_updates_from_response(message)
                    on_answer()
            asker.cancel()
    finally:
        sock.close()


def _sorted(tables: dict[str, FoundTable]) -> list[FoundTable]:
    return sorted(tables.values(), key=lambda t: (t.ad.name, t.ad.table_id))


async def browse_tables(interface: str, timeout: float,
                        until: Callable[[list[FoundTable]], Settled] | None = None,
                        grace: float = BROWSE_GRACE_S) -> BrowseResult:
    """Tables advertised on the LAN of `interface`, watched for `timeout` seconds.

    With `until`, the browse stops early: as soon as `until(tables)` says NOW, or `grace`
    seconds after it first said SOON (see `settled`) - MULTICAST_GRACE_S if the legacy
    unicast query it then makes has had no answer.
    """
    if not 0 < timeout <= MAX_BROWSE_S:
        raise UserError(f"the browse timeout must be between 0 and {MAX_BROWSE_S:g} seconds")
    aiozc = _zeroconf_on(interface)
    found: dict[str, FoundTable] = {}
    malformed: set[str] = set()
    resolving: set[asyncio.Task[None]] = set()
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()
    browser: AsyncServiceBrowser | None = None
    census_answered = False
    try:
        # Every task of the browse (a resolve per table, the census) belongs to this group:
        # one that fails (a bug: bad adverts are caught inside) ends the browse with its
        # error, and all of them have ended before zeroconf closes, whatever happened.
        async with owned_tasks() as group:
            closing = False

            async def resolve(name: str) -> None:
                table = await _resolve(aiozc.zeroconf, name)
                if isinstance(table, _Malformed):
                    malformed.add(name)
                elif table is not None and (name in found or len(found) < MAX_TABLES):
                    malformed.discard(name)
                    found[name] = table
                    changed.set()

            def schedule(name: str) -> None:
                if closing or len(resolving) + len(found) + len(malformed) >= 2 * MAX_TABLES:
                    return
                task = group.create_task(resolve(name), name=f"resolve {name}")
                resolving.add(task)
                task.add_done_callback(resolving.discard)

            def removed(name: str) -> None:
                if found.pop(name, None) is not None:
                    changed.set()

            def on_change(zeroconf: Zeroconf, service_type: str, name: str,
                          state_change: ServiceStateChange) -> None:
                # (called on zeroconf's own thread)
                if state_change is ServiceStateChange.Removed:
                    loop.call_soon_threadsafe(removed, name)
                elif name.endswith("." + SERVICE_TYPE):
                    loop.call_soon_threadsafe(schedule, name)

            def on_census_answer() -> None:
                nonlocal census_answered
                if not census_answered:
                    census_answered = True
                    changed.set()  # the grace may be shorter now

            browser = AsyncServiceBrowser(aiozc.zeroconf, SERVICE_TYPE, handlers=[on_change])
            census = (group.create_task(_census(aiozc.zeroconf, interface, on_census_answer),
                                        name="census") if until else None)
            try:
                await _watch(loop, changed, found, until, timeout,
                             lambda: grace if census_answered else max(grace,
                                                                        MULTICAST_GRACE_S))
            finally:
                closing = True  # (a resolve scheduled from now on is not started)
                for task in [*resolving, *([census] if census is not None else [])]:
                    task.cancel()
    finally:
        if browser is not None:
            await browser.async_cancel()
        await aiozc.async_close()
    return BrowseResult(_sorted(found), ignored=len(malformed))


async def _watch(loop: asyncio.AbstractEventLoop, changed: asyncio.Event,
                 found: dict[str, FoundTable],
                 until: Callable[[list[FoundTable]], Settled] | None, timeout: float,
                 grace: Callable[[], float]) -> None:
    """Wait for the browse to end: `timeout` seconds, or as soon as `until(tables)` says
    NOW, or `grace()` seconds after it first said SOON. With `until`, while tables are still
    being found the timeout stretches (STILL_FINDING_S, MAX_BROWSE_STRETCH)."""
    start = loop.time()
    deadline = start + timeout
    soon_since: float | None = None  # when `until` first said SOON
    seen = len(found)

    def stop_at() -> float:
        return deadline if soon_since is None else min(deadline, soon_since + grace())

    while (left := stop_at() - loop.time()) > 0:
        try:
            await asyncio.wait_for(changed.wait(), left)
        except TimeoutError:
            return
        changed.clear()
        if until is not None and len(found) > seen:
            deadline = max(deadline, min(start + MAX_BROWSE_STRETCH * timeout,
                                         loop.time() + STILL_FINDING_S))
        seen = len(found)
        verdict = Settled.NOT_YET if until is None else until(_sorted(found))
        if verdict is Settled.NOW:
            return
        if verdict is Settled.SOON and soon_since is None:
            soon_since = loop.time()
