"""``fivehundred play``: scripted games through stdin on every table, what the display shows, input."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from fivehundred.cli.display import deal_result_text, hand_lines, prompt_text, seat_names
from fivehundred.cli.play import ChoiceError, PlayInputError, Table, parse_choice
from fivehundred.pipelines.verify import verify_run
from fivehundred.sim import load_rules
from fivehundred.sim.engine import AUCTION, PLAY, State
from fivehundred.sim.notation import BID, JOKER_LEAD, NAME_NONE, NAME_SUIT, PASS, action_name, split_play
from fivehundred.sim.view import SeatView
from fivehundred.tools.play import StopPlay, make_play_config, play_session
from tests.cli.helpers import Terminal, in_process
from tests.tools.helpers import nt_joker_policy

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()

#: Lines that may name bids (some bids read like cards: 7S); every other line names only cards.
BID_LINES = ("Auction", "Contract:", "Result:", "Calls:", "Your call")
HEADER = re.compile(r"^=== Game (\d+), deal (\d+):", re.M)


def _play(tmp_path: Path, *args: str, script: str = "1\n" * 3000) -> tuple[object, Path]:
    out = tmp_path / "run"
    result = runner.invoke(app, ["play", "--out", str(out), *args], input=script)
    return result, out


def _log(run: Path) -> pl.DataFrame:
    return pl.read_parquet(str(run / "deals" / "*.parquet")).sort("deal_id")


def _parts(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run / "deals").glob("*.parquet"))}


def _sections(output: str) -> dict[tuple[int, int], str]:
    """Each deal's part of the output, by (game_id, hand_no)."""
    marks = list(HEADER.finditer(output))
    return {
        (int(m.group(1)) - 1, int(m.group(2)) - 1): output[m.start() : nxt.start() if nxt else len(output)]
        for m, nxt in zip(marks, [*marks[1:], None], strict=True)
    }


def _shown_cards(section: str, deck_names: set[str]) -> set[str]:
    """The words of a deal's output that are card names of the deck (``JK=H`` gives ``JK``)."""
    lines = [line for line in section.splitlines() if not line.startswith(BID_LINES)]
    return {w for w in re.split(r"[\s,.;:()=]+", "\n".join(lines)) if w in deck_names}


def _check_nothing_hidden_is_shown(output: str, run: Path, me: int) -> None:
    """Per deal: no card of another seat that was never played, no kitty card unless you declared."""
    sections = _sections(output)
    log = _log(run)
    deck_names = set(load_rules(log["variant"][0]).deck.names)
    assert len(sections) >= log.height
    checked = 0
    for row in log.iter_rows(named=True):
        played = {split_play(p)[0] for p in row["plays"]}
        hidden = set()
        for s, hand in enumerate(row["hands"]):
            if s != me:
                hidden |= set(hand) - played
        if row["declarer"] != me:
            hidden |= set(row["kitty"]) - played
        may_know = set(row["hands"][me]) | played | (set(row["kitty"]) if row["declarer"] == me else set())
        if row["contract"] == "OMIS" and row["declarer"] != me:  # the open hand is public after trick 1
            exposed = (set(row["hands"][row["declarer"]]) | set(row["kitty"])) - set(row["discards"])
            hidden -= exposed
            may_know |= exposed
        shown = _shown_cards(sections[(row["game_id"], row["hand_no"])], deck_names)
        assert shown, "the deal shows no card at all"
        assert not shown & hidden, (row["game_id"], row["hand_no"], shown & hidden)
        assert shown <= may_know, (row["game_id"], row["hand_no"], shown - may_know)
        checked += bool(hidden)
    assert checked > 0


