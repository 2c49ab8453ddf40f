"""``replay`` and ``verify``: a real log is accepted; edited logs are rejected with the deal id."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.pipelines.schema import records_to_table
from fivehundred.pipelines.verify import RunError, replay_deal, verify_run
from fivehundred.sim import available_variants, load_rules, play_game
from fivehundred.sim.engine import PASS, State, parse_action
from fivehundred.strategies import make
from tests.cli.helpers import in_process

MASTER = 7
runner = CliRunner()


def _write_run(path: Path, games: int = 60, manifest: bool = True, variant: str = "pagat-au") -> Path:
    rules = load_rules(variant)
    # Tamed random bidding, so that games last several deals (uniform bids end most games at once).
    bots = [make("random(pass_probability=0.5,max_raise=3)")] * rules.players
    records = []
    for g in range(games):
        records += play_game(rules, bots, MASTER, g)
    (path / "deals").mkdir(parents=True)
    # Two part files, split on a game boundary, as the simulate pipeline writes chunks of whole games.
    half = next(i for i, r in enumerate(records) if r["game_id"] == games // 2)
    pq.write_table(records_to_table(records[:half], "t", 0), path / "deals" / "part-00000.parquet")
    pq.write_table(records_to_table(records[half:], "t", half), path / "deals" / "part-00001.parquet")
    if manifest:
        (path / "manifest.json").write_text(json.dumps({"run_id": "t", "seed": MASTER, "variant": variant}))
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_run(tmp_path_factory.mktemp("run") / "run")


def _log(run: Path) -> pl.DataFrame:
    return pl.read_parquet(str(run / "deals" / "*.parquet"))


def _rewrite(run: Path, df: pl.DataFrame) -> None:
    """Replace the run's part files with one file holding ``df`` (core schema kept)."""
    for f in (run / "deals").glob("*.parquet"):
        f.unlink()
    df.write_parquet(run / "deals" / "part-00000.parquet")


def _copy(run_dir: Path, tmp_path: Path) -> tuple[Path, pl.DataFrame]:
    dst = tmp_path / "edited"
    (dst / "deals").mkdir(parents=True)
    (dst / "manifest.json").write_text((run_dir / "manifest.json").read_text())
    df = _log(run_dir)
    return dst, df


def _set(df: pl.DataFrame, deal_id: int, column: str, value: object) -> pl.DataFrame:
    dtype = df.schema[column]
    return df.with_columns(
        pl.when(pl.col("deal_id") == deal_id)
        .then(pl.lit(value, dtype=dtype))
        .otherwise(pl.col(column))
        .alias(column)
    )


def test_verify_accepts_a_real_run(run_dir: Path) -> None:
    result = verify_run(run_dir)
    assert result.ok, [str(f) for f in result.findings]
    assert result.deals == _log(run_dir).height
    assert result.replayed == result.deals
    assert result.games == 60
    assert result.master_seed == MASTER
    out = runner.invoke(app, ["verify", str(run_dir)])
    assert out.exit_code == 0, out.output
    assert "OK" in out.output and "deals/s" in out.output


def test_verify_without_manifest_uses_the_variant_column(tmp_path: Path) -> None:
    run = _write_run(tmp_path / "r", games=10, manifest=False, variant="north-american")
    result = verify_run(run)
    assert result.ok, [str(f) for f in result.findings]
    assert result.master_seed is None and result.rules == "north-american"


def _a_played_deal(df: pl.DataFrame) -> dict:
    """The first deal with a non-misère contract."""
    for row in df.filter(pl.col("contract").is_not_null()).sort("deal_id").iter_rows(named=True):
        if row["contract"] in ("MIS", "OMIS"):
            continue
        return row
    raise AssertionError("no contract in the test log")


def test_verify_rejects_an_illegal_play(run_dir: Path, tmp_path: Path) -> None:
    dst, df = _copy(run_dir, tmp_path)
    row = _a_played_deal(df)
    plays = list(row["plays"])
    # The declarer leads the first trick; make the second player play the leader's card again.
    plays[1] = plays[0]
    _rewrite(dst, _set(df, row["deal_id"], "plays", plays))
    result = verify_run(dst)
    assert not result.ok
    kinds = {(f.deal_id, f.kind) for f in result.findings}
    assert (row["deal_id"], "illegal_action") in kinds
    assert all(f.deal_id == row["deal_id"] for f in result.findings)
    out = runner.invoke(app, ["verify", str(dst)])
    assert out.exit_code == 1
    assert f"deal {row['deal_id']}: illegal_action: trick 1: " in out.output


