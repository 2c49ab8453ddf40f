"""The cluster configs shipped in configs/cluster/ (docs/cluster.md) load, and what they run parses."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer
import yaml

from fivehundred.cli.main import app
from fivehundred.pipelines.runconfig import load_config
from fivehundred.pipelines.rundir import is_store

CONFIGS = Path(__file__).resolve().parents[3] / "configs" / "cluster"


def simulate_params(line: str) -> dict:
    """The parameters ``fivehundred simulate`` parses from a command line (nothing is run)."""
    words = shlex.split(line)
    assert words[:2] == ["fivehundred", "simulate"], line
    command = typer.main.get_command(app).commands["simulate"]  # type: ignore[attr-defined]
    return command.make_context("simulate", words[2:]).params


def test_the_ray_cluster_launcher_config_installs_the_project_and_starts_every_node_with_a_token() -> None:
    cfg = yaml.safe_load((CONFIGS / "launcher.yaml").read_text())
    assert cfg["provider"]["type"] in ("aws", "gcp", "azure") and cfg["cluster_name"]
    types = cfg["available_node_types"]
    assert cfg["head_node_type"] in types and types[cfg["head_node_type"]]["resources"] == {"CPU": 0}
    workers = [t for name, t in types.items() if name != cfg["head_node_type"]]
    assert workers and all(w["min_workers"] >= 1 and w["max_workers"] <= cfg["max_workers"] for w in workers)
    mount = next(k for k, v in cfg["file_mounts"].items() if v == ".")
    assert any(c.endswith(f"pip install {mount}") for c in cfg["setup_commands"])  # the project on each node
    head, workers_start = cfg["head_start_ray_commands"], cfg["worker_start_ray_commands"]
    assert all("ray stop" not in c for c in [*head, *workers_start])
    port = next(w.split("=")[1] for c in head for w in c.split() if w.startswith("--port="))
    assert all(f":{port}" in c and "RAY_AUTH_MODE=token" in c for c in workers_start)
    assert any(k.endswith(".ray/auth_token") for k in cfg["file_mounts"])  # one token on every node


def test_the_kuberay_rayjob_runs_a_simulation_that_parses_and_writes_to_the_store() -> None:
    job = yaml.safe_load((CONFIGS / "rayjob.yaml").read_text())
    assert job["apiVersion"] == "ray.io/v1" and job["kind"] == "RayJob"
    spec = job["spec"]
    params = simulate_params(spec["entrypoint"])
    assert params["address"] == "auto" and is_store(params["out"]) and params["out"].startswith("s3://")
    cfg = load_config(None, **{k: v for k, v in params.items() if k not in ("config", "overwrite")})
    assert cfg.deals == 1_000_000 and cfg.out == params["out"]
    cluster = spec["rayClusterSpec"]
    assert cluster["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    for group in [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]:
        [container] = group["template"]["spec"]["containers"]
        assert container["image"] and {"secretRef": {"name": "fivehundred-s3"}} in container["envFrom"]
