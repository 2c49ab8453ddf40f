"""A real S3 server (SeaweedFS, started once per test session on 127.0.0.1 and stopped by its
session id) and a fresh bucket per test with the ``AWS_*`` variables that point at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fivehundred.pipelines.loopback import S3Server, s3_server


@pytest.fixture(scope="session")
def s3_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """One SeaweedFS server for the session (each pytest-xdist worker starts its own)."""
    with s3_server(Path(tmp_path_factory.mktemp("s3"))) as server:
        yield server


@pytest.fixture
def s3(s3_service: S3Server, monkeypatch: pytest.MonkeyPatch) -> str:
    """``s3://BUCKET`` of a fresh bucket; the endpoint and credentials are in the environment, as a
    user sets them (``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``)."""
    for key, value in s3_service.env().items():
        monkeypatch.setenv(key, value)
    return f"s3://{s3_service.bucket()}"
