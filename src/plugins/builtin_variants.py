"""The built-in variants, registered through the same hook a third-party plugin uses.

Option names and values are what the core reads; docs and sources come from RULES.md
(§2.12 Straight, §3.8 Multiplayer, §4.13 Kozel, §4b Block).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..variant import MAX_TABLE, MIN_TABLE, Option, Variant, at_least, between
from .hookspecs import hookimpl

#: The bounded table's default size in tile lengths (docs/geometry.md).
TABLE_WIDTH = 8
TABLE_HEIGHT = 5

__all__ = [
    "BLOCK",
    "BUILTIN_VARIANTS",
    "DRAW",
    "FIVES_AND_THREES",
    "KOZEL",
    "MULTIPLAYER",
    "STRAIGHT",
]


def _choice(name: str, choices: tuple[Any, ...], doc: str, source: str) -> Option:
    return Option(name, choices[0], choices, doc, source)


def _free_int(name: str, default: int, minimum: int, doc: str, source: str) -> Option:
    return Option(name, default, None, doc, source, check=at_least(minimum))


def _hand_size(
    default: int | Mapping[int, int], doc: str, source: str, presets: Mapping[str, Any]
) -> Option:
    return Option(
        "hand_size",
        default,
        None,
        doc,
        source,
        check=at_least(1),
        presets=presets,
        per_players=True,
    )


def _options(*options: Option) -> dict[str, Option]:
    return {o.name: o for o in options}


STRAIGHT = Variant(
    name="straight",
    base="straight",
    description="Straight Dominoes: All Fives with a spinner, to 250",
    players=(2, 3, 4),
    options=_options(
        _hand_size(
            7,
            "Tiles dealt to each player (seed: 7 for every count, so 4 players have no boneyard)",
            "[SD]; [P-AF]; [GR],[BOTS]",
            presets={
                "seed": {2: 7, 3: 7, 4: 7},
                "pagat": {2: 9, 3: 7, 4: 5},
                "short": {2: 7, 3: 5, 4: 5},
            },
        ),
        _choice(
            "spinner_rule",
            ("first_double", "none", "all_doubles"),
            "Which doubles spin: the first double played, none (Muggins) or every double (Five Up)",
            "[P-AF]",
        ),
        _choice(
            "spinner_sides_first",
            (True, False),
            "The spinner's N/S ends open only after tiles cover both of its sides",
            "[P-AF],[B6B]; ccaronls impl.",
        ),
        _choice(
            "boneyard_reserve",
            (0, 1, 2),
            "Tiles that stay in the boneyard and may never be drawn",
            "[SD]; [P-AF var.],[FH],[DGC-SNF]",
        ),
        _choice(
            "may_draw_with_playable",
            (False, True),
            "A player holding a playable tile may draw instead of playing",
            "[P-AF]; [DIGI]",
        ),
        _choice(
            "first_leader",
            ("random", "highest_double"),
            "Leader of the first hand: chosen by lot, or the holder of the highest double "
            "(who must lead it)",
            "[SD],[P-AF]; [YH],[FH]",
        ),
        _choice(
            "next_leader",
            ("dominoer", "last_bone", "rotate"),
            "Leader of later hands: the dominoer (random after a block), the last-bone "
            "player (highest double after a block), or rotate left",
            "[P-AF]; [YH]; [DGC-SNF]",
        ),
        _choice(
            "blocked_award",
            ("opponents_total", "difference"),
            "Blocked hand: the lightest side scores the others' total pips, or the difference",
            "[P-AF],[SD]; [DR-AF],[GMB]",
        ),
        _choice(
            "partner_pips_on_domino",
            ("ignore", "subtract"),
            "Partnership domino: the partner's pips are ignored, or subtracted from the bonus",
            "[P-AF]; [DR-AF]",
        ),
        _choice(
            "score_scale",
            (1, 5),
            "Every score is divided by this (5: cribbage-style pegging, usually to 61)",
            "[P-AF],[DR-MGR]",
        ),
        _free_int(
            "target",
            250,
            1,
            "Game target: the first side to reach it wins (also 200 for 3-4 players, 61 at "
            "score_scale 5)",
            "[SD]; [P-AF]",
        ),
        _choice(
            "exact_target",
            (False, True),
            "The target must be hit exactly; a score that overshoots it is void",
            "[P-AF var.],[DR-MGR]",
        ),
        _choice(
            "target_check",
            ("immediate", "end_of_hand"),
            "The target is checked after every scoring event, or only at the end of a hand",
            "engine; [ODG-53]",
        ),
        _choice(
            "hand_penalty",
            (False, True),
            "At the end of a hand each side also loses its own pips, rounded to 5",
            "[P-AF var.]",
        ),
        _choice(
            "muggins_claim",
            (False, True),
            "Counts are not scored automatically: an opponent may claim a missed count",
            "[FH],[BR]",
        ),
        _choice(
            "teams_with_4",
            (True, False),
            "With 4 players, fixed partnerships (seats 0+2 vs 1+3); otherwise each for himself",
            "[SD],[P-AF]",
        ),
        _choice(
            "count_rule",
            ("fives", "fives_and_threes"),
            "A count scores itself when a multiple of 5, or count/5 plus count/3 "
            "(Fives and Threes; needs score_scale 1)",
            "[P-AF]; [P-F3]",
        ),
        _choice(
            "hand_award",
            ("pips", "one_point"),
            "Going out scores the others' pips (blocked_award for a block), or 1 point "
            "with the last tile and nothing for a block (Fives and Threes)",
            "[P-AF]; [P-F3]",
        ),
        _choice(
            "partnership_out",
            ("first_partner", "both_partners"),
            "Partnerships: the hand ends when a player goes out, or when both partners "
            "of a side have",
            "[P-AF]; [P-F3]",
        ),
    ),
)

MULTIPLAYER = Variant(
    name="multiplayer",
    base="multiplayer",
    description="Multiplayer Dominoes: the two-player draw game to 100",
    players=(2,),
    options=_options(
        _choice(
            "tile_ranking",
            ("pip_sum", "lexicographic"),
            "Round-1 opener without doubles: heaviest tile by pip sum then high half, or "
            "lexicographic (6-5 > 6-4 > ... > 5-4)",
            "[RP],[AOB]; Kozel seed",
        ),
        _choice(
            "opening_tile_forced",
            (True, False),
            "The round-1 leader must lead the tile that made them leader",
            "[GMB]",
        ),
        _choice(
            "next_leader",
            ("previous_winner", "opening_rule"),
            "Later rounds: the previous winner leads any tile, or the round-1 rule every round",
            "[KIR],[YH]",
        ),
        _choice(
            "stock_reserve",
            (2, 0, 1),
            "Tiles that stay in the stock and are never drawn",
            "seed; [WP-DRAW],[FH]",
        ),
        _choice(
            "voluntary_pass",
            (False, True),
            "A player with no legal placement may pass instead of drawing",
            "[WP-DRAW]",
        ),
        _choice(
            "stock_pips_to_winner",
            (False, True),
            "The round winner also scores the pips left in the stock",
            "seed; [WP-DRAW]",
        ),
        _choice(
            "blocked_tie",
            ("lightest_tile", "no_winner"),
            "Blocked round with equal totals: the holder of the lightest tile wins (0 points), "
            "or nobody",
            "[CEX]; [ODG-DRAW],[AIG]",
        ),
        _choice(
            "geometry",
            ("bounded", "unbounded"),
            "Table geometry: bounded, an end closes when the table edge or other tiles leave "
            "no room for the next tile even after a turn; unbounded, ends never close",
            "seed; RULES.md §3.4 G1-G4",
        ),
        Option(
            "table_width",
            TABLE_WIDTH,
            None,
            "Bounded table: its width in tile lengths, centred on the lead",
            "engine decision (RULES.md §3.4, open question B2)",
            check=between(MIN_TABLE, MAX_TABLE),
        ),
        Option(
            "table_height",
            TABLE_HEIGHT,
            None,
            "Bounded table: its height in tile lengths, centred on the lead",
            "engine decision (RULES.md §3.4, open question B2)",
            check=between(MIN_TABLE, MAX_TABLE),
        ),
        _choice(
            "end_when_closed",
            (False, True),
            "Bounded table: the round ends (blocked) as soon as every end is closed, instead "
            "of drawing down to the reserve and passing (MP-12)",
            "engine decision (RULES.md §7 B2)",
        ),
        _free_int("target", 100, 1, "Game target: the first player to reach it wins", "seed"),
        _choice("hand_size", (7,), "Tiles dealt to each player", "seed"),
    ),
)

KOZEL = Variant(
    name="kozel",
    base="kozel",
    description="Kozel (Goat): Russian penalty game to 101",
    players=(2, 3, 4),
    options=_options(
        _hand_size(
            {2: 7, 3: 5, 4: 5},
            "Tiles dealt to each player (seed: 2p 7, 3-4p 5; classic 4p 7 with no bazaar)",
            "[seed]; [WP-RU]; [ULO],[LG]",
            presets={
                "seed": {2: 7, 3: 5, 4: 5},
                "classic": {2: 7, 3: 5, 4: 7},
                "seven": {2: 7, 3: 7, 4: 7},
            },
        ),
        _choice(
            "teams_with_4",
            (True, False),
            "With 4 players, fixed partnerships (seats 0+2 vs 1+3); otherwise each for himself",
            "[WP-RU]",
        ),
        _choice(
            "opening_order",
            ("highest_double", "one_one_first", "lowest_double_first"),
            "Round-1 opener: highest double first (6-6 ... 0-0), 1-1 ... 6-6 then 0-0, or "
            "0-0 first",
            "[seed]; [WP-RU],[ULO]; [LG],[IGR]",
        ),
        _choice(
            "nondouble_ranking",
            ("pip_sum", "lexicographic"),
            "Round-1 opener without doubles: heaviest by pip sum then high half, or "
            "lexicographic (6-5, 6-4, ..., 5-4)",
            "[ULO], engines; literal seed",
        ),
        _choice(
            "opening_tile_forced",
            (True, False),
            "The round-1 leader must lead the tile that made them leader",
            "[ULO]",
        ),
        _choice(
            "no_zero_double_lead",
            (False, True),
            "0-0 may not open a round",
            "[ZK]",
        ),
        _choice(
            "redeal_bad_hand",
            (False, True),
            "A hand with 5 or more doubles or 6 or more tiles of one number is redealt",
            "[ULO]",
        ),
        _choice(
            "next_leader",
            ("out_player", "fish_winner", "opening_rule"),
            "Later rounds: the out-player (the fish-maker after a fish), the fish winner "
            "after a fish, or the round-1 rule every round",
            "[LG]; TS engine; Cartgames",
        ),
        _choice(
            "double_double",
            (True, False),
            "With ends a != b, a player holding a-a and b-b may lay both in one turn",
            "[seed],[YG]",
        ),
        _choice(
            "lone_zero_double",
            (25, 0, 10),
            "Value of a 0-0 left alone in a hand",
            "[seed]; Cartgames; [ZK]",
        ),
        _choice(
            "scoring_style",
            ("penalty", "credit_winner"),
            "Losers write their own pips and the first to the target is the goat, or winners "
            "are credited and the first to the target wins",
            "[seed]; [WP-RU]",
        ),
        _free_int(
            "open_threshold",
            13,
            0,
            "A side's first recorded entry must be at least this (the 13 rule; 25 in "
            "морской козёл)",
            "[WP-RU]; TS engine",
        ),
        _choice(
            "sub13_mode",
            ("discard", "carry"),
            "Amounts below the threshold on a closed account are discarded, or carried until "
            "they reach it",
            "[WP-RU]; TS engine",
        ),
        _choice(
            "threshold_scope",
            ("first_entry", "every_entry"),
            "The threshold applies to a side's first entry only, or to every entry",
            "[WP-RU]; TS engine",
        ),
        _choice(
            "fish_winner",
            ("lowest_value", "blocker"),
            "Fish: the side(s) with the lowest value win, or the player who made the fish wins",
            "[OK],[YG]; [MHF]",
        ),
        _choice(
            "eggs_pot",
            ("total", "one_side", "off"),
            "Tied fish (eggs): the next loser also writes the sum of all values, the tied "
            "value, or nothing",
            "TS engine; -; Cartgames",
        ),
        _choice(
            "structural_fish_early",
            (False, True),
            "End the round as soon as both ends show x and all seven x-tiles are on the table",
            "[seed]; engine",
        ),
        _free_int(
            "target",
            101,
            1,
            "Game target: the side that reaches it is the goat (125 in морской козёл)",
            "[seed]; TS engine",
        ),
    ),
)

BLOCK = Variant(
    name="block",
    base="block",
    description=(
        "Block: the plain block game of OpenSpiel's python_block_dominoes / "
        "python_team_dominoes; one round"
    ),
    players=(2, 4),
    options=_options(
        _choice("hand_size", (7,), "Tiles dealt to each player; nobody ever draws", "RULES.md §4b"),
        _choice(
            "teams_with_4",
            (True,),
            "With 4 players, partnerships (seats 0+2 vs 1+3)",
            "RULES.md §4b",
        ),
    ),
)

DRAW = Variant(
    name="draw",
    base="draw",
    description="Draw: the generic draw game, block plus a boneyard, to 100",
    players=(2, 3, 4),
    options=_options(
        _hand_size(
            {2: 7, 3: 5, 4: 5},
            "Tiles dealt to each player",
            "[WP-DRAW],[ODG-DRAW]",
            presets={},
        ),
        _choice(
            "stock_reserve",
            (0, 1, 2),
            "Tiles that stay in the stock and are never drawn",
            "[WP-DRAW],[FH]",
        ),
        _choice(
            "teams_with_4",
            (True, False),
            "With 4 players, fixed partnerships (seats 0+2 vs 1+3); otherwise each for himself",
            "[WP-DRAW]",
        ),
        _choice(
            "blocked_award",
            ("opponents_total", "difference"),
            "Blocked round: the lightest side scores the others' total pips, or the difference",
            "[P-AF],[SD]; [ASH],[AOB]",
        ),
        _free_int("target", 100, 1, "Game target: the first side to reach it wins", "[WP-DRAW]"),
    ),
)

FIVES_AND_THREES = Variant(
    name="fives-and-threes",
    base="straight",
    description="Fives and Threes: the British pub game, multiples of 5 and 3 at the ends, to 61",
    players=(2, 3, 4),
    options=_options(
        _hand_size(
            {2: 7, 3: 5, 4: 5},
            "Tiles dealt to each player; the rest are out of play",
            "[P-F3],[80G]; [TDL]",
            presets={"pagat": {2: 7, 3: 5, 4: 5}, "teesdale": {2: 9, 4: 6}},
        ),
        _choice(
            "count_rule",
            ("fives_and_threes",),
            "The count scores count/5 for a multiple of 5 plus count/3 for a multiple of 3",
            "[P-F3],[80G],[TDL]",
        ),
        _choice(
            "spinner_rule",
            ("none",),
            "No spinner: a double is laid crosswise and counts both halves while at an end",
            "[P-F3],[ODG-F3]",
        ),
        _choice(
            "boneyard_reserve",
            ("all",),
            "No drawing: the undealt tiles are out of play; a player who cannot play knocks",
            "[P-F3],[80G]",
        ),
        _choice(
            "first_leader",
            ("random", "highest_double"),
            "Leader of the first hand: chosen by lot, or the holder of the highest double "
            "(who must lead it)",
            "[P-F3],[80G]; [QC-F3]",
        ),
        _choice(
            "next_leader",
            ("rotate",),
            "Leader of later hands: the turn to lead passes to the left",
            "[P-F3],[80G]",
        ),
        _choice(
            "hand_award",
            ("one_point",),
            "Going out (chipping out) scores 1 point with the last tile; a blocked hand "
            "scores nothing",
            "[P-F3],[80G],[ODG-F3]",
        ),
        _choice(
            "partnership_out",
            ("both_partners", "first_partner"),
            "Partnerships: play goes on until both partners of a side are out, or ends when "
            "the first player goes out",
            "[P-F3],[80G]; [ODG-F3]",
        ),
        _free_int("target", 61, 1, "Game target (a cribbage board's 61 holes)", "[P-F3],[TDL]"),
        _choice(
            "exact_target",
            (True, False),
            "The target must be hit exactly; a scoring event that overshoots it is void",
            "[P-F3],[80G],[TDL]; [ODG-F3]",
        ),
        _choice(
            "teams_with_4",
            (True, False),
            "With 4 players, fixed partnerships (seats 0+2 vs 1+3); otherwise each for himself",
            "[P-F3]; [80G]",
        ),
    ),
)

#: The built-in variants, in registration order.
BUILTIN_VARIANTS = (STRAIGHT, MULTIPLAYER, KOZEL, BLOCK, DRAW, FIVES_AND_THREES)


@hookimpl
def register_variants(register: Callable[[Variant], None]) -> None:
    """Register the built-in variants."""
    for v in BUILTIN_VARIANTS:
        register(v)
