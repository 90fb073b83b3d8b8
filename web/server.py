"""`becher serve`: the app on cheroot (a production WSGI server for Linux, macOS and Windows), plain or TLS.

Each live stream holds one server thread for as long as a device watches, so the pool is sized for nine devices
with plenty to spare (THREADS). With ``--https`` a self-signed certificate is made on first start and kept in the
data folder, since phones allow the live camera in the browser only over HTTPS.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import errno
import html
import ipaddress
import os
import re
import shlex
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

import segno
from cheroot import wsgi
from cheroot.ssl.builtin import BuiltinSSLAdapter

from web import gate, memory, photos
from web.app import create_app, data_dir
from web.store import Unusable

THREADS = 64
CERT_NAME = "becher-cert.pem"
KEY_NAME = "becher-key.pem"


def lan_address() -> str | None:
    """The address other devices on the network reach this machine by (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            address = str(s.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def public_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        return lan_address() or "127.0.0.1"
    return host


def url_for(host: str, port: int, https: bool) -> str:
    scheme = "https" if https else "http"
    shown = f"[{host}]" if ":" in host else host
    default = 443 if https else 80
    return f"{scheme}://{shown}/" if port == default else f"{scheme}://{shown}:{port}/"


def ensure_certificate(folder: Path, hosts: list[str]) -> tuple[Path, Path]:
    """A self-signed certificate for this machine's names and addresses, made once and kept (remade if the
    address changed, so phones see a certificate for the address they open)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    cert_path, key_path = folder / CERT_NAME, folder / KEY_NAME
    hostname = socket.gethostname()
    plain = hostname.isascii() and all(ch.isalnum() or ch in "-." for ch in hostname)
    names = sorted({"localhost", "127.0.0.1", *hosts} | ({hostname} if plain and hostname else set()))
    if cert_path.exists() and key_path.exists():
        try:
            cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
            san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            covered = {str(v) for v in san.get_values_for_type(x509.IPAddress)}
            covered |= set(san.get_values_for_type(x509.DNSName))
            expires = cert.not_valid_after_utc
            if all(n in covered for n in names) and expires > datetime.datetime.now(datetime.UTC):
                return cert_path, key_path
        except (ValueError, x509.ExtensionNotFound):
            pass
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Becher at the table")])
    alt: list[x509.GeneralName] = []
    for name in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alt.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    write_private(
        key_path,
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def write_private(path: Path, data: bytes) -> None:
    """Write a file that only its owner may read, from its first byte on (a chmod after writing leaves a moment in
    which another user can open it), replacing any older one in one step."""
    tmp = path.with_name(path.name + ".new")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, path)


class DatabaseLock:
    """One server per database: a second one's writes would never reach the first one's live streams.

    The lock is the operating system's (flock, or a locked byte on Windows) on a file beside the database, so it is
    released when the process ends in any way, kill -9 included; the file says which process holds it.
    """

    def __init__(self, database: str) -> None:
        self.path = Path(database + ".lock")
        self._file: Any = None

    def acquire(self, url: str) -> str | None:
        """Take the lock; None when taken, else who holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        handle = os.fdopen(fd, "r+b")
        try:
            if sys.platform == "win32":
                import msvcrt

                msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = handle.read(200).decode("utf-8", "replace").strip()
            handle.close()
            return holder or "another process"
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}, {url}".encode())
        handle.flush()
        self._file = handle
        return None

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.seek(0)
                self._file.truncate()
            self._file.close()
            self._file = None


def listen_problem(host: str, port: int, exc: OSError) -> str:
    """What to do when the server cannot listen; cheroot folds the errno into its message, so read both."""
    text = str(exc)
    in_use = exc.errno in (errno.EADDRINUSE, 10048) or "in use" in text.lower() or "Errno 98]" in text
    if in_use:
        return (
            f"port {port} is in use (by another program, or Becher is running already); "
            "choose another port with --port."
        )
    if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, 10013) or "Errno 13]" in text:
        return f"this user may not listen on port {port} ({text}); choose a port above 1023 with --port."
    if exc.filename is not None or "tls" in text.lower() or "certificate" in text.lower():
        return f"cannot make or read the HTTPS certificate ({text}); check the data folder or start without --https."
    return (
        f"cannot listen on {host}:{port} ({text}); check --host (an address of this machine, or 0.0.0.0 for all "
        "of them) and --port."
    )


