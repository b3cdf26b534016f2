"""The test LAN itself: skip/fail policy, and that it cleans up after itself."""

from __future__ import annotations

import subprocess

import pytest
from netlab import NetLab, process_running, require_netlab


def test_without_root_skips_locally_but_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="root"):
        require_netlab()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="root"):
        require_netlab()


@pytest.mark.netns
def test_lab_deletes_its_namespaces_and_processes(netlab: NetLab) -> None:
    with NetLab() as lab:
        (host,) = lab.lan(1)
        loop = lab.loopback()
        names = set(lab.namespaces)
        sleeper = host.popen("sleep", "60")
        assert host.run("ip", "-4", "addr", "show", "eth0").stdout.count("10.231.0.1/24") == 1
        assert "MULTICAST" in loop.run("ip", "link", "show", "lo").stdout
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    assert not names & {line.split()[0] for line in listed.stdout.splitlines() if line}
    assert sleeper.poll() is not None


@pytest.mark.netns
def test_lab_ends_the_processes_its_programs_started_too(netlab: NetLab) -> None:
    """A wrapper's children (a shell's, a launcher's) live on in the namespace after the
    wrapper ends; the lab ends them before deleting it, so no test leaves one behind."""
    with NetLab() as lab:
        (host,) = lab.lan(1)
        wrapper = host.popen("sh", "-c", "sleep 60 & echo $!; wait", stdout=subprocess.PIPE)
        assert wrapper.stdout is not None
        grandchild = int(wrapper.stdout.readline())
        assert process_running(grandchild)
    assert not process_running(grandchild)