def test_verify_rejects_a_revoke(run_dir: Path, tmp_path: Path) -> None:
    """Swapping two cards of a trick between players who could follow makes someone revoke."""
    dst, df = _copy(run_dir, tmp_path)
    rules = load_rules("pagat-au")
    target = None
    suit_contracts = df.filter(pl.col("contract").str.contains(r"^\d+[SCDH]$"))
    for row in suit_contracts.sort("deal_id").iter_rows(named=True):
        # Find a play that is not the only legal card, and replace it with another card in the hand
        # that is illegal (a revoke): a card of another suit while holding the suit led.
        st = State(
            rules, [rules.deck.mask(h) for h in row["hands"]], rules.deck.mask(row["kitty"]), row["dealer"]
        )
        for call in row["bids"]:
            st.apply(parse_action(rules, call, 0))
        for d in row["discards"]:
            st.apply(rules.deck.card(d))
        for i, card in enumerate(row["plays"]):
            legal = set(st.legal_actions())
            hand = [c for c in range(rules.deck.size) if st.hands[st.turn] >> c & 1]
            illegal = [c for c in hand if c not in legal]
            if st.trick and illegal:
                target = (row, i, rules.deck.names[illegal[0]])
                break
            st.apply(parse_action(rules, card, 3))
        if target:
            break
    assert target is not None
    row, i, bad = target
    plays = list(row["plays"])
    plays[i] = bad
    _rewrite(dst, _set(df, row["deal_id"], "plays", plays))
    result = verify_run(dst)
    assert [(f.deal_id, f.kind) for f in result.findings] == [(row["deal_id"], "illegal_action")]
    assert f"{bad!r} may not be played by seat" in result.findings[0].message


def test_verify_rejects_a_wrong_score(run_dir: Path, tmp_path: Path) -> None:
    dst, df = _copy(run_dir, tmp_path)
    row = _a_played_deal(df)
    delta = list(row["score_delta"])
    delta[0] += 10
    _rewrite(dst, _set(df, row["deal_id"], "score_delta", delta))
    result = verify_run(dst)
    assert [(f.deal_id, f.kind) for f in result.findings] == [(row["deal_id"], "score")]
    assert "score_delta" in result.findings[0].message
    out = runner.invoke(app, ["verify", str(dst), "--max-findings", "1"])
    assert out.exit_code == 1 and f"deal {row['deal_id']}: score: score_delta" in out.output


def test_verify_rejects_a_wrong_running_total(run_dir: Path, tmp_path: Path) -> None:
    dst, df = _copy(run_dir, tmp_path)
    row = df.filter(~pl.col("game_over")).sort("deal_id").row(0, named=True)
    after = [a + 100 for a in row["score_after"]]
    _rewrite(dst, _set(df, row["deal_id"], "score_after", after))
    result = verify_run(dst)
    found = {(f.deal_id, f.kind) for f in result.findings}
    assert (row["deal_id"], "score") in found
    # The next hand of the game no longer adds up from the logged total either.
    nxt = df.filter((pl.col("game_id") == row["game_id"]) & (pl.col("hand_no") == row["hand_no"] + 1))
    assert (nxt["deal_id"][0], "score") in found


def test_verify_rejects_a_broken_dealer_rotation(run_dir: Path, tmp_path: Path) -> None:
    dst, df = _copy(run_dir, tmp_path)
    row = df.filter(pl.col("hand_no") == 1).sort("deal_id").row(0, named=True)
    bad = (row["dealer"] + 2) % 4
    _rewrite(dst, _set(df, row["deal_id"], "dealer", bad))
    result = verify_run(dst)
    assert not result.ok
    rot = [f for f in result.findings if f.kind == "dealer_rotation"]
    nxt = df.filter((pl.col("game_id") == row["game_id"]) & (pl.col("hand_no") == 2))["deal_id"].to_list()
    assert any(f.deal_id == row["deal_id"] and f"dealer {bad} after dealer" in f.message for f in rot)
    # Only the edited deal and the hand after it (whose predecessor is now wrong) are flagged.
    assert {f.deal_id for f in result.findings} <= {row["deal_id"], *nxt}


def test_verify_rejects_changed_cards_and_duplicate_ids(run_dir: Path, tmp_path: Path) -> None:
    dst, df = _copy(run_dir, tmp_path)
    row = _a_played_deal(df)
    hands = [list(h) for h in row["hands"]]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    df = _set(df, row["deal_id"], "hands", hands)
    df = _set(df, 3, "deal_id", 2)
    _rewrite(dst, df)
    result = verify_run(dst)
    found = {(f.deal_id, f.kind) for f in result.findings}
    assert (row["deal_id"], "dealt_cards") in found
    assert (2, "deal_ids") in found
    assert (None, "deal_ids") in found  # id 3 is now missing


