"""One handshaked connection to one peer over asyncio streams (the IO shell around frames).

`open_link()` runs the sans-IO `Handshake` over a StreamReader/StreamWriter pair under a
deadline (a connection that never speaks is dropped after `handshake_timeout`) and returns a
`Link`. A Link then:

- `send(frame)`: seals a frame (ChaCha20-Poly1305 under this direction's link key, see
  `FrameProtector`) and queues it without blocking; a peer that stops reading fills its
  bounded outbox and is disconnected rather than stalling everyone else;
- `recv()`: the next frame for the layers above; PING/PONG are answered here and never seen
  above; BYE/ERROR from the peer end the link with `LinkClosedError`; a frame that fails
  authentication (altered, injected, replayed, reordered) ends it with `LinkAuthError`;
- keeps the link alive with a PING whenever it has sent nothing else for
  `keepalive_interval`, and declares the peer gone if nothing at all arrives for
  `idle_timeout`;
- `close(reason)`: says BYE, then closes without losing it (a lingering close, below);
  `abort(error)` tells the peer what it did wrong (an ERROR frame, best effort) and closes at
  once.

Why a lingering close: a socket closed while bytes it received are still unread makes the
kernel answer with a reset instead of an orderly end, and a reset makes the peer's kernel drop
what it has received but its program not yet read: our last frames and BYE. So `close` sends
what is queued, then ends our sending direction only (the peer reads our BYE, then end of
stream), then reads and drops whatever the peer still sends until the peer ends its own
direction or `close_linger` passes, whichever is first, and only then closes the socket.

Every error names the peer: its address before the handshake, `fingerprint@address` after.
After the handshake every frame both ways is protected, BYE/ERROR/PING/PONG included, so a
stranger in the path cannot put words (an ERROR reason) in a peer's mouth.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from dataclasses import dataclass

from hanabi_p2p.errors import HanabiError, RemoteProtocolError
from hanabi_p2p.net.errors import (
    FrameError,
    HandshakeError,
    LinkClosedError,
    LinkTimeoutError,
    PeerRefusedError,
    WrongSecretError,
)
from hanabi_p2p.net.frames import (
    Auth,
    Bye,
    Confirm,
    Error,
    Frame,
    FrameDecoder,
    FrameProtector,
    Hello,
    Pake,
    Ping,
    Pong,
    clip_reason,
    encode_frame,
    encode_payload,
)
from hanabi_p2p.net.handshake import Handshake, HandshakeResult

HANDSHAKE_TIMEOUT_S = 10.0
KEEPALIVE_INTERVAL_S = 5.0
# Three missed keepalives: long enough to ride out a busy peer (e.g. a deck shuffle proof
# being computed), short enough that "waiting for Bob" appears within half a minute.
IDLE_TIMEOUT_S = 3 * KEEPALIVE_INTERVAL_S
# Time allowed to flush a BYE before the socket is closed anyway.
CLOSE_FLUSH_S = 1.0
# After our BYE and end of stream are sent, the longest we read and drop what the peer still
# sends while waiting for its own end of stream (its answer to our BYE, about one round trip):
# closing with its bytes unread would reset the connection and lose our BYE at its end.
CLOSE_LINGER_S = 1.0
READ_CHUNK_BYTES = 64 * 1024
# Outbox limits: a peer that lets this much pile up is not reading and gets disconnected.
OUTBOX_MAX_FRAMES = 1024
OUTBOX_MAX_BYTES = 16 * 1024 * 1024

_HANDSHAKE_FRAMES = (Hello, Pake, Confirm, Auth)


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """Timeouts of one link (tests shorten them; no test asserts how long anything takes)."""

    handshake_timeout: float = HANDSHAKE_TIMEOUT_S
    keepalive_interval: float = KEEPALIVE_INTERVAL_S
    idle_timeout: float = IDLE_TIMEOUT_S
    close_linger: float = CLOSE_LINGER_S


def peer_address(writer: asyncio.StreamWriter) -> str:
    """`host:port` of the other end, for error messages before we know who it is."""
    peername = writer.get_extra_info("peername")
    if isinstance(peername, tuple) and len(peername) >= 2:
        return f"{peername[0]}:{peername[1]}"
    return "unknown address"


def peer_host(writer: asyncio.StreamWriter) -> str:
    """The other end's IP address alone: the unit of per-source limits (ports are free)."""
    peername = writer.get_extra_info("peername")
    if isinstance(peername, tuple) and peername:
        return str(peername[0])
    return "unknown address"


