"""HTTPS for phones on the LAN, tested inside a network namespace of our own.

The "LAN" is 10.77.0.2 on the loopback device of a namespace made with
`unshare -n`: the machine's real interfaces are never touched. Inside it the
server starts as a user starts it (no --host), and Chromium opens the LAN
address over the generated certificate.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from maxchen import tls

from .conftest import ROOT, free_port

LAN = "10.77.0.2"
IN_CI = os.environ.get("CI") == "true"


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


needs_netns = pytest.mark.skipif(
    not IN_CI and not _namespaces_work(), reason="needs root for unshare -n and iproute2 (CI has both)"
)

PROBE = textwrap.dedent(
    """
    import json, subprocess, sys, time, requests
    port, instance, root = sys.argv[1], sys.argv[2], sys.argv[3]
    server = subprocess.Popen([sys.executable, "app.py", "--port", port, "--instance", instance],
                              cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result = {}
    try:
        deadline = time.monotonic() + 60  # a busy machine starts it slowly
        while time.monotonic() < deadline:
            try:
                requests.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.1)
        result["plain_localhost"] = requests.get(f"http://127.0.0.1:{port}/", timeout=5).status_code
        # The generated certificate itself vouches for the LAN address.
        lan = requests.get(f"https://{LAN}:{port}/", verify=f"{instance}/cert.pem", timeout=5)
        result["https_lan"] = lan.status_code
        try:
            requests.get(f"http://{LAN}:{port}/", timeout=5)
            result["plain_lan"] = "served"
        except requests.RequestException:
            result["plain_lan"] = "refused"
        from playwright.sync_api import sync_playwright
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                              "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True, ignore_https_errors=True)
            page.goto(f"https://{LAN}:{port}/")
            result["secure"] = page.evaluate("window.isSecureContext")
            result["motion"] = page.evaluate("typeof DeviceMotionEvent")
            browser.close()
    finally:
        server.terminate()
        result["banner"] = server.communicate(timeout=10)[0]
    print("RESULT " + json.dumps(result))
    """
).replace("{LAN}", LAN)


@needs_netns
def test_a_phone_at_a_lan_address_gets_a_secure_page_with_motion(tmp_path):
    if not Path("/usr/bin/chromium").exists() and not IN_CI:
        pytest.skip("Chromium is not installed")
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    port = str(free_port())
    setup = f"ip link set lo up && ip addr add {LAN}/32 dev lo && ip route add default dev lo"
    command = f"{setup} && exec {sys.executable} {probe} {port} {tmp_path / 'instance'} {ROOT}"
    done = subprocess.run(["unshare", "-n", "sh", "-c", command], capture_output=True, text=True, timeout=120)
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line, done.stdout + done.stderr
    result = json.loads(line[len("RESULT ") :])
    assert result["plain_localhost"] == 200
    assert result["https_lan"] == 200
    assert result["plain_lan"] == "refused"
    assert result["secure"] is True
    assert result["motion"] == "function"
    banner = result["banner"]
    assert f"https://{LAN}:{port}/" in banner
    assert f"http://127.0.0.1:{port}/" in banner
    assert "certificate" in banner and "█" in banner  # the QR code of the LAN link


RESETS = textwrap.dedent(
    """
    import socket, ssl, struct, subprocess, sys, time
    port, instance, root = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    server = subprocess.Popen([sys.executable, "app.py", "--port", str(port), "--instance", instance], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def healthz():
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        try:
            with context.wrap_socket(socket.create_connection(("{LAN}", port), timeout=5)) as tls:
                tls.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: {LAN}\\r\\nConnection: close\\r\\n\\r\\n")
                return tls.recv(100).split(b"\\r\\n")[0].decode()
        except OSError as error:
            return repr(error)

    try:
        deadline = time.monotonic() + 60
        while healthz() != "HTTP/1.1 200 OK" and time.monotonic() < deadline:
            time.sleep(0.2)
        print("BEFORE", healthz())
        for _ in range(20):  # connected, then reset at once (SO_LINGER 0): gone before it is taken
            gone = socket.create_connection(("{LAN}", port))
            gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            gone.close()
        time.sleep(0.5)
        print("AFTER", healthz())
    finally:
        server.terminate()
        server.wait(10)
    """
).replace("{LAN}", LAN)


@needs_netns
def test_connections_reset_before_they_are_taken_leave_the_https_listener_serving(tmp_path):
    """A phone leaving the Wi-Fi (or a port scan) resets connections the server has not yet taken: eventlet
    stopped serving the LAN's https port for good at the first of them."""
    probe = tmp_path / "resets.py"
    probe.write_text(RESETS)
    setup = f"ip link set lo up && ip addr add {LAN}/32 dev lo && ip route add default dev lo"
    command = f"{setup} && exec {sys.executable} {probe} {free_port()} {tmp_path / 'instance'} {ROOT}"
    done = subprocess.run(["unshare", "-n", "sh", "-c", command], capture_output=True, text=True, timeout=120)
    assert "BEFORE HTTP/1.1 200 OK" in done.stdout, done.stdout + done.stderr
    assert "AFTER HTTP/1.1 200 OK" in done.stdout, done.stdout + done.stderr


@needs_netns
def test_a_computer_on_no_network_says_so_at_start(tmp_path):
    """A laptop not on any Wi-Fi: the banner says that phones get an address once it joins one."""
    port = free_port()
    start = f"exec {sys.executable} app.py --port {port} --instance {tmp_path}"
    server = subprocess.Popen(
        ["unshare", "-n", "sh", "-c", f"ip link set lo up && {start}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    # Read the banner as it comes (a busy machine starts slowly), until it has said where phones go.
    lines: list[str] = []
    killer = threading.Timer(60, server.kill)
    killer.start()
    try:
        for line in server.stdout:
            lines.append(line)
            said = "".join(lines)
            if "Its files" in said and ("No network found" in said or "Phones on this network" in said):
                break
    finally:
        killer.cancel()
        server.terminate()
        server.wait(timeout=30)
    said = "".join(lines)
    assert "No network found: join the phones' Wi-Fi" in said and "Phones on this network" not in said, said
    assert f"http://127.0.0.1:{port}/" in said


def test_the_certificate_covers_localhost_and_the_lan_and_is_renewed(tmp_path):
    cert, key = tls.ensure_certificate(tmp_path, ["192.168.1.20"])
    assert tls.certificate_names(cert) >= {"localhost", "127.0.0.1", "::1", "192.168.1.20"}
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    made = cert.read_bytes()
    assert tls.ensure_certificate(tmp_path, ["192.168.1.20"])[0].read_bytes() == made  # kept
    tls.ensure_certificate(tmp_path, ["192.168.1.20", "10.0.0.7"])  # the addresses changed
    assert "10.0.0.7" in tls.certificate_names(cert)
    assert cert.read_bytes() != made


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("localhost", True),
        ("10.77.0.2", False),
        ("0.0.0.0", False),
    ],
)
def test_loopback_addresses_serve_plain_http(host, loopback):
    assert tls.is_loopback(host) is loopback


def test_sessions_survive_a_restart(tmp_path):
    """The session key is made once and kept, so restarts log nobody out."""
    sys.path.insert(0, str(ROOT))
    from maxchen import serve

    env = os.environ.pop("MAXCHEN_SECRET_KEY", None)
    try:
        first = serve.secret_key(tmp_path)
        assert serve.secret_key(tmp_path) == first
        assert len(first) == 64
        os.environ["MAXCHEN_SECRET_KEY"] = "from-the-environment"
        assert serve.secret_key(tmp_path) == "from-the-environment"
    finally:
        os.environ.pop("MAXCHEN_SECRET_KEY", None)
        if env is not None:
            os.environ["MAXCHEN_SECRET_KEY"] = env