@pytest.mark.parametrize(
    ("variant", "seat", "names"),
    [
        ("pagat-au", 0, ("Left", "Partner", "Right")),
        ("three-player", 1, ("Seat 0", "Seat 2")),
        ("six-player", 4, ("Seat 0", "Seat 5")),
        ("two-jokers", 2, ("Left", "Partner")),
    ],
)
def test_scripted_games_on_every_table(
    tmp_path: Path, variant: str, seat: int, names: tuple[str, ...]
) -> None:
    result, out = _play(tmp_path, "--variant", variant, "--seat", str(seat), "--seed", "2", "--games", "2")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.count("Game over") == 2 and "2 game(s)" in text
    assert all(f"{n} " in text for n in names)
    assert "Your hand:" in text and "Result: " in text and "Score: " in text and "Trick 1: " in text
    assert re.search(r"^Play: 1\) ", text, re.M) and re.search(r"^Calls: 1\) P", text, re.M)
    check = verify_run(out)
    assert check.ok, [str(f) for f in check.findings]
    assert set(_log(out)["strategies"].list.get(seat)) == {"human.v1"}
    _check_nothing_hidden_is_shown(text, out, seat)


def test_replay_and_analyze_read_a_played_log(tmp_path: Path) -> None:
    result, out = _play(tmp_path, "--seed", "9", "--strategies", "heuristic,random,heuristic")
    assert result.exit_code == 0, result.output
    shown = runner.invoke(app, ["replay", str(out), "0"])
    assert shown.exit_code == 0 and "seat 0 (team 0, human.v1)" in shown.output, shown.output
    assert "WARNING" not in shown.output
    stats = runner.invoke(app, ["analyze", str(out), "--out", str(tmp_path / "stats")])
    assert stats.exit_code == 0, stats.output
    table = pl.read_parquet(tmp_path / "stats" / "strategies.parquet")
    assert set(table["strategy"]) == {"human.v1", "heuristic.v1", "random.v1"}


def test_numbers_and_names_choose_the_same_moves(tmp_path: Path) -> None:
    """The NT-joker policy of the pipeline test, as numbers and as lower-case names: one log."""
    rules = load_rules("pagat-au")
    numbers: list[str] = []
    names: list[str] = []

    def ask(view: SeatView, legal: tuple[int, ...]) -> int:
        a = nt_joker_policy(view, legal)
        numbers.append(str(legal.index(a) + 1))
        names.append(action_name(rules, a).lower())
        return a

    for seed in range(30):
        numbers.clear()
        names.clear()
        lib = tmp_path / f"lib{seed}"
        play_session(make_play_config("pagat-au", 0, None, seed, 1, str(lib)), ask)
        if any(n.startswith("jk=") for n in names):
            break
    else:
        pytest.fail("no seed gave a joker lead")
    by_number = runner.invoke(
        app, ["play", "--seed", str(seed), "--out", str(tmp_path / "n")], input="\n".join(numbers) + "\n"
    )
    by_name = runner.invoke(
        app, ["play", "--seed", str(seed), "--out", str(tmp_path / "t")], input="\n".join(names) + "\n"
    )
    assert by_number.exit_code == 0 and by_name.exit_code == 0, by_name.output
    assert _parts(tmp_path / "n") == _parts(tmp_path / "t") == _parts(lib)
    assert (tmp_path / "n" / "manifest.json").read_bytes() == (lib / "manifest.json").read_bytes()
    assert re.search(r"You JK=[SCDH]", by_name.stdout)  # the suitless joker led, naming its suit
    assert re.search(r"^Contract: \d+NT by You; the joker is suitless", by_name.stdout, re.M)
    assert verify_run(tmp_path / "t").ok
    _check_nothing_hidden_is_shown(by_name.stdout, tmp_path / "t", 0)


def test_an_open_misere_bid_through_stdin(tmp_path: Path) -> None:
    result, out = _play(tmp_path, "--seed", "1", script="omis\n" + "1\n" * 3000)
    assert result.exit_code == 0, result.output
    row = _log(out).row(0, named=True)
    assert (row["contract"], row["declarer"]) == ("OMIS", 0)
    made = row["declarer_tricks"] == 0
    assert f"Result: your open misère {'made, +500' if made else 'went down, -500'}" in result.stdout
    assert re.search(r"^Contract: OMIS by You;.*; Partner sits out$", result.stdout, re.M)
    assert verify_run(out).ok


