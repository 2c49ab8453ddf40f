"""``fivehundred play``: a person in one seat against the bots, in a terminal or from a script.

The game loop and the deal log are :func:`tools.play.play_session`; this module reads the
person's choices and prints the table with :mod:`cli.display`.

Input: one choice per line, a move's number in the list shown or its name, case-insensitive
(``th``, ``8nt``, ``p`` or ``pass``, ``jk=h``; ``-`` or ``none`` leaves the joker unnamed).  On a
terminal a bad line is explained and asked again.  With stdin not a terminal (a script, a pipe, a
test) blank lines and lines starting with ``#`` are skipped, and a bad line stops the session with
``error: line N: ...`` and exit status 2 (a script that went out of step should not play on at
random).  The end of input (or Ctrl-D) stops the session cleanly: the log keeps every finished game
and drops the unfinished one; Ctrl-C does the same with exit status 130.
"""

from __future__ import annotations

import secrets
import select
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from fivehundred.cli.app import app
from fivehundred.cli.display import (
    auction_text,
    contract_text,
    deal_result_text,
    decision_text,
    game_result_text,
    hand_lines,
    prompt_text,
    scores_text,
    seat_names,
    table_text,
    tricks_text,
)
from fivehundred.sim.engine import AUCTION, JOKER, KITTY, parse_action
from fivehundred.sim.errors import UserError
from fivehundred.sim.notation import (
    NO_SUIT,
    PASS_TEXT,
    action_name,
    card_name,
    deal_place,
    game_number,
    typed_text,
)
from fivehundred.sim.rules import Rules
from fivehundred.sim.view import SeatView

if TYPE_CHECKING:
    from fivehundred.tools.play import PlayEvent

#: Typed aliases, per phase, of the notation's words (sim/notation.py).
_ALIASES = {AUCTION: {"PASS": PASS_TEXT}, JOKER: {"NONE": NO_SUIT}}


class ChoiceError(ValueError):
    """A line that names no legal move; the message says why in a few words."""


class PlayInputError(UserError, ValueError):
    """A bad line of non-terminal input: ``line N: ...``."""


def parse_choice(rules: Rules, phase: int, legal: Sequence[int], text: str) -> int:
    """The legal action a typed line chooses: its number in ``legal`` (from 1) or its name.

    Names are the log's notation, read by the engine's :func:`~sim.engine.parse_action` (the
    notation's parsers), case-insensitive, with suit symbols and ``10`` for the ten as the notation
    reads typed cards (:func:`~sim.notation.card_name`).
    Raises :class:`ChoiceError` for anything else or an action that is not legal now.
    """
    t = text.strip()
    if not t:
        raise ChoiceError("empty line: type a number or a name")
    if t.isdigit():
        k = int(t)
        if 1 <= k <= len(legal):
            return legal[k - 1]
        raise ChoiceError(f"{t}: choose a number from 1 to {len(legal)}")
    name = card_name(t) if phase not in (AUCTION, JOKER) else typed_text(t)
    name = _ALIASES.get(phase, {}).get(name, name)
    try:
        action = parse_action(rules, name, phase)
    except (KeyError, ValueError, IndexError):
        what = {AUCTION: "bid", JOKER: "suit", KITTY: "card"}.get(phase, "card")
        raise ChoiceError(f"{t!r} is not a {what} of {rules.name}") from None
    if action not in legal:
        shown = " ".join(action_name(rules, a) for a in legal)
        raise ChoiceError(f"{name} is not legal now (legal: {shown})")
    return action


def _typed_line(prompt: str, stdin: TextIO) -> str:
    """One line typed at the terminal after ``prompt``; ``EOFError`` at the end of input.

    It waits with ``select`` in short steps rather than in one blocking read, so that Ctrl-C stops
    it at once: the libraries' own threads (Polars') may be the ones the terminal's SIGINT reaches,
    and a read blocked in the main thread would not see it until the line ends.
    """
    typer.echo(prompt, nl=False)
    sys.stdout.flush()
    while not select.select([stdin], [], [], 0.2)[0]:
        pass
    line = stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


