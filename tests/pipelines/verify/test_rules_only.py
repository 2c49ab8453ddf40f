"""``verify --rules-only``: a log of legal games that another program wrote verifies clean; every kind
of broken rule in it is still caught; the seed and manifest checks are what it leaves out."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.pipelines.schema import CORE_COLUMNS
from fivehundred.pipelines.verify import RunError, verify_run
from fivehundred.sim import load_rules, play_game
from fivehundred.strategies import make

runner = CliRunner()


def _foreign_log(path: Path, variant: str = "pagat-au", games: int = 30) -> Path:
    """Legal games re-encoded as another tool would write them: only the core columns, its own run
    id, seeds that are not ours (a counter), schema_version 1, no manifest, one part file."""
    rules = load_rules(variant)
    bots = [make("random(pass_probability=0.5,max_raise=3)")] * rules.players
    rows = []
    for g in range(games):
        rows += play_game(rules, bots, 2024, g)
    for i, r in enumerate(rows):
        r.update(schema_version=1, run_id="other-tool-run", deal_id=i, seed=1000 + 7 * i)
    df = pl.DataFrame([{c: r[c] for c in CORE_COLUMNS} for r in rows])
    (path / "deals").mkdir(parents=True)
    df.write_parquet(path / "deals" / "their-log.parquet")
    return path


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _foreign_log(tmp_path_factory.mktemp("foreign") / "log")


def _edited(src: Path, tmp_path: Path, edit: object) -> Path:
    df = pl.read_parquet(str(src / "deals" / "*.parquet"))
    df = edit(df)  # type: ignore[operator]
    dst = tmp_path / "edited"
    (dst / "deals").mkdir(parents=True)
    df.write_parquet(dst / "deals" / "part.parquet")
    return dst


def test_a_legal_foreign_log_verifies_clean(foreign: Path) -> None:
    result = verify_run(foreign, rules_only=True)
    assert result.ok, [str(f) for f in result.findings][:5]
    assert result.replayed == result.deals > 30 and result.rules_only
    assert "rules only" in result.summary()


def test_the_full_verify_refuses_what_rules_only_leaves_out(foreign: Path) -> None:
    kinds = {f.kind for f in verify_run(foreign).findings}
    assert kinds == {"dealt_cards", "schema"}  # cards not those of the seed; schema_version 1


def test_cli_rules_only_exit_status(foreign: Path) -> None:
    ok = runner.invoke(app, ["verify", "--rules-only", str(foreign)])
    assert ok.exit_code == 0, ok.output
    assert "OK" in ok.output
    full = runner.invoke(app, ["verify", str(foreign)])
    assert full.exit_code == 1


def test_rules_only_with_an_explicit_variant(
    foreign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    renamed = _edited(foreign, tmp_path, lambda df: df.with_columns(pl.lit("their-name").alias("variant")))
    with pytest.raises(RunError, match="their-name"):  # no rule set of that name: --variant says which
        verify_run(renamed, rules_only=True)
    assert verify_run(renamed, rules_only=True, variant="pagat-au").ok
    from fivehundred.cli.main import main

    argv = ["fivehundred", "verify", "--rules-only", "--variant", "nope", str(renamed)]
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as exit_info:
        main()
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1
    assert err.startswith("error: unknown variant 'nope'")


def _set_list(df: pl.DataFrame, deal: int, col: str, fn: object) -> pl.DataFrame:
    values = df[col].to_list()
    values[deal] = fn(values[deal])  # type: ignore[operator]
    return df.with_columns(pl.Series(col, values, dtype=df.schema[col]))


def _first(df: pl.DataFrame, cond: pl.Expr) -> int:
    return int(df.with_row_index("_i").filter(cond)["_i"][0])


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("card dealt twice", "dealt_cards"),
        ("card not in the deck", "dealt_cards"),
        ("short kitty", "dealt_cards"),
        ("call out of turn", "illegal_action"),
        ("discard not held", "illegal_action"),
        ("revoke", "illegal_action"),
        ("wrong trick winner", "tricks"),
        ("wrong score", "score"),
        ("game goes on after its end", "game_end"),
        ("dealer does not rotate", "dealer_rotation"),
    ],
)
def test_rules_only_still_catches_broken_rules(foreign: Path, tmp_path: Path, name: str, kind: str) -> None:
    df = pl.read_parquet(str(foreign / "deals" / "*.parquet"))
    played = _first(df, pl.col("contract").is_not_null() & (pl.col("hand_no") > 0))
    if name == "card dealt twice":
        edit = _set_list(df, played, "hands", lambda h: [h[0], [h[0][0], *h[1][1:]], *h[2:]])
    elif name == "card not in the deck":
        edit = _set_list(df, played, "kitty", lambda k: ["4S", *k[1:]])
    elif name == "short kitty":
        edit = _set_list(df, played, "kitty", lambda k: k[:-1])
    elif name == "call out of turn":
        edit = _set_list(df, played, "bids", lambda b: ["10NT", "10NT", *b[2:]])
    elif name == "discard not held":
        row = df.row(played, named=True)
        mine = set(row["hands"][row["declarer"]]) | set(row["kitty"])
        other = next(c for h in row["hands"] for c in h if c not in mine)
        edit = _set_list(df, played, "discards", lambda d: [other, *d[1:]])
    elif name == "revoke":
        row = df.row(played, named=True)
        edit = _set_list(df, played, "plays", lambda p: [p[1], p[0], *p[2:]])
        kind = "illegal_action"
        assert row["plays"][0] != row["plays"][1]
    elif name == "wrong trick winner":
        edit = _set_list(df, played, "trick_winners", lambda w: [(w[0] + 1) % 4, *w[1:]])
    elif name == "wrong score":
        edit = _set_list(df, played, "score_delta", lambda d: [d[0] + 10, *d[1:]])
    elif name == "game goes on after its end":
        last = _first(df, pl.col("game_over"))
        edit = df.with_columns(
            pl.when(pl.int_range(pl.len()) == last)
            .then(False)
            .otherwise(pl.col("game_over"))
            .alias("game_over")
        )
    else:
        edit = df.with_columns(
            pl.when(pl.int_range(pl.len()) == played)
            .then((pl.col("dealer") + 2) % 4)
            .otherwise(pl.col("dealer"))
            .alias("dealer")
        )
    dst = tmp_path / "edited"
    (dst / "deals").mkdir(parents=True)
    edit.write_parquet(dst / "deals" / "part.parquet")
    result = verify_run(dst, rules_only=True)
    assert kind in {f.kind for f in result.findings}, (name, [str(f) for f in result.findings])
    assert not result.ok
