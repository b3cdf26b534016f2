"""A test LAN of Linux network namespaces (recipes in /work/shared/NETLAB.md), always torn down.

Two shapes:

- `NetLab.loopback()`: one namespace whose `lo` carries multicast, so several processes in
  it can find each other with mDNS on 127.0.0.1;
- `NetLab.lan(n)`: a bridge namespace and n host namespaces, each with an `eth0` on the bridge
  at 10.231.0.<i>/24 (these addresses exist only inside the namespaces).

Namespace names carry this process's pid and a counter, so tests may run in parallel; the
veth pairs are created directly inside their namespaces, so nothing ever appears in the
machine's own network stack. `close()` (or leaving the `with` block) kills the processes this
lab started and deletes every namespace it made, also when the test failed.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

LAN_PREFIX = "10.231.0."
_NAME_PREFIX = "hnet"
_counter = itertools.count(1)
COMMAND_TIMEOUT_S = 20.0
# behind_relay(): addresses above any lan() host (at most 200), and the relay's port
RELAY_ADDRESS = LAN_PREFIX + "251"
VICTIM_ADDRESS = LAN_PREFIX + "252"
RELAY_PORT = 9999


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=COMMAND_TIMEOUT_S)


def unavailable_reason() -> str | None:
    """Why namespaces cannot be built here (None if they can)."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    if shutil.which("ip") is None:
        return "needs the 'ip' command (iproute2)"
    probe = f"{_NAME_PREFIX}{os.getpid()}probe{next(_counter)}"
    try:
        _ip("netns", "add", probe)
    except (subprocess.CalledProcessError, OSError) as exc:
        return f"cannot create a network namespace: {exc}"
    _ip("netns", "del", probe)
    return None


def require_netlab() -> None:
    """Skip the calling test when namespaces cannot be built, but fail it under CI=true."""
    import pytest

    reason = unavailable_reason()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"network-namespace tests cannot run under CI: {reason}")
    pytest.skip(reason)


@dataclass
class Host:
    """One namespace with one address; run commands in it."""

    namespace: str
    address: str
    lab: NetLab = field(repr=False)

    def argv(self, *command: str) -> list[str]:
        return ["ip", "netns", "exec", self.namespace, *command]

    def run(
        self, *command: str, timeout: float = COMMAND_TIMEOUT_S, **kw: Any
    ) -> subprocess.CompletedProcess[str]:
        kw.setdefault("capture_output", True)
        return subprocess.run(self.argv(*command), check=False, text=True, timeout=timeout, **kw)

    def popen(self, *command: str, **kw: Any) -> subprocess.Popen[str]:
        """Start a process in the namespace; the lab kills it on close if it still runs."""
        process = subprocess.Popen(self.argv(*command), text=True, **kw)
        self.lab.processes.append(process)
        return process

    def set_link(self, up: bool) -> None:
        """Cut or heal this host's cable (LAN hosts only)."""
        _ip("-n", self.namespace, "link", "set", "eth0", "up" if up else "down")