def test_a_misere_contract_on_the_club_rules(tmp_path: Path) -> None:
    """club-004: misère at any time, blind misère, the declarer's raise; the policy bids MIS."""
    rules = load_rules("club-004")
    mis = BID + rules.bid_index["MIS"]
    moves: list[str] = []

    def ask(view: SeatView, legal: tuple[int, ...]) -> int:
        a = (
            (mis if mis in legal and view.high_bidder != view.seat else PASS)
            if view.phase == AUCTION
            else legal[0]
        )
        moves.append(action_name(rules, a).lower())
        return a

    for seed in range(20):
        moves.clear()
        lib = tmp_path / f"lib{seed}"
        play_session(make_play_config("club-004", 0, None, seed, 1, str(lib)), ask)
        if _log(lib).filter((pl.col("contract") == "MIS") & (pl.col("declarer") == 0)).height:
            break
    else:
        pytest.fail("no seed gave the person a misère")
    result, out = _play(
        tmp_path, "--variant", "club-004", "--seed", str(seed), script="\n".join(moves) + "\n"
    )
    assert result.exit_code == 0, result.output
    assert _parts(out) == _parts(lib)
    assert re.search(
        r"^Result: your misère (made, \+250|went down, -250 \(you took a trick\))", result.stdout, re.M
    )
    assert re.search(r"^Contract: MIS by You;.*; Partner sits out$", result.stdout, re.M)
    assert verify_run(out).ok
    _check_nothing_hidden_is_shown(result.stdout, out, 0)


def _decisions_in_game_0(seed: int, tmp_path: Path) -> int:
    count = [0]

    def ask(view: SeatView, legal: tuple[int, ...]) -> int:
        count[0] += 1
        return legal[0]

    play_session(make_play_config("pagat-au", 0, None, seed, 1, str(tmp_path / "count")), ask)
    return count[0]


def test_a_bad_line_without_a_terminal_is_one_error_line(tmp_path: Path) -> None:
    d = _decisions_in_game_0(6, tmp_path)
    script = "1\n" * d + "# game 2\n\nzz\n1\n"
    out = tmp_path / "run"
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "fivehundred.cli.main",
            "play",
            "--seed",
            "6",
            "--games",
            "2",
            "--out",
            str(out),
        ],
        cwd=REPO,
        input=script,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert bad.stderr == f"error: line {d + 3}: 'zz' is not a bid of pagat-au\n"
    assert _log(out)["game_id"].unique().to_list() == [0]  # the finished game is kept
    assert verify_run(out).ok


def test_end_of_input_mid_game_keeps_the_finished_games(tmp_path: Path) -> None:
    d = _decisions_in_game_0(6, tmp_path)
    result, out = _play(tmp_path, "--seed", "6", "--games", "3", script="1\n" * (d + 4))
    assert result.exit_code == 0, result.output
    assert re.search(
        r"input ended in game 2, deal \d+: that game is not logged; 1 finished game\(s\)", result.stderr
    )
    assert _log(out)["game_id"].unique().to_list() == [0]
    assert verify_run(out).ok