def qr_lines(url: str) -> list[str]:
    """The QR code as half-block characters that name both colours (ANSI): dark modules black, light ones white,
    whatever the terminal's own theme. Uncoloured blocks (segno's compact output) come out inverted on a light
    terminal, such as macOS's default, and phone cameras often fail to read inverted codes."""
    rows = [list(row) for row in segno.make(url, error="m").matrix_iter(scale=1, border=4)]
    if len(rows) % 2:
        rows.append([0] * len(rows[0]))
    lines = []
    for top, bottom in zip(rows[::2], rows[1::2], strict=True):
        cells = "".join(f"\x1b[{30 if t else 97};{40 if b else 107}m\u2580" for t, b in zip(top, bottom, strict=True))
        lines.append(cells + "\x1b[0m")
    return lines


def print_qr(url: str) -> None:
    out = sys.stdout
    if os.name != "nt" and out.isatty():
        print("\n".join(qr_lines(url)), flush=True)
    elif os.name == "nt":  # segno colours the Windows console through its own API
        segno.make(url, error="m").terminal()
    else:  # a log file or pipe: no colours to count on
        segno.make(url, error="m").terminal(compact=True)


def is_loopback(host: str) -> bool:
    """Whether an address or name is this machine's loopback (127.x, ::1, localhost): no phone reaches it."""
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def loopback_warning(host: str, shown: str, port: int, https: bool, db: str | None = None) -> str | None:
    """Why phones cannot open the printed address, and what to run instead; None when they can.

    A server on loopback (``--host 127.0.0.1``) answers this machine only; one on every address whose machine has
    no network (``public_host`` fell back to 127.0.0.1) can be reached once the machine joins the table's Wi-Fi.
    """
    if not is_loopback(shown):
        return None
    if host in ("0.0.0.0", "::", ""):
        return (
            "Warning: this machine has no network address, so phones cannot open the link or the code above. "
            "Connect it to the same Wi-Fi as the phones and start Becher again."
        )
    command = "becher serve --host 0.0.0.0" + ("" if port == 8000 else f" --port {port}")
    command += (" --https" if https else "") + (f" --db {shlex.quote(db)}" if db else "")
    return (
        f"Warning: phones cannot open the link or the code above: Becher listens on {host}, which only this "
        f"machine can reach. To play with phones, stop it (Ctrl+C) and start it with: {command}"
    )


def print_banner(url: str, https: bool, database: str, warning: str | None = None) -> None:
    print(f"Becher is running. Open {url} on the tablet; phones can scan this code:", flush=True)
    with contextlib.suppress(UnicodeEncodeError, OSError):  # a console that cannot draw blocks: the URL is enough
        print_qr(url)
    if warning:
        print(warning, flush=True)
    if https:
        print("The certificate is self-signed: each device asks once to trust it.", flush=True)
    print(f"Games are kept in {database}. Stop with Ctrl+C.", flush=True)


HOST_HEADER = re.compile(r"^[A-Za-z0-9.\-\[\]:]{1,255}$")
REQUEST_LINE = re.compile(r"^[A-Z]{3,7} (/[\x21-\x7e]*) HTTP/1\.[01]$")


