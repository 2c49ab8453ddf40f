"""One driver per run on an object store: a lease object taken with S3's conditional writes.

On a local or shared POSIX folder :meth:`pipelines.rundir.RunDir.lock` uses ``flock``.  An object
store has no locks, but S3 (and S3-compatible servers such as SeaweedFS and MinIO) honour
conditional writes: ``PUT RUN/.lock`` with ``If-None-Match: *`` succeeds for exactly one writer and
answers ``412 Precondition Failed`` to every other.  The object is a lease: its holder rewrites it
every :data:`RENEW` seconds (``If-Match`` its ETag, so a lease taken over is never overwritten), and
a lease not renewed for its ``lease`` seconds (the server's own clock: ``Last-Modified`` against
``Date``) may be taken over by another driver (again ``If-Match``: one of several racing drivers wins).
A lease left by a driver that was killed on this machine is taken over at once (its process is gone).

pyarrow cannot send conditional headers, so this module signs its few requests itself (AWS
Signature Version 4) with the credentials pyarrow would use from the environment or the shared
credentials file (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN``, else
``AWS_PROFILE`` in ``~/.aws/credentials``), and the endpoint of the URI's ``endpoint_override``, or
``AWS_ENDPOINT_URL_S3``/``AWS_ENDPOINT_URL``, or AWS itself.  Where that is not possible (GCS,
Azure, credentials from an instance profile or SSO) :func:`lock_note` says so in one line: the run
is written without a lock, and the user must make sure one driver writes to it.
"""

from __future__ import annotations

import configparser
import contextlib
import datetime as dt
import email.utils
import hashlib
import hmac
import json
import os
import secrets
import socket
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from fivehundred.sim.errors import UserError

#: Seconds a lease lasts without renewal before another driver may take it over.
LEASE = 60
#: Seconds between two renewals by the holder.
RENEW = 15
LOCK_OBJECT = ".lock"


class LockHeld(UserError, OSError):
    """Another driver holds the run's lease."""


@dataclass(frozen=True)
class Credentials:
    """An access key pair (and session token) for signing."""

    access_key: str
    secret_key: str
    token: str | None = None


@dataclass(frozen=True)
class Target:
    """Where an S3 run lives: the object URL of its lock, the region, the credentials."""

    url: str
    region: str
    credentials: Credentials


def _query(uri: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(uri).query).items()}


def credentials(query: dict[str, str] | None = None) -> Credentials | None:
    """The credentials pyarrow would find in the URI, the environment or the shared credentials file."""
    q = query or {}
    if q.get("access_key") and q.get("secret_key"):
        return Credentials(q["access_key"], q["secret_key"], q.get("session_token"))
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        return Credentials(key, secret, os.environ.get("AWS_SESSION_TOKEN"))
    path = os.environ.get("AWS_SHARED_CREDENTIALS_FILE") or os.path.expanduser("~/.aws/credentials")
    profile = os.environ.get("AWS_PROFILE") or "default"
    parser = configparser.ConfigParser()
    try:
        parser.read(path)
    except configparser.Error:
        return None
    if parser.has_option(profile, "aws_access_key_id") and parser.has_option(
        profile, "aws_secret_access_key"
    ):
        token = parser.get(profile, "aws_session_token", fallback=None)
        return Credentials(
            parser.get(profile, "aws_access_key_id"), parser.get(profile, "aws_secret_access_key"), token
        )
    return None


def target(location: str) -> Target | str:
    """The lock object of an ``s3://`` run, or one line saying why no atomic lock can be taken."""
    parts = urlsplit(location)
    if parts.scheme != "s3":
        return f"{parts.scheme}:// stores get no conditional-write lock here"
    q = _query(location)
    creds = credentials(q)
    if creds is None:
        return (
            "no S3 credentials in the URI, the environment or the shared credentials file: "
            "an instance profile or SSO cannot sign the lock's conditional write"
        )
    bucket, key = parts.netloc, parts.path.strip("/")
    key = f"{key}/{LOCK_OBJECT}" if key else LOCK_OBJECT
    region = (
        q.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    )
    endpoint = (
        q.get("endpoint_override")
        or os.environ.get("AWS_ENDPOINT_URL_S3")
        or os.environ.get("AWS_ENDPOINT_URL")
    )
    if endpoint:
        if "://" not in endpoint:
            endpoint = f"{q.get('scheme', 'https')}://{endpoint}"
        url = f"{endpoint.rstrip('/')}/{bucket}/{key}"  # path style, as pyarrow uses with an endpoint
    else:
        url = f"https://{bucket}.s3.{region}.amazonaws.com/{key}"
    return Target(url, region, creds)


def lock_note(location: str) -> str | None:
    """One line when a run at ``location`` on an object store cannot be locked atomically (what the
    user must do instead), else ``None`` (a local folder, or an S3 run whose lock can be signed)."""
    if "://" not in location or location.startswith("file://"):
        return None
    why = target(location)
    if isinstance(why, Target):
        return None
    where = location.partition("?")[0]
    return f"{where}: no lock against a second driver ({why}); make sure only one command writes to this run"