def test_bad_arguments_exit_2_with_one_line(tmp_path: Path) -> None:
    """One real process (nothing but the line reaches the terminal), then the entry point in-process."""
    bad = subprocess.run(
        [sys.executable, "-m", "fivehundred.cli.main", "play", "--out", str(tmp_path / "x"), "--seat", "5"],
        cwd=REPO,
        input="",
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and bad.stderr == "error: seat 5: pagat-au has seats 0..3\n", bad.stderr
    for args, message in (
        (["--variant", "three-player", "--strategies", "a,b,c"], "error: strategies: 3 given"),
        (["--variant", "nosuch"], "error: unknown variant 'nosuch'"),
    ):
        status, _, err = in_process(["play", "--out", str(tmp_path / "x"), *args])
        assert status == 2 and err.startswith(message) and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists()


# ------------------------------------------------------------------------------------------ input


def test_parse_choice_takes_numbers_and_names_in_any_case() -> None:
    rules = load_rules("pagat-au")
    calls = (PASS, BID + rules.bid_index["8NT"], BID + rules.bid_index["MIS"])
    assert parse_choice(rules, AUCTION, calls, "2") == calls[1]
    assert parse_choice(rules, AUCTION, calls, " 8nt ") == calls[1]
    assert parse_choice(rules, AUCTION, calls, "p") == PASS == parse_choice(rules, AUCTION, calls, "Pass")
    assert parse_choice(rules, AUCTION, calls, "mis") == calls[2]
    th, jk = rules.deck.card("TH"), rules.deck.card("JK")
    plays = (th, JOKER_LEAD + 3)
    assert parse_choice(rules, PLAY, plays, "th") == th
    assert parse_choice(rules, PLAY, plays, "jk=h") == JOKER_LEAD + 3
    assert parse_choice(rules, PLAY, plays, "10h") == th == parse_choice(rules, PLAY, plays, "10♥")
    assert parse_choice(rules, PLAY, plays, "JK=♥") == JOKER_LEAD + 3
    assert parse_choice(rules, AUCTION, calls, "8nt") == calls[1]
    tens = (BID + rules.bid_index["10H"],)
    assert parse_choice(rules, AUCTION, tens, "10♥") == tens[0] == parse_choice(rules, AUCTION, tens, "10h")
    assert parse_choice(rules, 2, (NAME_SUIT + 3, NAME_NONE), "♥") == NAME_SUIT + 3
    assert parse_choice(rules, 2, (NAME_SUIT, NAME_NONE), "none") == NAME_NONE
    for text, why in (
        ("3", "choose a number from 1 to 2"),
        ("jk", "JK is not legal now (legal: TH JK=H)"),
        ("xx", "'xx' is not a card of pagat-au"),
        ("", "empty line"),
    ):
        with pytest.raises(ChoiceError, match=re.escape(why)):
            parse_choice(rules, PLAY, plays, text)
    assert jk not in plays


def _auction_view() -> tuple[SeatView, tuple[int, ...]]:
    state = State.deal(load_rules("pagat-au"), 99, 3)
    return state.view(0), state.legal_actions()


def test_a_terminal_asks_again_after_a_bad_line_and_stops_at_ctrl_c(tmp_path: Path) -> None:
    """In a real terminal: a bad line is explained and asked again; Ctrl-C at the prompt stops at
    once (exit status 130) and, with no game finished, leaves nothing behind."""
    out = tmp_path / "game"
    term = Terminal(["play", "--seed", "6", "--out", str(out)])
    term.read_until("Your call (number or bid): ")
    term.type("zz\n")
    term.read_until("'zz' is not a bid of pagat-au; try again")
    term.read_until("Your call (number or bid): ")
    term.type("\x03")
    assert term.wait() == 130
    assert "interrupted: no game was finished, so nothing was written" in term.seen
    assert not out.exists()


def test_ctrl_d_at_the_prompt_ends_the_session(tmp_path: Path) -> None:
    term = Terminal(["play", "--seed", "6", "--out", str(tmp_path / "game")])
    term.read_until("Your call (number or bid): ")
    term.type("\x04")
    assert term.wait() == 0
    assert "input ended in game 1, deal 1: that game is not logged; no game was finished" in term.seen


def test_without_a_terminal_a_bad_line_names_its_number() -> None:
    view, legal = _auction_view()
    table = Table(view.rules, 0, io.StringIO("\n# a comment\n7x\n"), interactive=False)
    with pytest.raises(PlayInputError, match=r"^line 3: '7x' is not a bid of pagat-au$"):
        table.ask(view, legal)
    with pytest.raises(StopPlay):
        table.ask(view, legal)


# ------------------------------------------------------------------------------------------ display


def _dealt(rules_name: str, mine: str) -> State:
    """A deal where seat 0 holds ``mine`` and the rest of the deck is dealt in order."""
    rules = load_rules(rules_name)
    deck = rules.deck
    rest = [c for c in range(deck.size) if deck.names[c] not in mine.split()]
    k = rules.hand_size
    hands = [deck.mask(mine)] + [
        sum(1 << c for c in rest[i * k : (i + 1) * k]) for i in range(rules.players - 1)
    ]
    kitty = sum(1 << c for c in rest[(rules.players - 1) * k :])
    return State(rules, hands, kitty, 3)


def test_the_hand_puts_trumps_first_with_the_bowers_marked() -> None:
    state = _dealt("pagat-au", "AH JD 5C KH JH 6S JK QS TS JS")
    assert hand_lines(state.view(0))[0].split() == ["spades:", "QS", "JS", "TS", "6S"]
    state.force_contract("8H", 1)
    for card in state.legal_actions()[:3]:
        state.apply(card)
    lines = hand_lines(state.view(0))
    assert lines[0].split(None, 2)[:2] == ["hearts", "(trumps):"]
    assert lines[0].split(":", 1)[1].split() == "JK JH (right bower) JD (left bower) AH KH".split()
    assert "JS" in lines[1] and "bower" not in lines[1]  # a black jack is no bower in hearts
    assert lines[3].split() == ["diamonds:", "-"]


def test_a_named_joker_sits_in_its_suit_and_a_suitless_one_apart() -> None:
    state = _dealt("pagat-au", "AH JD 5C KH JH 6S JK QS TS JS")
    state.force_contract("8NT", 0)
    while state.phase == 1:
        state.apply(min(state.legal_actions()))  # the low spades
    named = state.clone()
    named.apply(NAME_SUIT + 3)  # hearts
    assert hand_lines(named.view(0))[3].split()[1:3] == ["JK", "AH"]
    state.apply(NAME_NONE)
    assert hand_lines(state.view(0))[-1].split() == ["joker:", "JK"]


def test_results_in_words() -> None:
    rules = load_rules("pagat-au")
    names = seat_names(rules, 0)
    assert names == ("You", "Left", "Partner", "Right")
    assert seat_names(rules, 1) == ("Right", "You", "Left", "Partner")

    def res(contract: str | None, declarer: int | None, tricks: int | None, delta: list[int]) -> str:
        row = {"contract": contract, "declarer": declarer, "declarer_tricks": tricks, "score_delta": delta}
        return deal_result_text(rules, row, names)

    assert (
        res("8H", 2, 9, [300, 10]) == "Result: Partner's 8H made with one overtrick, +300; Left & Right +10"
    )
    assert (
        res("7S", 1, 5, [50, -140]) == "Result: Left's 7S went down, -140 (5 of 7 tricks); You & Partner +50"
    )
    assert res("MIS", 0, 0, [250, 0]) == "Result: your misère made, +250"
    assert res("MIS", 3, 1, [0, -250]) == "Result: Right's misère went down, -250 (Right took a trick)"
    assert res("6S", 0, 10, [250, 0]) == "Result: your 6S made with four overtricks, +250 (all ten tricks)"
    assert res(None, None, None, [0, 0]) == "Result: all passed: thrown in"


def test_the_naming_prompt_tells_which_joker() -> None:
    state = _dealt("two-jokers", "JK1 JK2 AH KH QH AS KS QS AD KD")
    state.force_contract("8NT", 0)
    while state.phase == 1:
        state.apply(min(a for a in state.legal_actions() if a not in state.rules.deck.jokers))
    view = state.view(0)
    assert prompt_text(view, 0).startswith("Name the suit of JK1 ")
    state.apply(NAME_SUIT + 3)
    assert prompt_text(view, 1).startswith("Name the suit of JK2 ")
    one = _dealt("pagat-au", "AH JD 5C KH JH 6S JK QS TS JS")
    one.force_contract("8NT", 0)
    while one.phase == 1:
        one.apply(min(one.legal_actions()))
    assert prompt_text(one.view(0), 0).startswith("Name the suit of the joker ")