def plain_reply(head: bytes) -> bytes:
    """The answer to a plain HTTP request on the HTTPS port: a redirect to the same path over HTTPS.

    Someone types the address without "https://" and the browser tries http first: without this, the TLS handshake
    fails on the request's bytes and the browser shows a reset connection.
    """
    lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    request = REQUEST_LINE.match(lines[0]) if lines else None
    host = next((v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:]) if k.strip().lower() == "host"), "")
    if request and HOST_HEADER.match(host):
        location = f"https://{host}{request.group(1)}"
        link = html.escape(location)
        body = f'<!doctype html><title>Becher</title><p>Becher speaks HTTPS here: <a href="{link}">{link}</a>'
        reply = (
            "HTTP/1.1 301 Moved Permanently\r\n"
            f"Location: {location}\r\n"
            "Content-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}"
        )
    else:
        body = "Becher speaks HTTPS on this port: open the address with https:// in front."
        reply = (
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}"
        )
    return reply.encode("latin-1")


def serve(args: argparse.Namespace) -> int:
    memory.bound_malloc()  # before any thread of the server starts (web/memory.py)
    host: str = args.host
    port: int = args.port
    https: bool = bool(getattr(args, "https", False))
    if not 0 <= port <= 65535:
        print(f"becher: --port {port} is not a port; use 1 to 65535 (0: any free one).", file=sys.stderr)
        return 2
    folder = data_dir()
    database = str(Path(args.db).expanduser().resolve()) if args.db else str(folder / "becher.sqlite3")
    shown = public_host(host)
    url = url_for(shown, port, https)
    if not args.db:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.name != "nt":  # Becher's own folder (games, certificate, camera profiles): its user's alone
            with contextlib.suppress(OSError):
                folder.chmod(0o700)
    lock = DatabaseLock(database)
    try:
        holder = lock.acquire(url)
    except OSError as exc:
        print(f"becher: cannot use the database {database}: {exc}", file=sys.stderr)
        return 1
    if holder is not None:
        print(
            f"becher: another Becher server is using {database} already ({holder}); stop it first, or start this "
            "one with another file with --db.",
            file=sys.stderr,
        )
        return 1
    try:
        return _serve(args, app_config(database, url, args, https), host, port, shown, https, folder, database)
    finally:
        lock.release()


def app_config(database: str, url: str, args: argparse.Namespace, https: bool) -> dict[str, Any]:
    return {
        "DATABASE": database,
        "CAMERA": args.camera,
        "HTTPS": https,
        "LOCAL_IS_OWNER": True,
        "PUBLIC_URL": url.rstrip("/"),
    }


def _serve(
    args: argparse.Namespace,
    config: dict[str, Any],
    host: str,
    port: int,
    shown: str,
    https: bool,
    folder: Path,
    database: str,
) -> int:
    url = config["PUBLIC_URL"] + "/"
    try:
        app = create_app(config)
    except Unusable as exc:
        print(f"becher: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"becher: cannot open the database {database}: {exc}", file=sys.stderr)
        return 1
    server = wsgi.Server(
        (host, port), app, numthreads=THREADS, server_name="becher", request_queue_size=64, shutdown_timeout=2
    )
    try:
        if https:
            cert, key = ensure_certificate(folder / "tls", [shown])
            server.ssl_adapter = BuiltinSSLAdapter(str(cert), str(key))
        server.prepare()
        gate.install(server, plain_reply)
    except OSError as exc:
        print(f"becher: {listen_problem(host, port, exc)}", file=sys.stderr)
        app.extensions["becher.shutdown"]()
        app.extensions["becher.store"].close()
        return 1
    if port == 0:  # the system chose a free port: show that one
        port = int(server.bind_addr[1])
        url = url_for(shown, port, https)
        app.config["PUBLIC_URL"] = url.rstrip("/")
    print_banner(url, https, database, loopback_warning(host, shown, port, https, args.db))
    app.extensions["becher.readers"].run(photos.warm_up)
    from web.stats import warm_digests

    threading.Thread(target=warm_digests, args=(app.extensions["becher.store"],), daemon=True).start()

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, stop)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        app.extensions["becher.shutdown"]()
        server.stop()
        app.extensions["becher.store"].close()
    print("Becher has stopped; every game is saved.", flush=True)
    return 0