def _end_every_process_in(namespace: str) -> None:
    """SIGTERM every process left in ``namespace``, then SIGKILL what is still there 2 s on."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        listed = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True,
                                text=True, timeout=COMMAND_TIMEOUT_S, check=False)
        pids = [int(word) for word in listed.stdout.split() if word.isdigit()]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and any(process_running(pid) for pid in pids):
            time.sleep(0.05)


def process_running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended; its parent reaps it
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class NetLab:
    """Namespaces for one test. Use as a context manager or call close()."""

    def __init__(self, prefix: str = _NAME_PREFIX) -> None:
        # a caller's own prefix keeps its namespaces apart from other suites' in `ip netns`
        self.tag = f"{prefix}{os.getpid()}x{next(_counter)}"
        self.namespaces: list[str] = []
        self.processes: list[subprocess.Popen[str]] = []

    def _namespace(self, suffix: str) -> str:
        name = f"{self.tag}-{suffix}"
        _ip("netns", "add", name)
        self.namespaces.append(name)
        _ip("-n", name, "link", "set", "lo", "up")
        return name

    def loopback(self) -> Host:
        """A namespace where mDNS works over lo (127.0.0.1)."""
        name = self._namespace(f"lo{len(self.namespaces)}")
        _ip("-n", name, "link", "set", "lo", "multicast", "on")
        _ip("-n", name, "route", "add", "224.0.0.0/4", "dev", "lo")
        return Host(name, "127.0.0.1", self)

    def lan(self, count: int) -> list[Host]:
        """`count` hosts on one bridge, at 10.231.0.1 .. 10.231.0.<count>."""
        if not 1 <= count <= 200:
            raise ValueError("a test LAN has 1..200 hosts")
        bridge = self._namespace("br")
        _ip("-n", bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", bridge, "link", "set", "br0", "up")
        hosts = []
        for i in range(1, count + 1):
            name = self._namespace(f"h{i}")
            _ip(
                "link",
                "add",
                "eth0",
                "netns",
                name,
                "type",
                "veth",
                "peer",
                "name",
                f"p{i}",
                "netns",
                bridge,
            )
            _ip("-n", bridge, "link", "set", f"p{i}", "master", "br0")
            _ip("-n", bridge, "link", "set", f"p{i}", "up")
            _ip("-n", name, "addr", "add", f"{LAN_PREFIX}{i}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up")
            hosts.append(Host(name, f"{LAN_PREFIX}{i}", self))
        return hosts

    def behind_relay(self) -> tuple[Host, Host]:
        """(relay, victim): two more hosts on the LAN of `lan()` (call it first), the victim
        wired only to the relay, which routes for it and sends every TCP connection to or
        from it into its own port RELAY_PORT (NETLAB.md, "a host behind a relay"). A program
        listening there reads each connection's real destination with SO_ORIGINAL_DST."""
        bridge, relay_ip, victim_ip = f"{self.tag}-br", RELAY_ADDRESS, VICTIM_ADDRESS
        relay, victim = self._namespace("relay"), self._namespace("victim")
        _ip("link", "add", "eth0", "netns", relay, "type", "veth",
            "peer", "name", "prelay", "netns", bridge)
        _ip("-n", bridge, "link", "set", "prelay", "master", "br0")
        _ip("-n", bridge, "link", "set", "prelay", "up")
        _ip("-n", relay, "addr", "add", f"{relay_ip}/24", "dev", "eth0")
        _ip("-n", relay, "link", "set", "eth0", "up")
        _ip("link", "add", "vic0", "netns", relay, "type", "veth",
            "peer", "name", "eth0", "netns", victim)
        _ip("-n", relay, "link", "set", "vic0", "up")
        # REDIRECT needs an address on the interface a connection comes in by
        _ip("-n", relay, "addr", "add", f"{relay_ip}/32", "dev", "vic0")
        _ip("-n", victim, "addr", "add", f"{victim_ip}/24", "dev", "eth0")
        _ip("-n", victim, "link", "set", "eth0", "up")
        _ip("-n", relay, "route", "add", f"{victim_ip}/32", "dev", "vic0", "src", relay_ip)
        relay_host = Host(relay, relay_ip, self)
        settings = ["net.ipv4.ip_forward=1"] + [
            f"net.ipv4.conf.{i}.proxy_arp=1" for i in ("all", "eth0", "vic0")]
        for setting in settings:
            relay_host.run("sysctl", "-qw", setting).check_returncode()
        for rule in (["-i", "vic0"], ["-i", "eth0", "-d", victim_ip]):
            relay_host.run("iptables", "-t", "nat", "-A", "PREROUTING", *rule, "-p", "tcp",
                           "-j", "REDIRECT", "--to-ports", str(RELAY_PORT)).check_returncode()
        return relay_host, Host(victim, victim_ip, self)

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5)
        self.processes.clear()
        for name in reversed(self.namespaces):
            # what those programs started themselves (a wrapper's children) is still there
            _end_every_process_in(name)
            subprocess.run(
                ["ip", "netns", "del", name],
                check=False,
                capture_output=True,
                timeout=COMMAND_TIMEOUT_S,
            )
        self.namespaces.clear()

    def __enter__(self) -> NetLab:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
