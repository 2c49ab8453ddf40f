"""``fivehundred hand``'s output: the text table and sentence, and the trick-distribution figure.

Both read only the JSON form of :class:`tools.hand.HandAnalysis` (:meth:`~HandAnalysis.to_dict`),
so a saved ``--json`` can be drawn again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from fivehundred.sim.notation import MISERE, NT_TEXT, bid_denomination

_NAMES: Final = {
    "S": "spades", "C": "clubs", "D": "diamonds", "H": "hearts", NT_TEXT: "no trumps", MISERE: "misère",
}  # fmt: skip


def _pct(p: float) -> str:
    return f"{100 * p:.0f}%"


def _chance(p: float, interval: list[float]) -> str:
    """A chance and its 95% interval: ``66% 59-72``."""
    lo, hi = interval
    return f"{100 * p:.0f}% {100 * lo:.0f}-{100 * hi:.0f}"


def hand_text(data: dict[str, Any]) -> str:
    """A small table (per denomination: mean tricks, the chance of making 6..10 with its 95% interval,
    its best bid and that bid's expected points) and one sentence with the recommended bid and the
    bots' calls."""
    levels = ("6", "7", "8", "9", "10")
    width = 12
    head = f"{'':<10} {'tricks':>6} " + " ".join(f"{'P(' + k + ')':>{width}}" for k in levels)
    given = f", {data['constraints']}" if data["constraints"] else ""
    lines = [
        f"{' '.join(data['hand'])}: seat {data['seat']}, dealer {data['dealer']}, {data['variant']}, "
        f"{data['deals']} deals (seed {data['seed']}){given}",
        f"{head} {'best bid':>8} {'points':>7}",
    ]
    bids = data["bids"]
    for name, d in data["denominations"].items():
        mine = [b for b in bids if bid_denomination(b["bid"]) == name]
        best = max(mine, key=lambda b: b["expected_points"])
        made, interval = d["make"], d["make_interval"]
        if name == MISERE:
            cells = f"{'no trick ' + _chance(made[MISERE], interval[MISERE]):>{5 * width + 4}}"
        else:
            shown = [_chance(made[k], interval[k]) if k in made else "-" for k in levels]
            cells = " ".join(f"{c:>{width}}" for c in shown)
        value = f"{best['bid']:>8} {best['expected_points']:>+7.0f}"
        lines.append(f"{_NAMES[name]:<10} {d['mean_tricks']:>6.2f} {cells} {value}")
    rec = data["recommended_bid"]
    bots = " and ".join(f"{name} {call}" for name, call in data["bots"].items())
    if rec == "P":
        first = "no opening bid scores on average, so pass"
    else:
        b = next(x for x in bids if x["bid"] == rec)
        first = (
            f"bid {rec} (made in {_pct(b['make'])} of the deals, {b['expected_points']:+.0f} points a deal)"
        )
    lines.append(f"Double dummy, {first}; the bots would open {bots}.")
    return "\n".join(lines)


def plot_hand(data: dict[str, Any], path: str | Path) -> Path:
    """Bar charts of the trick distribution of each denomination (share of the deals), to ``path``."""
    import matplotlib  # here, not at the top: the text output needs none of it

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    dens = data["denominations"]
    fig = Figure(figsize=(2.3 * len(dens), 3.0), layout="constrained")
    axes = fig.subplots(1, len(dens), sharey=True, squeeze=False)[0]
    deals = data["deals"]
    for ax, (name, d) in zip(axes, dens.items(), strict=True):
        dist = d["distribution"]
        xs = list(range(len(dist)))
        labels = ["no trick", "a trick"] if name == MISERE else [str(x) for x in xs]
        ax.bar(xs, [k / deals for k in dist], color="#c44e52" if name == MISERE else "#4c72b0")
        ax.set_xticks(xs, labels, fontsize=7)
        ax.set_title(f"{_NAMES[name]} (mean {d['mean_tricks']:.1f})", fontsize=9)
        ax.set_xlabel("declarer's tricks" if name == MISERE else "side's tricks", fontsize=8)
    axes[0].set_ylabel("share of deals")
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    title = f"{' '.join(data['hand'])}: double-dummy tricks over {deals} deals"
    title += f" (seat {data['seat']}, dealer {data['dealer']}, {data['variant']})"
    if data["constraints"]:
        title += f"\ngiven {data['constraints']}"
    fig.suptitle(title, fontsize=10)
    out = Path(path)
    fig.savefig(out, format="png", dpi=110, metadata={"Software": None})
    return out