def test_verify_rejects_a_log_of_other_rules(tmp_path: Path) -> None:
    """A north-american log checked as pagat-au: the manifest's rules disagree with the plays."""
    run = _write_run(tmp_path / "r", games=30, variant="north-american")
    (run / "manifest.json").write_text(json.dumps({"seed": MASTER, "variant": "pagat-au"}))
    result = verify_run(run)
    assert not result.ok
    assert any(f.kind == "schema" and f.deal_id is None for f in result.findings)


def test_replay_shows_the_deal(run_dir: Path) -> None:
    df = _log(run_dir)
    row = _a_played_deal(df)
    rep = replay_deal(run_dir, row["deal_id"])
    assert rep.problem is None
    assert rep.contract == row["contract"] and rep.declarer == row["declarer"]
    assert [t.winner for t in rep.tricks] == list(row["trick_winners"])
    assert [c for t in rep.tricks for _, c in t.cards] == list(row["plays"])
    assert rep.tricks[0].leader == row["declarer"]
    for prev, t in zip(rep.tricks, rep.tricks[1:], strict=False):
        assert t.leader == prev.winner
    assert rep.auction[0][0] == (row["dealer"] + 1) % 4
    assert [c for _, c in rep.auction] == list(row["bids"])
    out = runner.invoke(app, ["replay", str(run_dir), str(row["deal_id"])])
    assert out.exit_code == 0, out.output
    text = out.output
    assert f"Contract: {row['contract']} by seat {row['declarer']}" in text
    assert "kitty: " + " ".join(row["kitty"]) in text
    assert "Discards: " + " ".join(row["discards"]) in text
    assert text.count("won by seat") == len(row["trick_winners"])
    assert "Score: team 0 " in text


class _Passer:
    """Passes every auction (other phases never come)."""

    name = "passer.v1"

    def bid(self, view: object, legal: list[int], rng: object) -> int:
        return PASS

    def discard(self, view: object, legal: list[int], rng: object) -> int:
        raise AssertionError("no contract, no discard")

    name_joker = play = discard


def test_thrown_in_deals_and_manifest_rules(tmp_path: Path) -> None:
    """All-pass deals replay as thrown in; the manifest's full rules (with an override) are used."""
    rules = load_rules("pagat-au", {"game.deal_limit": 5})
    records = play_game(rules, [_Passer()] * 4, MASTER, 0)
    assert len(records) == 5 and records[-1]["end_reason"] == "deal_limit"
    run = tmp_path / "r"
    (run / "deals").mkdir(parents=True)
    pq.write_table(records_to_table(records, "p", 0), run / "deals" / "part-00000.parquet")
    (run / "manifest.json").write_text(json.dumps({"seed": MASTER, "rules": rules.as_dict()}))
    result = verify_run(run)
    assert result.ok, [str(f) for f in result.findings]
    rep = replay_deal(run, 2)
    assert rep.contract is None and not rep.tricks
    assert [c for _, c in rep.auction] == ["P"] * 4
    assert "thrown in" in rep.to_text()
    # Without the manifest's rules the default deal limit (200) says the game did not end at hand 4.
    (run / "manifest.json").write_text(json.dumps({"seed": MASTER}))
    result = verify_run(run)
    assert [(f.deal_id, f.kind) for f in result.findings] == [(4, "game_end")]


