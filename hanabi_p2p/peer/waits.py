"""How long the game has waited for whom, and when waiting turns into "unreachable".

Pure: the peer core hands it what the session waits for, who is responsive and the time.
Rules (protocol/SPEC.md, "Waiting and unreachable players"):

* a player whose turn it is and who is responsive is thinking: never timed out;
* anything else (a key share, a deck step, a seed, or a turn of a player who is not
  responsive) times out after ``wait_timeout`` seconds;
* a timeout never blames anyone: the game ends "unreachable";
* at a table opened with a turn timer (SPEC 5.6), a turn that lasts longer than it times
  out even while its player is responsive: the game ends "timed out", nobody blamed;
* at a table with a total clock, likewise once a player's turns together (as timed here)
  have lasted longer than it;
* if our own clock jumped (the process was suspended, the machine slept), every running wait
  starts again: we cannot tell who kept the game waiting while we were not looking.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hanabi_p2p.session.waiting import WaitKind

WaitKey = tuple[int, WaitKind]  # (seat, what)


@dataclass(frozen=True, slots=True)
class Overdue:
    seat: int
    what: WaitKind
    waited: float
    turn_timer: bool = False  # a turn over the table's turn timer (the player may be there)
    total_clock: bool = False  # the player's turns together over the table's total clock


@dataclass
class WaitClock:
    wait_timeout: float | None
    _since: dict[WaitKey, float] = field(default_factory=dict)
    # seconds each seat's finished turns lasted, as timed here (for a total clock)
    spent: dict[int, float] = field(default_factory=dict)

    def update(self, waiting: Iterable[WaitKey], now: float) -> None:
        current = set(waiting)
        for key in list(self._since):
            if key not in current:
                began = self._since.pop(key)
                seat, what = key
                if what is WaitKind.TURN:
                    self.spent[seat] = self.spent.get(seat, 0.0) + now - began
        for key in current:
            self._since.setdefault(key, now)

    def restart(self, now: float) -> None:
        for key in self._since:
            self._since[key] = now

    def overdue(
        self, now: float, my_seat: int | None, silent_since: Callable[[int], float | None],
        turn_timer: float | None = None,
        total_clock: float | None = None,
    ) -> Overdue | None:
        """The longest overdue wait, or None. ``silent_since(seat)``: None while that peer is
        reachable and its entries reach us (a turn wait is then a player thinking), else
        since when it is not; a turn wait counts from then. ``turn_timer``: the table's
        (None: none), which a turn may not exceed even while its player thinks; likewise
        ``total_clock`` for a player's turns together."""
        limit = self.wait_timeout
        if my_seat is None or (limit is None and turn_timer is None and total_clock is None):
            return None
        worst: Overdue | None = None
        for (seat, what), began in sorted(self._since.items()):
            if seat == my_seat:
                continue
            found: Overdue | None = None
            if what is WaitKind.TURN and turn_timer is not None and now - began > turn_timer:
                found = Overdue(seat, what, now - began, turn_timer=True)
            spent = self.spent.get(seat, 0.0) + now - began
            if (found is None and what is WaitKind.TURN and total_clock is not None
                    and spent > total_clock):
                found = Overdue(seat, what, spent, total_clock=True)
            # a turn wait counts only while its player is out of reach (else it thinks)
            since: float | None = began
            if what is WaitKind.TURN:
                silent = silent_since(seat)
                since = max(began, silent) if silent is not None else None
            if found is None and since is not None and limit is not None and now - since > limit:
                found = Overdue(seat, what, now - since)
            if found is not None and (worst is None or found.waited > worst.waited):
                worst = found
        return worst