async def _read_frame(
    reader: asyncio.StreamReader, decoder: FrameDecoder, label: str, timeout: float | None
) -> Frame:
    while (frame := decoder.next_frame()) is None:
        try:
            # (asyncio.timeout, not wait_for: on Python 3.11 wait_for wraps every read in a
            # task of its own, one more loop turn and a task for each frame received)
            async with asyncio.timeout(timeout):
                data = await reader.read(READ_CHUNK_BYTES)
        except TimeoutError:
            raise LinkTimeoutError(label, f"nothing received for {timeout:g} s") from None
        except OSError as exc:
            raise LinkClosedError(label, f"connection lost ({exc.__class__.__name__})") from exc
        if not data:
            raise LinkClosedError(label, "connection closed by the peer")
        decoder.feed(data)
    return frame


def _error_frame_for(error: HanabiError) -> Error | None:
    """What to tell a peer about why we drop it (nothing if it was the peer who refused)."""
    if isinstance(error, PeerRefusedError | LinkClosedError):
        return None
    reason = error.reason if isinstance(error, RemoteProtocolError) else str(error)
    return Error(clip_reason(reason))


def _abort_writer(
    writer: asyncio.StreamWriter, error: HanabiError, protector: FrameProtector | None
) -> None:
    """Tell the peer why (in clear during the handshake, sealed after it) and close."""
    frame = _error_frame_for(error)
    with contextlib.suppress(Exception):  # best effort: the socket may already be gone
        if frame is not None and not writer.is_closing():
            writer.write(encode_frame(frame) if protector is None else protector.seal(frame))
    with contextlib.suppress(Exception):
        writer.close()


async def _refuse(writer: asyncio.StreamWriter, read_side: _ReadSide | None,
                  error: HandshakeError, timing: LinkTiming) -> None:
    """Refuse a handshake (another table or version, a bad signature...): tell the peer
    why in an ERROR frame, in clear, then close without a reset. A peer that sent more than
    we read before refusing (a pipelining client) would otherwise lose the ERROR to the
    reset, and its player would read "connection lost" instead of the reason; so, as
    `Link.close` does, our direction is ended and what the peer still sends is dropped
    unread until it ends its own or `close_linger` passes. Garbage (FrameError), timeouts
    and wrong passwords close at once."""
    frame = _error_frame_for(error)
    if frame is None or read_side is None or writer.is_closing():
        _abort_writer(writer, error, None)
        return
    try:
        with contextlib.suppress(OSError):  # gone already: closed now either way
            writer.write(encode_frame(frame))
            await _end_and_drain(writer, read_side, timing.close_linger)
    finally:
        writer.close()


async def _end_and_drain(writer: asyncio.StreamWriter, read_side: _ReadSide,
                         linger: float) -> None:
    """End our direction (once what the socket still buffers has left: the peer reads our
    last frame, then the end of stream), then drop what the peer still sends until it ends
    its own or `linger` passes, so that closing the socket loses nothing we sent (see the
    module's docstring). The bound is on time, not bytes: trickling does not extend it.
    Raises OSError if the connection is gone already."""
    writer.write_eof()
    read_side.discard()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(linger):
            await read_side.peer_done.wait()


