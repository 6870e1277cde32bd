"""Hand-made mutants for ``python mutation/run.py``: realistic one-line mistakes in the
core, the game layer and the match statistics.

Each mutant is (id, file, original, mutated, description).  ``original`` must occur
exactly once in ``file`` (give enough context); when the source changes so that it no
longer does, the runner reports the mutant *stale* and the snippet must be updated here.

A mutant that cannot be told apart from the original by any test (an equivalent mutant)
does not belong in the list; the ones removed for that reason are noted at the end.
"""

from __future__ import annotations

from typing import NamedTuple


class Mutant(NamedTuple):
    id: str
    file: str
    original: str
    mutated: str
    description: str


STATE = "src/core/state.pyx"
ROUND = "src/core/round.pyx"
RULES = "src/core/rules.pyx"
MOVES = "src/core/moves.pyx"
GAME = "src/game.py"
GAME_RULES = "src/gamerules/base.py"
STRAIGHT_GAME = "src/gamerules/straight.py"
KOZEL_GAME = "src/gamerules/kozel.py"
STATS = "src/match/stats.py"
REPORT = "src/match/report.py"
JOURNAL = "src/match/journal.py"

MUTANTS: list[Mutant] = [
    # ---- the core: src/core/state.pyx -----------------------------------------------
    Mutant(
        "state-next-seat",
        STATE,
        "    return 0 if seat == s.r.players else seat",
        "    return 0 if seat > s.r.players else seat",
        "turn order: wrap-around off by one",
    ),
    Mutant(
        "state-can-draw-reserve",
        STATE,
        "    return s.r.draws and s.stock_len - s.stock_top > s.r.reserve",
        "    return s.r.draws and s.stock_len - s.stock_top >= s.r.reserve",
        "forced draw: the reserved boneyard tiles may be drawn (> vs >=)",
    ),
    Mutant(
        "state-round5",
        STATE,
        "    return 5 * ((n + 2) // 5)",
        "    return 5 * ((n + 3) // 5)",
        "core round5: remainder 2 rounds up",
    ),
    Mutant(
        "state-claim-zero-count",
        STATE,
        "        c = peek_count(s, s.moves[i])\n        if c > 0 and c % 5 == 0:",
        "        c = peek_count(s, s.moves[i])\n        if c % 5 == 0:",
        "muggins: a count of 0 may be claimed",
    ),
    Mutant(
        "state-muggins-side",
        STATE,
        "if s.pending and r.side_of[s.to_move] != s.pending_side:",
        "if s.pending and r.side_of[s.to_move] == s.pending_side:",
        "muggins offered to the side that made the count, not to its opponents",
    ),
    Mutant(
        "state-muggins-unclaimed",
        STATE,
        "if s.pending and r.side_of[s.to_move] != s.pending_side:",
        "if r.side_of[s.to_move] != s.pending_side:",
        "muggins offered even when there is no unclaimed count",
    ),
    Mutant(
        "state-draw-with-playable-reserve",
        STATE,
        "    if r.draws and s.stock_len - s.stock_top > r.reserve:",
        "    if r.draws and s.stock_len - s.stock_top >= r.reserve:",
        "voluntary draw/pass offered from the reserved boneyard (> vs >=)",
    ),
    Mutant(
        "state-lead-double-pts",
        STATE,
        "        s.ends[0].pts = 2 * hi if lo == hi else hi",
        "        s.ends[0].pts = hi",
        "a non-spinning lead double counts one half at W",
    ),
    Mutant(
        "state-end-double-pts",
        STATE,
        "        end.pts = 2 * out if lo == hi else out",
        "        end.pts = out",
        "a double at the end of an arm counts one half",
    ),
    Mutant(
        "state-first-double-spins",
        STATE,
        "s.r.spinner == SPINNER_FIRST_DOUBLE and s.n_spinners == 0)",
        "s.r.spinner == SPINNER_FIRST_DOUBLE and s.n_spinners <= 1)",
        "first_double: the second double also spins",
    ),
    Mutant(
        "state-lone-lead-double-once",
        STATE,
        "        c -= s.ends[1].pts",
        "        c -= 0",
        "a lone lead double seen from W and E counts twice",
    ),
    Mutant(
        "state-exact-target-hit",
        STATE,
        "    if s.r.target > 0 and s.r.exact_target and s.score[side] + points > s.r.target:",
        "    if s.r.target > 0 and s.r.exact_target and s.score[side] + points >= s.r.target:",
        "exact_target: hitting the target exactly is void too (missed exact target)",
    ),
    Mutant(
        "state-target-exact-landing",
        STATE,
        "s.r.target_immediate and s.score[side] >= s.r.target:",
        "s.r.target_immediate and s.score[side] > s.r.target:",
        "a count landing exactly on the target does not end the round",
    ),
    Mutant(
        "state-count-modulus",
        STATE,
        "    if s.r.count_scoring:\n        if c > 0 and c % 5 == 0:",
        "    if s.r.count_scoring:\n        if c > 0 and c % 3 == 0:",
        "the count scores on multiples of 3 instead of 5",
    ),
    Mutant(
        "state-pending-scale",
        STATE,
        "                s.pending = c  # scaled once, by add_points when claimed",
        "                s.pending = c // s.r.score_scale",
        "an unclaimed count is scaled twice: stored scaled, then scaled again when claimed",
    ),
    Mutant(
        "state-all-pass-blocked",
        STATE,
        "        if s.passes >= s.r.players:",
        "        if s.passes > s.r.players:",
        "voluntary passes: blocked one pass too late",
    ),
    Mutant(
        "state-redeal-five-doubles",
        STATE,
        "    if popcount(h & DOUBLES_MASK) >= 5:",
        "    if popcount(h & DOUBLES_MASK) > 5:",
        "Kozel redeal: exactly five doubles is not redealt",
    ),
    Mutant(
        "state-redeal-six-of-number",
        STATE,
        "        if popcount(h & PIP_MASK[p]) >= 6:",
        "        if popcount(h & PIP_MASK[p]) > 6:",
        "Kozel redeal: exactly six of one number is not redealt",
    ),
    Mutant(
        "state-lone-zero-any-hand",
        STATE,
        "    if s.r.family == FAMILY_KOZEL and s.hand[seat] == 1u:",
        "    if s.r.family == FAMILY_KOZEL and s.hand[seat] & 1u:",
        "Kozel: 0-0 worth 25 in any hand, not only alone",
    ),
    Mutant(
        "state-lightest-tile-swapped",
        STATE,
        "            return 0 if best_a < best_b else 1",
        "            return 1 if best_a < best_b else 0",
        "Multiplayer blocked tie: the holder of the heavier tile wins",
    ),
    Mutant(
        "state-eggs-everyone-wins",
        STATE,
        "        elif n_least < n:",
        "        elif n_least <= n:",
        "Kozel eggs: an all-tied fish makes every side a winner",
    ),
    Mutant(
        "state-domino-no-round5",
        STATE,
        "            out.points[w] = round5(other) // scale",
        "            out.points[w] = other // scale",
        "All Fives domino bonus not rounded to five",
    ),
    Mutant(
        "state-blocked-difference",
        STATE,
        "            other -= least * (n - 1)",
        "            other -= least * n",
        "blocked difference subtracts the winner's pips once too often",
    ),
    Mutant(
        "state-three-way-split",
        STATE,
        "                out.points[x] = 5 * (round5(other) // n_least // 5) // scale",
        "                out.points[x] = round5(other) // n_least // scale",
        "blocked tie for least: the share is not rounded down to a multiple of 5",
    ),
    Mutant(
        "state-stock-pips-drawn",
        STATE,
        "                for i in range(s.stock_top, s.stock_len):",
        "                for i in range(0, s.stock_len):",
        "stock_pips_to_winner also counts the tiles already drawn",
    ),
    Mutant(
        "state-opening-high-half",
        STATE,
        "                rank = tile_pips(t) * 8 + TILE_HI[t]",
        "                rank = tile_pips(t) * 8 + TILE_LO[t]",
        "opener without doubles: equal pip sums broken by the low half",
    ),
    Mutant(
        "state-target-winners-outcome",
        STATE,
        "            if s.score[x] >= r.target:",
        "            if s.score[x] > r.target:",
        "a round ended on the target: the side exactly at it is not a winner",
    ),
    Mutant(
        "state-kozel-out-winner",
        STATE,
        "        if s.status == OVER_OUT or r.fish_blocker:",
        "        if s.status == OVER_OUT and r.fish_blocker:",
        "Kozel: the out-player's side does not win by default",
    ),
    Mutant(
        "state-partner-subtract",
        STATE,
        "                other = other - pips[w] if other > pips[w] else 0",
        "                other = other - pips[w] if other > pips[w] else pips[w] - other",
        "partner_pips_on_domino=subtract: a negative bonus is turned positive",
    ),
    # ---- the core: rules.pyx, round.pyx, moves.pyx ----------------------------------
    Mutant(
        "rules-partners",
        RULES,
        "        r.side_of[seat] = (seat % 2) if teams else seat",
        "        r.side_of[seat] = (seat // 2) if teams else seat",
        "partnerships are neighbours (0+1 vs 2+3) instead of opposite",
    ),
    Mutant(
        "rules-one-one-first-order",
        RULES,
        '    "one_one_first": (1, 2, 3, 4, 5, 6, 0),',
        '    "one_one_first": (1, 2, 3, 4, 5, 0, 6),',
        "one_one_first: 0-0 before 6-6",
    ),
    Mutant(
        "rules-no-zero-double-lead",
        RULES,
        "        order = tuple(p for p in order if p != 0)",
        "        order = tuple(p for p in order if p != 1)",
        "no_zero_double_lead drops 1-1 instead of 0-0",
    ),
    Mutant(
        "round-points-after-exact",
        ROUND,
        "rules.c.exact_target and side_score + points > rules.c.target:",
        "rules.c.exact_target and side_score + points >= rules.c.target:",
        "points_after: an exact hit of the target shown as void",
    ),
    Mutant(
        "round-points-after-scale",
        ROUND,
        "        points //= rules.c.score_scale",
        "        pass",
        "points_after ignores score_scale",
    ),
    Mutant(
        "moves-double-double-order",
        MOVES,
        "    if (b >> 5) & 31 < (a >> 5) & 31:",
        "    if (b >> 5) & 31 > (a >> 5) & 31:",
        "a parsed double-double is put in the wrong canonical order",
    ),
    Mutant(
        "state-undo-score-sign",
        STATE,
        "    s.score[side] -= p.points",
        "    s.score[side] += p.points",
        "undo adds the move's points instead of taking them back",
    ),
    Mutant(
        "state-structural-fish",
        STATE,
        "elif s.r.structural_fish and (ALL_TILES & ~s.table & open_mask(s)) == 0:",
        "elif s.r.structural_fish and (ALL_TILES & s.table & open_mask(s)) == 0:",
        "structural_fish_early: tests the tiles on the table instead of those off it",
    ),
    Mutant(
        "round-draw-event-seat",
        ROUND,
        'out.append(Event("draw", p.chain_seat, None, p.drawn, 0))',
        'out.append(Event("draw", p.seat, None, p.drawn, 0))',
        "forced draws after a move are logged for the mover, not for the drawer",
    ),
    Mutant(
        "round-pass-event-seat",
        ROUND,
        "            seat = (seat + 1) % self.rules.c.players",
        "            seat = seat % self.rules.c.players",
        "consecutive forced passes are all logged for the same seat",
    ),
    Mutant(
        "round-observation-legal",
        ROUND,
        "        mine = self.st.status == PLAYING and self.st.to_move == seat",
        "        mine = self.st.status == PLAYING",
        "an observation shows the legal moves to a seat that is not to move",
    ),
    Mutant(
        "rules-hand-size-limit",
        RULES,
        "    if players * r.hand_size > 28:",
        "    if players * r.hand_size >= 28:",
        "a deal of exactly 28 tiles (4 x 7) is refused",
    ),
    # ---- the game layer: src/game.py and the game rules, src/gamerules/ -------------
    Mutant(
        "game-round5",
        STRAIGHT_GAME,
        "    return 5 * ((n + 2) // 5)",
        "    return 5 * ((n + 3) // 5)",
        "game round5: remainder 2 rounds up",
    ),
    Mutant(
        "game-target-winners",
        GAME_RULES,
        "(s == target if exact else s >= target)",
        "(s == target if exact else s > target)",
        "target_winners: a score exactly at the target has not won",
    ),
    Mutant(
        "game-exact-hand-bonus",
        STRAIGHT_GAME,
        "        if exact_target and out[side] + points > target:",
        "        if exact_target and out[side] + points >= target:",
        "exact_target: a hand bonus hitting the target exactly is void",
    ),
    Mutant(
        "game-penalty-sign",
        STRAIGHT_GAME,
        "        out = [s - p for s, p in zip(out, penalty, strict=True)]",
        "        out = [s + p for s, p in zip(out, penalty, strict=True)]",
        "hand_penalty added instead of subtracted",
    ),
    Mutant(
        "game-kozel-threshold",
        KOZEL_GAME,
        "    if total >= rules.open_threshold:",
        "    if total > rules.open_threshold:",
        "Kozel 13 rule: exactly 13 does not open the account",
    ),
    Mutant(
        "game-kozel-pot-forgotten",
        KOZEL_GAME,
        "        amounts = {side: values[side] + accounts.pot for side in losers}",
        "        amounts = {side: values[side] for side in losers}",
        "Kozel eggs: the pot is not added to the next loser",
    ),
    Mutant(
        "game-kozel-pot-not-accumulated",
        KOZEL_GAME,
        "        pot = accounts.pot + extra.get(rules.eggs_pot, 0)",
        "        pot = extra.get(rules.eggs_pot, 0)",
        "Kozel eggs: consecutive eggs do not accumulate",
    ),
    Mutant(
        "game-kozel-goat-target",
        KOZEL_GAME,
        "    reached = [i for i, s in enumerate(scores) if s >= rules.target]",
        "    reached = [i for i, s in enumerate(scores) if s > rules.target]",
        "Kozel: exactly 101 is not the goat",
    ),
    Mutant(
        "game-kozel-goat-swapped",
        KOZEL_GAME,
        "    return other, first",
        "    return first, other",
        "Kozel penalty style: winners and goats swapped",
    ),
    Mutant(
        "game-rotate-leader",
        STRAIGHT_GAME,
        "            return (prev_leader + 1) % len(seat_values), {}",
        "            return (prev_leader - 1) % len(seat_values), {}",
        "next_leader=rotate turns right instead of left",
    ),
    Mutant(
        "game-lightest-winner",
        GAME_RULES,
        "    return min(seats, key=lambda seat: (seat_values[seat], seat))",
        "    return max(seats, key=lambda seat: (seat_values[seat], seat))",
        "next leader: the heaviest player of the winning side",
    ),
    Mutant(
        "game-penalty-no-round5",
        STRAIGHT_GAME,
        "        return tuple(result.points), tuple(round5(v) // scale for v in result.values)",
        "        return tuple(result.points), tuple(v // scale for v in result.values)",
        "hand_penalty not rounded to five",
    ),
    Mutant(
        "game-random-seat",
        GAME,
        "    return (_derive(seed, _STREAM_LEADER, index) * players) >> 63",
        "    return (_derive(seed, _STREAM_LEADER, index) * players) >> 64",
        "the lot for the next leader always draws seat 0",
    ),
    Mutant(
        "game-kozel-fish-winner-leader",
        KOZEL_GAME,
        '        if result.reason == "out" or nl != "fish_winner" or not result.winners:',
        '        if result.reason == "out" or nl == "fish_winner" or not result.winners:',
        "Kozel next_leader=fish_winner ignored (swapped test)",
    ),
    Mutant(
        "game-seat-value-lone-zero",
        KOZEL_GAME,
        "pips == 0 and rnd.hand_sizes[seat] == 1:",
        "rnd.hand_sizes[seat] == 1 and rnd.hand(seat)[0].low == 0:",
        "Kozel seat value: any lone x-0 tile counts as a lone 0-0",
    ),
    Mutant(
        "game-credit-pot",
        KOZEL_GAME,
        "        credit = sum(values[side] for side in losers) + accounts.pot",
        "        credit = sum(values[side] for side in losers)",
        "credit_winner: the eggs pot is not credited",
    ),
    Mutant(
        "game-carry-hanging",
        KOZEL_GAME,
        '    total = hanging + amount if rules.sub13_mode == "carry" else amount',
        "    total = amount",
        "sub13_mode=carry: the hanging amount is not added",
    ),
    # ---- the match statistics: src/match/ -------------------------------------------
    Mutant(
        "stats-elo-sign",
        STATS,
        "    return -400.0 * math.log10(1.0 / score - 1.0)",
        "    return 400.0 * math.log10(1.0 / score - 1.0)",
        "Elo from score: sign flipped",
    ),
    Mutant(
        "stats-score-from-elo-sign",
        STATS,
        "    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))",
        "    return 1.0 / (1.0 + 10.0 ** (elo / 400.0))",
        "expected score from Elo: sign flipped",
    ),
    Mutant(
        "stats-interval-width",
        STATS,
        "    half = Z95 * math.sqrt(max(variance, 0.0) / n)",
        "    half = Z95 * math.sqrt(max(variance, 0.0)) / n",
        "95% interval: divides the deviation by n, not sqrt(n)",
    ),
    Mutant(
        "stats-los-sign",
        STATS,
        "        los = 0.5 * (1.0 + math.erf((score - 0.5) / math.sqrt(2.0 * variance / n)))",
        "        los = 0.5 * (1.0 + math.erf((0.5 - score) / math.sqrt(2.0 * variance / n)))",
        "likelihood of superiority: sign flipped",
    ),
    Mutant(
        "stats-sprt-lower",
        STATS,
        "        return math.log(self.beta / (1.0 - self.alpha))",
        "        return math.log(self.alpha / (1.0 - self.beta))",
        "GSPRT lower bound with alpha and beta swapped",
    ),
    Mutant(
        "stats-sprt-upper",
        STATS,
        "        return math.log((1.0 - self.beta) / self.alpha)",
        "        return math.log((1.0 - self.alpha) / self.beta)",
        "GSPRT upper bound with alpha and beta swapped",
    ),
    Mutant(
        "stats-sprt-decide-boundary",
        STATS,
        "        if value >= self.upper:",
        "        if value > self.upper:",
        "SPRT: an LLR exactly at the upper bound goes on",
    ),
    Mutant(
        "stats-penta-bucket",
        STATS,
        "        counts[index] += 1",
        "        counts[4 - index] += 1",
        "pentanomial counts in reversed buckets",
    ),
    Mutant(
        "stats-llr-mean",
        STATS,
        "    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)",
        "    return n * (s1 - s0) * (mean - s0 - s1) / (2.0 * variance)",
        "mean/variance LLR: 2 mean written as mean",
    ),
    Mutant(
        "stats-llr-sign",
        STATS,
        "        p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True)",
        "        p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p0, p1, strict=True)",
        "GSPRT LLR: H0 and H1 swapped (sign)",
    ),
    Mutant(
        "stats-game-scores",
        STATS,
        "            acc[0] += 1.0 if a > b else 0.5 if a == b else 0.0",
        "            acc[0] += 1.0 if a < b else 0.5 if a == b else 0.0",
        "pairwise game score: the worse rank scores 1",
    ),
    Mutant(
        "stats-sample-variance",
        STATS,
        "    return mean, math.fsum((x - mean) ** 2 for x in samples) / n",
        "    return mean, math.fsum((x - mean) ** 2 for x in samples) / (n - 1)",
        "unit variance with n - 1 (fastchess uses the population variance)",
    ),
    Mutant(
        "stats-penta-variance",
        STATS,
        "    return mean, var / total, total",
        "    return mean, var / (total - 1), total",
        "pentanomial variance with n - 1",
    ),
    Mutant(
        "report-penta-unfinished",
        REPORT,
        "            if self.penta and len(values) == 2:",
        "            if self.penta:",
        "pentanomial counts include unfinished pairs",
    ),
    Mutant(
        "report-wdl",
        REPORT,
        "    return 0 if score > 0.5 else 1 if score == 0.5 else 2",
        "    return 0 if score >= 0.5 else 1 if score == 0.5 else 2",
        "W/D/L tally: a draw counted as a win",
    ),
    Mutant(
        "report-live-partial-group",
        REPORT,
        "        while len(self._groups.get(self._next, ())) >= self.group_size:",
        "        while len(self._groups.get(self._next, ())) >= 1:",
        "the SPRT is fed unfinished duplicate sets",
    ),
    Mutant(
        "journal-ranks",
        JOURNAL,
        "    return [2 if s in winners else 0 if s in losers else 1 for s in range(n_sides)]",
        "    return [2 if s in winners else 1 if s in losers else 0 for s in range(n_sides)]",
        "journal ranks: losers and middle players swapped",
    ),
]

# Removed as equivalent (no test can tell them from the original):
# - state.pyx opening(): ``rank > best`` -> ``rank >= best``: every tile has its own rank
#   (pip sum * 8 + high half), so a tie between two different tiles cannot happen.
# - stats.pentanomial_counts: ``round(points * 2)`` -> ``int(points * 2)``: the valid
#   pair scores are exact halves, for which both give the same bucket.
