"""Hand-checked ``fivehundred dd`` positions and their double-dummy values, shared by the
positions tests and the bad-input cases (which start from a good position)."""

from __future__ import annotations

#: Hand-checked positions and their DD value (the comment says why).
GOLDEN = [
    # 8H, the declarer holds the two top trumps left: both tricks, 6 + 2.
    (
        {
            "variant": "pagat-au",
            "contract": "8H",
            "declarer": 0,
            "leader": 0,
            "hands": [["AH", "KH"], ["AS", "KS"], ["QH", "QS"], ["5S", "6S"]],
            "joker_suit": None,
            "suits_led": ["H", "S"],
            "tricks_played": 8,
            "declarer_tricks": 6,
        },
        8,
    ),
    # MIS by seat 1 (seat 3 sits out), leading: its spades are lower than both defenders' at each trick.
    (
        {
            "variant": "pagat-au",
            "contract": "MIS",
            "declarer": 1,
            "leader": 1,
            "hands": [["AS", "KS"], ["5S", "8S"], ["QS", "7S"], []],
            "tricks_played": 8,
        },
        0,
    ),
    # MIS, last trick: the declarer must lead its ace of spades over both defenders' spades.
    (
        {
            "variant": "pagat-au",
            "contract": "MIS",
            "declarer": 1,
            "leader": 1,
            "hands": [["5S"], ["AS"], ["7S"], []],
            "tricks_played": 9,
        },
        1,
    ),
    # 8NT, the joker named hearts is the top heart: it wins, then the 4H lets partner's QH win.
    (
        {
            "variant": "pagat-au",
            "contract": "8NT",
            "declarer": 0,
            "leader": 0,
            "hands": [["JK", "4H"], ["AS", "KS"], ["QH", "QS"], ["5S", "6S"]],
            "joker_suit": "H",
            "suits_led": ["H", "S"],
            "tricks_played": 8,
            "declarer_tricks": 6,
        },
        8,
    ),
    # 6S, a defender leads the AH: the declarer, void in hearts, ruffs with the right bower.
    (
        {
            "variant": "pagat-au",
            "contract": "6S",
            "declarer": 0,
            "leader": 1,
            "hands": [["JS"], ["AH"], ["5H"], ["KH"]],
            "suits_led": ["S", "H", "D"],
            "tricks_played": 9,
            "declarer_tricks": 5,
        },
        6,
    ),
]