# ------------------------------------------------------------------------------------------- SigV4


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signed_request(
    t: Target, method: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> urllib.request.Request:
    """A request to the lock object signed with AWS Signature Version 4 (service ``s3``)."""
    parts = urlsplit(t.url)
    now = dt.datetime.now(dt.UTC)
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    day = stamp[:8]
    payload = hashlib.sha256(body).hexdigest()
    h = {k.lower(): v for k, v in (headers or {}).items()}
    h.update({"host": parts.netloc, "x-amz-date": stamp, "x-amz-content-sha256": payload})
    if t.credentials.token:
        h["x-amz-security-token"] = t.credentials.token
    names = sorted(h)
    canonical = "\n".join(
        [
            method,
            quote(parts.path or "/", safe="/~"),
            "",
            "".join(f"{k}:{' '.join(str(h[k]).split())}\n" for k in names),
            ";".join(names),
            payload,
        ]
    )
    scope = f"{day}/{t.region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(f"AWS4{t.credentials.secret_key}".encode(), day)
    for part in (t.region, "s3", "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    h["authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={t.credentials.access_key}/{scope}, "
        f"SignedHeaders={';'.join(names)}, Signature={signature}"
    )
    del h["host"]
    return urllib.request.Request(t.url, data=body if method == "PUT" else None, method=method, headers=h)


@dataclass(frozen=True)
class Reply:
    """An answer of the store: status, ETag, body, and the server's clock (Date, Last-Modified)."""

    status: int
    etag: str | None
    body: bytes
    age: float | None  # seconds since the object was last written, by the server's clock


def _send(t: Target, method: str, body: bytes = b"", headers: dict[str, str] | None = None) -> Reply:
    req = signed_request(t, method, body, headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, head, data = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as exc:
        status, head, data = exc.code, exc.headers, exc.read()
    except OSError as exc:
        raise OSError(f"{t.url}: cannot reach the store for the run's lock ({exc})") from None
    age = None
    with contextlib.suppress(TypeError, ValueError):
        now = email.utils.parsedate_to_datetime(head.get("Date"))
        then = email.utils.parsedate_to_datetime(head.get("Last-Modified"))
        age = (now - then).total_seconds()
    return Reply(status, head.get("ETag"), data, age)


def _holder_text(info: dict[str, Any]) -> str:
    return f"host {info.get('host', '?')}, pid {info.get('pid', '?')}"


def _this_boot() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _process_start(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _gone(info: dict[str, Any]) -> bool:
    """Whether the lease's holder was a process of this machine (this boot) that no longer runs."""
    if info.get("host") != socket.gethostname() or info.get("boot") != _this_boot() or not _this_boot():
        return False
    pid = info.get("pid")
    return isinstance(pid, int) and _process_start(pid) != info.get("start")


class StoreLock:
    """The lease on ``RUN/.lock`` of an S3 run (module docstring): :meth:`acquire`, then :meth:`release`."""

    def __init__(self, t: Target, display: str, lease: int = LEASE) -> None:
        self.t, self.display, self.lease = t, display, lease
        self.etag: str | None = None
        self.lost = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        pid = os.getpid()
        self.body = json.dumps(
            {
                "host": socket.gethostname(),
                "boot": _this_boot(),
                "pid": pid,
                "start": _process_start(pid),
                "lease": lease,
                "token": secrets.token_hex(8),
            },
            sort_keys=True,
        ).encode()

    def acquire(self) -> None:
        """Take the lease, or raise :class:`LockHeld` naming the holder and what to do."""
        reply = _send(self.t, "PUT", self.body, {"If-None-Match": "*"})
        if reply.status in (409, 412):
            reply = self._take_over()
        if reply.status >= 300:
            raise OSError(
                f"{self.display}: cannot take the run's lock (HTTP {reply.status}: {reply.body[:200]!r})"
            )
        self.etag = reply.etag
        self._thread = threading.Thread(target=self._renew, name="fivehundred-lease", daemon=True)
        self._thread.start()

    def _take_over(self) -> Reply:
        held = _send(self.t, "GET")
        if held.status == 404:  # released meanwhile
            return _send(self.t, "PUT", self.body, {"If-None-Match": "*"})
        try:
            info = json.loads(held.body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            info = {}
        lease = info.get("lease") if isinstance(info.get("lease"), int | float) else LEASE
        stale = held.age is not None and held.age > lease
        if not (stale or _gone(info)) or held.etag is None:
            age = f"renewed {held.age:.0f} s ago" if held.age is not None else "of unknown age"
            raise LockHeld(
                f"{self.display}: another driver is writing this run ({_holder_text(info)}, lease {age}); "
                f"wait for it, or once it is gone for {lease:.0f} s run the same command again"
            )
        reply = _send(self.t, "PUT", self.body, {"If-Match": held.etag})
        if reply.status in (409, 412):  # another driver took it over first
            raise LockHeld(f"{self.display}: another driver took over this run's lock just now")
        return reply

    def _renew(self) -> None:
        while not self._stop.wait(RENEW):
            try:
                reply = _send(self.t, "PUT", self.body, {"If-Match": self.etag or "*"})
            except OSError:
                continue  # a passing fault: the lease lasts LEASE seconds, time enough to retry
            if reply.status < 300:
                self.etag = reply.etag
            elif reply.status in (404, 409, 412):
                self.lost = True
                return

    def release(self) -> None:
        """Stop renewing and delete the lease (only while it is still ours)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.etag is not None and not self.lost:
            with contextlib.suppress(OSError):
                _send(self.t, "DELETE", headers={"If-Match": self.etag})
        self.etag = None
