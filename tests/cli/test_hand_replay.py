"""``fivehundred hand`` (text, JSON, plot) and ``fivehundred replay RUN --game G`` through the CLI."""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.cli.hand import hand_cmd
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.pipelines.verify import replay_game
from fivehundred.tools.hand import DEFAULT_DEALS, analyse_hand

runner = CliRunner()
HAND = "JK JH JD AH KH QH TH 5C 5S 6D"
GOLDEN = Path(__file__).parent / "golden" / "replay_game_heuristic_seed3.txt"


def test_hand_text_is_a_table_and_one_sentence() -> None:
    result = runner.invoke(
        app, ["hand", HAND, "--deals", "2", "--seed", "5", "--constraints", "kitty: no JK"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0].startswith(f"{HAND}: seat 0, dealer 3, pagat-au, 2 deals (seed 5), kitty: no JK")
    assert lines[1].split() == ["tricks", "P(6)", "P(7)", "P(8)", "P(9)", "P(10)", "best", "bid", "points"]
    assert [row.split()[0] for row in lines[2:8]] == ["spades", "clubs", "diamonds", "hearts", "no", "misère"]
    data = analyse_hand(HAND, constraints="kitty: no JK", deals=2, seed=5).to_dict()
    rec = data["recommended_bid"]
    assert lines[8].startswith("Double dummy, " + ("no opening bid" if rec == "P" else f"bid {rec} (made in"))
    v1, v2 = data["bots"]["heuristic.v1"], data["bots"]["heuristic.v2"]
    assert lines[8].endswith(f"the bots would open heuristic.v1 {v1} and heuristic.v2 {v2}.")
    assert len(lines) == 9


def test_hand_json_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "tricks.png"
    args = [
        "hand",
        HAND,
        "--deals",
        "2",
        "--seed",
        "5",
        "--seat",
        "2",
        "--dealer",
        "0",
        "--json",
        "--plot",
        str(png),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data == analyse_hand(HAND, seat=2, dealer=0, deals=2, seed=5).to_dict()
    assert data["recommended_bid"] and data["seat"] == 2 and data["dealer"] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_hand_default_deals_is_the_library_default() -> None:
    assert inspect.signature(hand_cmd).parameters["deals"].default == DEFAULT_DEALS
    assert inspect.signature(analyse_hand).parameters["deals"].default == DEFAULT_DEALS


@pytest.fixture(scope="module")
def one_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "run"
    run_simulation(make_config(strategies="heuristic", seed=3, games=1, out=str(out), workers=0))
    return out


def test_replay_game_golden(one_game: Path) -> None:
    result = runner.invoke(app, ["replay", str(one_game), "--game", "1"])
    assert result.exit_code == 0, result.output
    if os.environ.get("FIVEHUNDRED_REGOLD"):
        GOLDEN.write_text(result.output)
    assert result.output == GOLDEN.read_text()


def test_replay_game_has_every_deal_and_the_result_in_words(one_game: Path) -> None:
    game = replay_game(one_game, 0)
    text = runner.invoke(app, ["replay", str(one_game), "--game", "1"]).output
    assert text.count("=== Game 1, deal ") == len(game.deals)
    assert text.count("\nResult: ") == len(game.deals)
    assert text.rstrip().splitlines()[-1].startswith("Game over: ")
    played = [d for d in game.deals if d.start is not None]
    assert sum(len(d.after_tricks) for d in played) == text.count("\nTrick ")
    last = game.deals[-1]
    assert last.result["game_over"] and last.final.score_delta == last.result["score_delta"]
    assert "(right bower)" in text or "(left bower)" in text  # trumps marked


def test_replay_game_errors(one_game: Path) -> None:
    for args, message in [
        (["--game", "5"], "no game 5 (the log has game 1)"),
        (["--game", "0"], "'--game': must be at least 1"),
        (["0", "--game", "1"], "give a deal id or --game, not both"),
        ([], "give a deal id"),
    ]:
        result = runner.invoke(app, ["replay", str(one_game), *args])
        assert result.exit_code == 2 and message in result.output, result.output


def test_hand_reads_cards_as_replay_prints_them(tmp_path: Path) -> None:
    """``10H``, suit symbols and any case name the same cards as the notation's ``TH``."""
    typed = "jk J♥ JD A♥ KH QH 10H 5♣ 5s 6♦"
    got = runner.invoke(app, ["hand", typed, "--deals", "2", "--seed", "5", "--json"])
    assert got.exit_code == 0, got.output
    data = json.loads(got.output)
    assert data == analyse_hand(HAND, deals=2, seed=5).to_dict()
    assert " ".join(data["hand"]) == HAND  # shown in the notation
    wrong = runner.invoke(app, ["hand", HAND.replace("TH", "10X"), "--deals", "2"])
    assert wrong.exit_code == 2 and "'10X' is not a card of this deck" in wrong.output


def test_hand_plot_says_where_it_wrote_and_titles_the_constraints(tmp_path: Path) -> None:
    png = tmp_path / "tricks.png"
    args = ["hand", HAND, "--deals", "2", "--constraints", "partner: H>=3", "--plot", str(png)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == f"trick distributions drawn to {png}"
    from matplotlib.figure import Figure  # what reports.hand draws with (imported when it draws)

    drawn: list[str] = []
    real = Figure.suptitle

    def spy(self: object, text: str, **kw: object) -> object:
        drawn.append(text)
        return real(self, text, **kw)  # type: ignore[arg-type]

    Figure.suptitle = spy  # type: ignore[method-assign]
    try:
        runner.invoke(app, args)
    finally:
        Figure.suptitle = real  # type: ignore[method-assign]
    assert drawn and "given partner: H>=3" in drawn[0] and "seat 0, dealer 3, pagat-au" in drawn[0]
    js = runner.invoke(app, [*args, "--json"])  # JSON stays alone on stdout
    assert js.exit_code == 0 and json.loads(js.stdout)["constraints"] == "partner: H>=3"
    assert f"trick distributions drawn to {png}" in js.stderr


def test_one_game_numbering_from_play_to_replay(tmp_path: Path) -> None:
    """What play calls game 1 is game 1 for replay --game and for replay RUN DEAL_ID; the deal id
    --game shows opens the same deal; errors count games the same way."""
    out = tmp_path / "played"
    played = runner.invoke(app, ["play", "--seed", "9", "--out", str(out)], input="1\n" * 3000)
    assert played.exit_code == 0, played.output
    assert "######## Game 1 ########" in played.stdout and "=== Game 1, deal 1: " in played.stdout
    game = runner.invoke(app, ["replay", str(out), "--game", "1"])
    assert game.exit_code == 0, game.output
    first = re.search(r"^=== Game 1, deal 1: .* \(deal id (\d+)\) ===$", game.stdout, re.M)
    assert first, game.stdout
    deal = runner.invoke(app, ["replay", str(out), first.group(1)])
    assert deal.exit_code == 0 and deal.stdout.startswith(f"Deal id {first.group(1)}: game 1, deal 1 (")
    missing = runner.invoke(app, ["replay", str(out), "--game", "2"])
    assert missing.exit_code == 2 and "no game 2 (the log has game 1)" in missing.stderr