class _ReadSide(asyncio.Protocol):
    """Stands between the socket and the stream reader's own protocol of one connection.

    It passes everything through, noting when the peer's direction ends (its end of stream,
    or the connection is lost). Once `discard()` is called, what the peer sends is dropped
    unread: after our BYE nothing the peer says reaches a parser, yet the socket is kept empty
    so that closing it is an orderly end, not a reset.
    """

    def __init__(
        self, inner: asyncio.Protocol, transport: asyncio.ReadTransport, peer_done: bool
    ) -> None:
        self._inner = inner
        self._transport = transport
        self._discarding = False
        self.peer_done = asyncio.Event()
        if peer_done:
            self.peer_done.set()

    @classmethod
    def install(
        cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> _ReadSide | None:
        """Put one in front of the reader's protocol (None if the transport cannot have one:
        then a close does not linger)."""
        transport = writer.transport
        inner = transport.get_protocol()
        if not isinstance(transport, asyncio.ReadTransport) or not isinstance(
            inner, asyncio.Protocol
        ):
            return None
        read_side = cls(inner, transport, reader.at_eof() or transport.is_closing())
        transport.set_protocol(read_side)
        return read_side

    def discard(self) -> None:
        """Drop whatever arrives from now on."""
        self._discarding = True
        # The stream reader pauses the socket when its buffer is full; nobody reads that
        # buffer any more, and bytes left unread in the socket would turn our close into a
        # reset.
        self._transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        if not self._discarding:
            self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        self.peer_done.set()
        return self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.peer_done.set()
        self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


async def open_link(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    handshake: Handshake,
    timing: LinkTiming = LinkTiming(),
) -> Link:
    """Run the handshake on a fresh connection; on any failure the connection is closed."""
    # Installed first, so that it sees the peer's end of stream whenever that comes.
    read_side = _ReadSide.install(reader, writer)
    decoder = FrameDecoder(handshake.peer_label)
    try:
        async with asyncio.timeout(timing.handshake_timeout):
            for frame in handshake.start():
                writer.write(encode_frame(frame))
            await writer.drain()
            while not handshake.done:
                frame = await _read_frame(reader, decoder, handshake.peer_label, None)
                for answer in handshake.receive(frame):
                    writer.write(encode_frame(answer))
                # A peer that refuses us sends ERROR and closes, so our answer to its HELLO
                # may meet a reset. Its ERROR is then usually buffered already and is what
                # we must report; if not, the next read reports the lost connection.
                with contextlib.suppress(OSError):
                    await writer.drain()
    except TimeoutError:
        error: HanabiError = LinkTimeoutError(
            handshake.peer_label, f"no handshake within {timing.handshake_timeout:g} s"
        )
        _abort_writer(writer, error, None)
        raise error from None
    except OSError as exc:
        error = LinkClosedError(handshake.peer_label, f"connection lost ({type(exc).__name__})")
        _abort_writer(writer, error, None)
        raise error from exc
    except WrongSecretError as exc:
        # At once: the table counts a wrong password when open_link raises, and a refusal
        # that lingered could be evicted first (pending handshakes from one source are
        # capped), which would let a guesser skip the count and its back-off.
        _abort_writer(writer, exc, None)
        raise
    except HandshakeError as exc:
        await _refuse(writer, read_side, exc, timing)
        raise
    except HanabiError as exc:
        _abort_writer(writer, exc, None)
        raise
    except BaseException:  # cancelled: do not leak the socket
        writer.close()
        raise
    decoder.peer = handshake.peer_label
    protector = handshake.result.protector(handshake.peer_label)
    # Bytes the peer sent right after its last handshake frame may already be buffered: they
    # are protected records, and are opened as such.
    decoder.protect(protector)
    return Link(
        reader,
        writer,
        handshake.result,
        decoder=decoder,
        protector=protector,
        label=handshake.peer_label,
        timing=timing,
        read_side=read_side,
    )


class Link:
    """A handshaked link to one verified peer. Create with `open_link`, then `start(group)`."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        result: HandshakeResult,
        *,
        decoder: FrameDecoder,
        protector: FrameProtector,
        label: str,
        timing: LinkTiming,
        read_side: _ReadSide | None,
    ) -> None:
        self.result = result
        self.label = label
        self._reader = reader
        self._writer = writer
        self._decoder = decoder  # may already hold bytes the peer sent right after its AUTH
        self._protector = protector  # seals what we send; the decoder opens what we receive
        self._timing = timing
        self._read_side = read_side  # None: the transport cannot have one; close does not linger
        self._outbox: deque[bytes] = deque()
        self._outbox_bytes = 0
        self._wakeup = asyncio.Event()
        self._closed: LinkClosedError | None = None
        self._ping_nonces = itertools.count(1)
        self._write_task: asyncio.Task[None] | None = None
        self._crashed: BaseException | None = None  # a bug in writing at once (`_crash`)
        self._ping_task: asyncio.Task[None] | None = None
        self._last_sent = time.monotonic()  # when we last queued or wrote a frame

    @property
    def peer_id(self) -> bytes:
        return self.result.peer_id

    @property
    def initiator(self) -> bool:
        """True if this end dialled the link."""
        return self.result.initiator

    @property
    def queued_frames(self) -> int:
        """Frames waiting to be written (a sender that will not be closed for a full
        outbox keeps this under OUTBOX_MAX_FRAMES)."""
        return len(self._outbox)

    @property
    def closed(self) -> bool:
        return self._closed is not None

    def start(self, group: asyncio.TaskGroup) -> None:
        """Start the writer and keepalive, as tasks of `group` (the mesh's). They handle the
        network themselves, so anything escaping them is a bug of ours, and it ends the
        group visibly instead of leaving a writer that died unseen."""
        self._write_task = group.create_task(self._write_loop(), name=f"write {self.label}")
        self._ping_task = group.create_task(self._keepalive_loop(), name=f"ping {self.label}")

    def _crash(self, error: BaseException, what: str) -> None:
        """A bug of ours in writing outside the writer task (`send_payload` writing at once):
        close the link, and `recv` raises `error` to its reader, whose task ends the mesh."""
        self._crashed = error
        self._shutdown(LinkClosedError(self.label, what), None)

    def send(self, frame: Frame) -> int:
        """Queue a frame; raises LinkClosedError if the link is closed or the peer not reading.

        A frame too large to send raises LocalProtocolError before anything is queued.
        Returns the number of bytes queued.
        """
        return self.send_payload(encode_payload(frame))

    def send_payload(self, payload: bytes) -> int:
        """Seal and queue a frame already encoded with `encode_payload` (a broadcast encodes
        once; each link seals with its own key). Returns the number of bytes queued."""
        if self._closed is not None:
            raise self._closed
        self._last_sent = time.monotonic()
        # Sealed here, in the order frames are queued: the outbox is FIFO, so records reach
        # the wire in counter order.
        data = self._protector.seal_payload(payload)
        if (
            len(self._outbox) >= OUTBOX_MAX_FRAMES
            or self._outbox_bytes + len(data) > OUTBOX_MAX_BYTES
        ):
            error = LinkClosedError(self.label, "the peer is not reading (outbox full)")
            self._shutdown(error, None)
            self._writer.transport.abort()  # what is buffered for it will never be read
            raise error
        if not self._outbox and self._write_task is not None and self._idle_transport():
            # Nothing is waiting to be written: hand the record to the socket now rather
            # than one loop turn later from the writer task (same order, same bytes).
            try:
                self._writer.write(data)
            except Exception as exc:  # a bug, as in the writer: recv raises it
                self._crash(exc, "writing failed")
            return len(data)
        self._outbox.append(data)
        self._outbox_bytes += len(data)
        self._wakeup.set()
        return len(data)

    def _idle_transport(self) -> bool:
        transport = self._writer.transport
        return not transport.is_closing() and transport.get_write_buffer_size() == 0

    async def recv(self) -> Frame:
        """The next frame from the peer for the layers above.

        Raises LinkClosedError (BYE, EOF, our own close), LinkTimeoutError (silence) or
        FrameError/RemoteProtocolError (garbage: the link is aborted with an ERROR frame).
        """
        while True:
            if self._crashed is not None:
                raise self._crashed
            if self._closed is not None:
                raise self._closed
            try:
                frame = await _read_frame(
                    self._reader, self._decoder, self.label, self._timing.idle_timeout
                )
            except HanabiError as exc:
                if self._crashed is not None:  # writing at once failed: a bug
                    raise self._crashed from None
                if self._closed is not None:  # we closed it ourselves: that is the reason
                    raise self._closed from None
                if isinstance(exc, LinkClosedError):
                    self._shutdown(exc, None)
                else:
                    self._shutdown(LinkClosedError(self.label, str(exc)), exc)
                raise
            if self._closed is not None or self._crashed is not None:
                continue  # read as we closed: nothing is delivered after our BYE
            if isinstance(frame, Ping):
                self._send_quietly(Pong(frame.nonce))
            elif isinstance(frame, Pong):
                continue  # its arrival already reset the idle timer; nothing else to do
            elif isinstance(frame, Bye):
                error = LinkClosedError(self.label, f"the peer left ({frame.reason or 'bye'})")
                self._shutdown(error, None)
                raise error
            elif isinstance(frame, Error):
                error = LinkClosedError(self.label, f"the peer reported an error: {frame.reason}")
                self._shutdown(error, None)
                raise error
            elif isinstance(frame, _HANDSHAKE_FRAMES):
                failure = FrameError(self.label, f"unexpected {frame.TAG} after the handshake")
                self._shutdown(LinkClosedError(self.label, str(failure)), failure)
                raise failure
            else:
                return frame

    async def close(self, reason: str = "bye") -> None:
        """Say BYE, give it a moment to leave, linger for the peer's end, and close.

        Takes at most CLOSE_FLUSH_S to send what is queued, then at most `close_linger` for
        the peer to end its direction, then at most CLOSE_FLUSH_S for the socket to close.
        """
        closing = self._closed is None
        closed = self._closed or LinkClosedError(self.label, f"closed by us ({reason})")
        try:
            if closing:
                self._send_quietly(Bye(clip_reason(reason)))
                self._closed = closed
                self._wakeup.set()
                if self._ping_task is not None:
                    self._ping_task.cancel()
                if await self._flush():
                    await self._linger()
        finally:  # also when cancelled: the socket is never left open
            self._shutdown(closed, None)
        await self._wait_tasks()

    async def _flush(self) -> bool:
        """Hand the outbox (BYE last) to the socket; False if that took too long or failed."""
        if self._write_task is None:  # never started (e.g. a duplicate link): write here
            try:
                self._writer.write(b"".join(self._outbox))
            except Exception:  # the socket is already gone: nothing to linger for
                return False
            finally:
                self._outbox.clear()
            return True
        try:
            async with asyncio.timeout(CLOSE_FLUSH_S):
                await asyncio.gather(self._write_task, return_exceptions=True)
        except TimeoutError:
            return False  # the peer is not reading: waiting longer would not help
        task = self._write_task
        return not task.cancelled() and task.exception() is None

    async def _linger(self) -> None:
        """After our BYE: `_end_and_drain`, unless there is nothing to linger for."""
        read_side = self._read_side
        if read_side is None or self._writer.transport.is_closing():
            return
        with contextlib.suppress(OSError):  # the connection is gone already
            await _end_and_drain(self._writer, read_side, self._timing.close_linger)

    def abort(self, error: HanabiError) -> None:
        """Close at once, telling the peer why (an ERROR frame, best effort)."""
        self._shutdown(LinkClosedError(self.label, str(error)), error)

    # -- internals ------------------------------------------------------------------------

    def _send_quietly(self, frame: Frame) -> None:
        with contextlib.suppress(LinkClosedError):
            self.send(frame)

    def _shutdown(self, closed: LinkClosedError, blame: HanabiError | None) -> None:
        """Close the socket now; `blame` (what the peer should hear) goes in an ERROR frame."""
        if self._closed is None:
            self._closed = closed
        for task in (self._write_task, self._ping_task):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        # The ERROR is sealed with the next counter: frames still in the outbox would never be
        # written before it, so the peer could not open it; then it only closes.
        if blame is not None and not self._outbox:
            _abort_writer(self._writer, blame, self._protector)
        else:
            with contextlib.suppress(Exception):
                self._writer.close()

    async def _wait_tasks(self) -> None:
        current = asyncio.current_task()
        tasks = [t for t in (self._write_task, self._ping_task) if t not in (None, current)]
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            async with asyncio.timeout(CLOSE_FLUSH_S):
                await self._writer.wait_closed()
        except TimeoutError:
            self._writer.transport.abort()  # the peer is not taking our last bytes: drop them
        except OSError:
            pass  # the socket died on its own; it is closed either way

    async def _write_loop(self) -> None:
        try:
            while True:
                while self._outbox:
                    data = self._outbox.popleft()
                    self._outbox_bytes -= len(data)
                    self._writer.write(data)
                await self._writer.drain()
                if self._closed is not None and not self._outbox:
                    return  # all handed to the socket; `close` ends the connection
                self._wakeup.clear()
                if not self._outbox and self._closed is None:
                    await self._wakeup.wait()
        except OSError as exc:
            self._shutdown(
                LinkClosedError(self.label, f"connection lost ({type(exc).__name__})"), None
            )

    async def _keepalive_loop(self) -> None:
        """A PING when we have sent nothing else for `keepalive_interval`: the peer's idle
        timer hears from us at least that often either way. A link that carries frames all
        the time needs none: a player writes to each of its spectators every turn, and the
        PINGs and PONGs it sent and read on those links were one frame in twelve of all it
        exchanged with them in a meetup game's play (bench/meetup.py, eight spectators)."""
        interval = self._timing.keepalive_interval
        while self._closed is None:
            quiet = time.monotonic() - self._last_sent
            if quiet < interval:
                await asyncio.sleep(interval - quiet)
                continue
            self._send_quietly(Ping(next(self._ping_nonces) % 2**32))