def test_missing_run_and_unknown_deal_are_one_line_errors(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(RunError, match="does not exist"):
        verify_run(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunError, match="no deal log"):
        verify_run(tmp_path / "empty")
    with pytest.raises(RunError, match="no deal with id 99999"):
        replay_deal(run_dir, 99999)


@pytest.mark.parametrize("variant", available_variants())
def test_verify_accepts_every_shipped_variant(variant: str, tmp_path: Path) -> None:
    run = _write_run(tmp_path / "r", games=12, variant=variant)
    result = verify_run(run)
    assert result.ok, [str(f) for f in result.findings[:5]]
    some = _log(run).filter(pl.col("contract").is_not_null())["deal_id"][0]
    rep = replay_deal(run, some)
    assert rep.problem is None and len(rep.hands) == load_rules(variant).players


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_cli_missing_run_is_one_line(command: str, tmp_path: Path) -> None:
    args = [command, str(tmp_path / "nope")] + (["3"] if command == "replay" else [])
    status, _, err = in_process(args)
    assert status == 2
    assert err == f"error: run directory {tmp_path / 'nope'} does not exist\n"


def test_verify_a_simulated_run_and_its_manifest(tmp_path: Path) -> None:
    """A run of the simulate pipeline verifies; a lost part file is caught through the manifest."""
    from fivehundred.pipelines.runconfig import make_config
    from fivehundred.pipelines.simulate import run_simulation

    run = tmp_path / "sim"
    config = make_config(
        {"strategies": "random", "seed": 9, "games": 60, "chunk_size": 20}, out=str(run), workers=0
    )
    run_simulation(config)
    result = verify_run(run)
    assert result.ok, [str(f) for f in result.findings[:5]]
    assert result.master_seed == 9 and result.games == 60
    parts = sorted((run / "deals").glob("*.parquet"))
    assert len(parts) == 3
    parts[-1].unlink()
    result = verify_run(run)
    messages = [f.message for f in result.findings if f.kind == "manifest"]
    assert "the manifest counts 60 games, the log has 40" in messages
    assert any(f"{parts[-1].name} listed in the manifest is missing" in m for m in messages)


def test_an_unreadable_part_file_is_named(run_dir: Path, tmp_path: Path) -> None:
    dst, df = _copy(run_dir, tmp_path)
    _rewrite(dst, df)
    (dst / "deals" / "part-00001.parquet").write_bytes(b"not parquet at all")
    for call in (lambda: verify_run(dst), lambda: replay_deal(dst, 0)):
        with pytest.raises(RunError, match=r"part-00001.parquet: not a readable Parquet part file"):
            call()


@pytest.fixture(scope="module")
def tournament_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small duplicate tournament: its rows carry a ``board`` column and the manifest a ``board_seed``."""
    from fivehundred.pipelines.tournament import run_tournament
    from fivehundred.pipelines.tournament.config import parse_config

    data = {
        "name": "verify-boards",
        "seed": 31,
        "entries": [{"name": "a", "strategy": "random"}, {"name": "b", "strategy": "random"}],
        "stop": {"rule": "fixed", "pairs": 3},
    }
    out = tmp_path_factory.mktemp("tour") / "t"
    run_tournament(parse_config(data, "test.toml"), out)
    return out


def test_verify_checks_tournament_rows_against_their_board(tournament_dir: Path, tmp_path: Path) -> None:
    from fivehundred.sim.game import new_deal

    result = verify_run(tournament_dir)
    assert result.ok, [str(f) for f in result.findings]
    assert result.board_seed == 31 and result.master_seed is None and "board seed 31" in result.summary()
    df = _log(tournament_dir)
    assert df["board"].n_unique() == 3
    # Re-deal one row from another board: its seed, dealer and cards agree with each other, so only the
    # board check can tell that this is not hand j of the row's board.
    rules = load_rules("pagat-au")
    row = df.filter((pl.col("board") == 1) & (pl.col("hand_no") == 0)).sort("deal_id").row(0, named=True)
    state, seed = new_deal(rules, 31, 7, 0)
    names = rules.deck.names
    fake = df
    for column, value in (
        ("seed", seed),
        ("dealer", state.dealer),
        ("hands", [[names[c] for c in range(rules.deck.size) if h >> c & 1] for h in state.dealt]),
        ("kitty", [names[c] for c in range(rules.deck.size) if state.kitty_dealt >> c & 1]),
    ):
        fake = _set(fake, row["deal_id"], column, value)
    dst = tmp_path / "edited"
    (dst / "deals").mkdir(parents=True)
    # The copy keeps the manifest's board seed and totals; its chunk files are not the original ones.
    manifest = json.loads((tournament_dir / "manifest.json").read_text())
    assert len(manifest["chunks"]) == 1 and manifest["totals"]["deals"] == df.height
    (dst / "manifest.json").write_text(json.dumps({**manifest, "chunks": []}))
    _rewrite(dst, fake)
    found = verify_run(dst)
    assert [(f.deal_id, f.kind) for f in found.findings] == [(row["deal_id"], "seed")]
    assert f"is not the seed of board 1 hand 0 ({new_deal(rules, 31, 1, 0)[1]})" in found.findings[0].message
    # A row moved to another board is caught the same way.
    _rewrite(dst, _set(df, row["deal_id"], "board", 2))
    moved = verify_run(dst)
    assert [(f.deal_id, f.kind) for f in moved.findings] == [(row["deal_id"], "seed")]