class Table:
    """The person's side of the table: prints events and decisions, reads choices.

    ``interactive`` (stdin is a terminal) re-asks after a bad line; otherwise a bad line raises
    :class:`PlayInputError`.  The end of input raises :class:`tools.play.StopPlay`.
    """

    def __init__(self, rules: Rules, seat: int, stdin: TextIO, interactive: bool) -> None:
        self.rules = rules
        self.seat = seat
        self.names = seat_names(rules, seat)
        self.stdin = stdin
        self.interactive = interactive
        self.line_no = 0
        self.namings = 0  # the person's joker namings in the current deal
        self.games_done = 0  # games finished (and logged) so far

    def say(self, text: str) -> None:
        """Print one block of text."""
        typer.echo(text)

    def _read(self, prompt: str) -> str:
        from fivehundred.tools.play import StopPlay

        if self.interactive:
            try:
                return _typed_line(prompt, self.stdin)
            except EOFError:
                typer.echo("")
                raise StopPlay from None
        while True:
            line = self.stdin.readline()
            if not line:
                raise StopPlay
            self.line_no += 1
            if line.strip() and not line.lstrip().startswith("#"):
                typer.echo(f"{prompt}{line.strip()}")
                return line

    def ask(self, view: SeatView, legal: tuple[int, ...]) -> int:
        """Show the decision and read a choice until one is legal (or stop)."""
        self.say(decision_text(view, legal, self.names).rstrip("\n"))
        while True:
            line = self._read(prompt_text(view, self.namings))
            try:
                return parse_choice(self.rules, view.phase, legal, line)
            except ChoiceError as exc:
                if not self.interactive:
                    raise PlayInputError(f"line {self.line_no}: {exc}") from None
                self.say(f"  {exc}; try again")

    def observe(self, event: PlayEvent) -> None:
        """Print what happened at the table (see :class:`tools.play.PlayEvent`)."""
        view, names, rules = event.view, self.names, self.rules
        if event.kind == "deal":
            self.namings = 0
            if view.hand_no == 0:
                self.say(f"\n######## Game {game_number(event.game_id)} ########")
            self.say(
                f"\n=== {deal_place(event.game_id, view.hand_no).capitalize()}: "
                f"{names[view.dealer]} deal{'' if names[view.dealer] == 'You' else 's'} ==="
            )
            self.say(scores_text(rules, view.scores, names))
            self.say("Your hand:\n" + "\n".join(hand_lines(view)))
        elif event.kind == "action":
            if event.seat == self.seat and event.phase == JOKER:
                self.namings += 1
            if event.seat == self.seat and event.phase == KITTY and event.action is not None:
                self.say(f"You discard {action_name(rules, event.action)}")
        elif event.kind == "play_starts":
            lines = [auction_text(view, names), contract_text(view, names)]
            if view.declarer != self.seat:
                lines.append(f"{names[view.declarer]} takes the kitty and discards {rules.kitty_size}.")
            if view.active[self.seat]:
                lines.append("Your hand:")
                lines.extend(hand_lines(view))
            else:
                lines.append("You sit out this deal (your partner plays misère).")
            self.say("\n".join(lines))
        elif event.kind == "trick":
            shown = ", ".join(f"{names[s]} {action_name(rules, a)}" for s, a in event.cards)
            won = f"won by {names[event.seat]}. {tricks_text(view, names)}"
            self.say(f"Trick {event.number}: {shown} -> {won}")
        elif event.kind == "deal_done":
            lines = []
            if event.result["contract"] is None:
                lines.append(auction_text(view, names))
            lines.append(deal_result_text(rules, event.result, names))
            lines.append(scores_text(rules, event.result["score_after"], names))
            self.say("\n".join(lines))
        elif event.kind == "game_done":
            self.games_done += 1
            self.say(game_result_text(rules, event.result, names))


def _kept(games: int, where: str, deals: int | None = None) -> str:
    """What a stopped session left: its finished games and where, or that nothing was written."""
    if games == 0:
        return "no game was finished, so nothing was written"
    size = f", {deals} deal(s)" if deals is not None else ""
    return f"{games} finished game(s){size} in {where}"


@app.command("play")
def play_cmd(
    seat: Annotated[int, typer.Option("--seat", help="Your seat (0 .. players-1).")] = 0,
    variant: Annotated[str, typer.Option("--variant", help="Variant name or .toml file.")] = "pagat-au",
    strategies: Annotated[
        str | None,
        typer.Option(
            "--strategies",
            help="The bots: one for all, or partner,left,right (other tables: partners, then "
            "opponents, each from your left). Default heuristic.",
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Master seed (default: a random one).")] = None,
    out: Annotated[str | None, typer.Option("--out", help="Run directory (default runs/play-SEED).")] = None,
    games: Annotated[int, typer.Option("--games", help="Games to play.")] = 1,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace a run already in --out.")] = False,
) -> None:
    """Play whole games against the bots; the games are written as a normal deal log."""
    from fivehundred.tools.play import make_play_config, play_session

    if seed is None:
        seed = secrets.randbelow(1_000_000)
    config = make_play_config(variant, seat, strategies, seed, games, out)
    table = Table(config.rules, config.seat, sys.stdin, sys.stdin.isatty())
    table.say(table_text(config.rules, config.seat))
    pairs = zip(table.names, config.labels, strict=True)
    bots = ", ".join(f"{name} {label}" for name, label in pairs if name != "You")
    table.say(f"bots: {bots}; seed {config.seed}; {config.games} game(s); log: {config.out}")
    try:
        result = play_session(config, table.ask, table.observe, overwrite=overwrite)
    except KeyboardInterrupt:
        typer.echo("\ninterrupted: " + _kept(table.games_done, config.out), err=True)
        raise typer.Exit(130) from None
    if result.stopped_at is not None:
        game, hand = result.stopped_at
        kept = _kept(result.games, result.run_dir, result.deals)
        typer.echo(f"input ended in {deal_place(game, hand)}: that game is not logged; {kept}", err=True)
        return
    typer.echo(
        f"\n{result.games} game(s), {result.deals} deal(s) written to {result.run_dir} "
        f"(fivehundred verify {result.run_dir})"
    )
