"""An independent, deliberately simple model of the two train games of TRAINS_SPEC.md.

Mexican Train (layout "trains") and Chicken Foot (layout "chicken_foot"), one round each.
It shares no code with the bones core (nothing is imported from bones): the differential
test (tests/test_trains_differential.py) plays the same deals on both and compares them
after every ply, so a rule misread in one of them shows up as a disagreement.

Clarity over speed: a tile is a ``(high, low)`` tuple, hands are lists, trains and open
ends are dicts, and every rule is an explicit loop or ``if``. Places where the spec leaves
room for more than one reading are marked ``# SPEC:`` with the reading taken here.
"""

from __future__ import annotations

from dataclasses import dataclass

Tile = tuple[int, int]  # (high, low), high >= low

LAYOUTS = ("trains", "chicken_foot")
SET_MAXES = (6, 9, 12)


def make_tile(a: int, b: int) -> Tile:
    """The tile with numbers a and b, high half first."""
    return (max(a, b), min(a, b))


def tile_text(t: Tile) -> str:
    return f"{t[0]}-{t[1]}"


def parse_tile(text: str) -> Tile:
    """ "12-5" or "5-12" -> (12, 5)."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a tile: {text!r}")
    return make_tile(int(parts[0]), int(parts[1]))


def is_double(t: Tile) -> bool:
    return t[0] == t[1]


def other_number(t: Tile, n: int) -> int:
    """The number of tile t at the far end when its n end touches the layout."""
    if t[0] == n:
        return t[1]
    if t[1] == n:
        return t[0]
    raise ValueError(f"{tile_text(t)} has no {n}")


def set_tiles(set_max: int) -> list[Tile]:
    """The double-N set in index order: 0-0, 0-1, ..., 0-N, 1-1, ..., N-N (as (high, low))."""
    return [make_tile(a, b) for a in range(set_max + 1) for b in range(a, set_max + 1)]


def tile_index(t: Tile, set_max: int) -> int:
    """The spec's index formula, a = low, b = high."""
    b, a = t
    return a * (set_max + 1) - a * (a - 1) // 2 + (b - a)


@dataclass(frozen=True)
class Result:
    reason: str  # "out" or "blocked"
    out_seat: int | None
    penalties: tuple[int, ...]


class TrainsModel:
    """One round of a train game, played move by move.

    ``stock`` is top first. Forced draws and passes happen inside the constructor and
    ``play``: whenever the model waits for a move, ``legal_moves()`` is not empty (or the
    round is over).
    """

    def __init__(
        self,
        layout: str,
        set_max: int,
        hands: list[list[str]],
        stock: list[str],
        engine: int,
        leader: int,
        zero_double: int = 0,
        first_turn_own_train: bool = False,
        engine_toes: int = 4,
    ) -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
        if set_max not in SET_MAXES:
            raise ValueError(f"set_max must be one of {SET_MAXES}, got {set_max!r}")
        if not 2 <= len(hands) <= 8:
            raise ValueError(f"2 to 8 players, got {len(hands)}")
        if not 0 <= engine <= set_max:
            raise ValueError(f"engine must be 0..{set_max}, got {engine}")
        if not 0 <= leader < len(hands):
            raise ValueError(f"leader must be a seat 0..{len(hands) - 1}, got {leader}")
        if engine_toes not in (4, 6):
            raise ValueError(f"engine_toes must be 4 or 6, got {engine_toes}")
        self.layout = layout
        self.set_max = set_max
        self.players = len(hands)
        self.engine = engine
        self.leader = leader
        self.zero_double = zero_double
        self.first_turn_own_train = first_turn_own_train
        self.engine_toes = engine_toes

        self.hands: list[list[Tile]] = [[parse_tile(x) for x in hand] for hand in hands]
        self.stock: list[Tile] = [parse_tile(x) for x in stock]
        seen: set[Tile] = {(engine, engine)}
        for t in [t for hand in self.hands for t in hand] + self.stock:
            if t[0] > set_max:
                raise ValueError(f"{tile_text(t)} is not in the double-{set_max} set")
            if t in seen:
                raise ValueError(f"{tile_text(t)} is dealt twice (or is the engine)")
            seen.add(t)

        self.to_move: int | None = leader
        self.over = False
        self.result: Result | None = None
        # (kind, seat, tile text or None, target or None); a draw's tile is hidden: None.
        self.events: list[tuple[str, int, str | None, str | None]] = []
        self.passes_in_row = 0
        # The tile just drawn for the mover, which fits: the only tile that may be played.
        self.drawn: Tile | None = None

        if layout == "trains":
            # train id -> open number; an empty train shows the engine's number
            self.open = {f"P{s}": engine for s in range(self.players)}
            self.open["M"] = engine
            self.length = {tid: 0 for tid in self.open}
            self.public: set[int] = set()  # seats whose personal train carries a marker
            self.pending: str | None = None  # the train whose double awaits its tile
        else:
            # anchor text -> open number, for every non-double tile with a free end
            self.ends: dict[str, int] = {}
            # the double (or the engine) whose toes are due: anchor text, number, toes left
            self.foot: tuple[str, int, int] | None = (
                tile_text((engine, engine)),
                engine,
                engine_toes,
            )

        # SPEC: the forced draws and passes also run at the deal: a leader without a
        # placement draws (and maybe passes) before anyone has made a move.
        self._settle()

    # ----------------------------------------------------------------------------------
    # Where tiles may go

    def _placements(self, seat: int, tiles: list[Tile]) -> list[tuple[Tile, str]]:
        """Every (tile, target) that seat may place now, for the tiles given."""
        if self.layout == "trains":
            return self._train_placements(seat, tiles)
        return self._foot_placements(tiles)

    def _train_placements(self, seat: int, tiles: list[Tile]) -> list[tuple[Tile, str]]:
        own = f"P{seat}"
        if self.pending is not None:
            # SPEC: a pending double binds everyone, whatever the train's marker ("every
            # placement by anyone must go on it"). It never matters in practice: a pending
            # personal train is public by the time another seat is to move (its owner
            # passed, or another seat could only place the double there because it was).
            targets = [self.pending]
        else:
            targets = [own, "M"]
            for other in range(self.players):
                if other != seat and other in self.public:
                    targets.append(f"P{other}")
        # SPEC: "own train empty" means no tile on it, whoever placed it: another seat may
        # start a public empty train, and that lifts its owner's restriction too.
        if self.first_turn_own_train and self.length[own] == 0:
            # SPEC: with the option on and the own train still empty, both limits hold at
            # once: only the own train, and only the pending train if there is one (so a
            # pending double elsewhere leaves this seat nothing: it draws or passes).
            targets = [t for t in targets if t == own]
        out = []
        for target in targets:
            number = self.open[target]
            for t in tiles:
                if number in t:
                    out.append((t, target))
        return out

    def _foot_placements(self, tiles: list[Tile]) -> list[tuple[Tile, str]]:
        out = []
        if self.foot is not None:
            anchor, number, _ = self.foot
            for t in tiles:
                # a toe cannot be a double: the only double with this number is on the table
                if number in t and not is_double(t):
                    out.append((t, anchor))
            return out
        for anchor, number in self.ends.items():
            for t in tiles:
                if number in t:
                    out.append((t, anchor))
        return out

    def legal_moves(self) -> list[str]:
        """The legal moves as text (``"12-5@M"``, ``"9-4@9-9"``), sorted."""
        if self.over:
            return []
        assert self.to_move is not None
        tiles = [self.drawn] if self.drawn is not None else self.hands[self.to_move]
        return sorted(
            f"{tile_text(t)}@{target}" for t, target in self._placements(self.to_move, tiles)
        )

    # ----------------------------------------------------------------------------------
    # Playing

    def play(self, text: str) -> None:
        """Place a tile (``"7-3@P1"``), then run the forced draws and passes that follow."""
        if self.over:
            raise ValueError("the round is over")
        if text not in self.legal_moves():
            raise ValueError(f"illegal move {text!r}; legal: {self.legal_moves()}")
        seat = self.to_move
        assert seat is not None
        tile_part, target = text.split("@")
        t = parse_tile(tile_part)
        self.hands[seat].remove(t)
        self.drawn = None
        self.passes_in_row = 0
        self.events.append(("place", seat, tile_text(t), target))
        if self.layout == "trains":
            again = self._place_on_train(seat, t, target)
        else:
            self._place_on_foot(t, target)
            # SPEC: Chicken Foot has no bonus move after a double: the toes are placed by
            # whoever's turn it is, in the usual order.
            again = False
        if not self.hands[seat]:
            # out, also with a double not yet satisfied
            self._finish("out", seat)
            return
        self.to_move = seat if again else (seat + 1) % self.players
        self._settle()

    def _place_on_train(self, seat: int, t: Tile, target: str) -> bool:
        """Place t on a train; True when the same seat moves again (a double was placed)."""
        self.open[target] = other_number(t, self.open[target])
        self.length[target] += 1
        if target == f"P{seat}":
            self.public.discard(seat)  # the owner plays on the own train: marker off
        if self.pending == target:
            self.pending = None  # the double is satisfied; the turn ends
            return False
        if is_double(t):
            self.pending = target
            return True
        return False

    def _place_on_foot(self, t: Tile, anchor: str) -> None:
        if self.foot is not None:
            foot_anchor, number, left = self.foot
            assert anchor == foot_anchor
            self.ends[tile_text(t)] = other_number(t, number)  # open once the foot is done
            self.foot = (foot_anchor, number, left - 1) if left > 1 else None
            return
        number = self.ends.pop(anchor)  # the end is closed by the new tile
        if is_double(t):
            self.foot = (tile_text(t), number, 3)  # a chicken foot: 3 toes due
        else:
            self.ends[tile_text(t)] = other_number(t, number)

    def _settle(self) -> None:
        """Draw and pass for the mover until someone has a move or the round ends."""
        while not self.over:
            seat = self.to_move
            assert seat is not None
            if self.drawn is not None or self._placements(seat, self.hands[seat]):
                return
            if self.stock:
                t = self.stock.pop(0)
                self.hands[seat].append(t)
                self.events.append(("draw", seat, None, None))
                if self._placements(seat, [t]):
                    self.drawn = t  # must be played; the player still chooses where
                    return
            self._pass(seat)

    def _pass(self, seat: int) -> None:
        self.events.append(("pass", seat, None, None))
        if self.layout == "trains":
            self.public.add(seat)  # marker on the own train
        self.passes_in_row += 1
        # SPEC: "blocked: every seat has passed in a row (players consecutive passes,
        # possible only with an empty stock)". Passes after a draw can follow each other
        # while the stock still holds tiles, and a marker put up by a pass can open a
        # train to a seat that passed earlier, so this model ends the round when the last
        # `players` turns were all passes, the stock is empty AND nobody can place.
        if (
            self.passes_in_row >= self.players
            and not self.stock
            and not any(self._placements(s, self.hands[s]) for s in range(self.players))
        ):
            self._finish("blocked", None)
            return
        self.to_move = (seat + 1) % self.players

    def _finish(self, reason: str, out_seat: int | None) -> None:
        self.over = True
        self.to_move = None
        self.drawn = None
        self.result = Result(reason, out_seat, tuple(self.penalty(s) for s in range(self.players)))

    # ----------------------------------------------------------------------------------
    # Looking

    def penalty(self, seat: int) -> int:
        """Pips in the seat's hand; 0-0 counts ``zero_double``."""
        total = 0
        for t in self.hands[seat]:
            total += self.zero_double if t == (0, 0) else t[0] + t[1]
        return total

    def hand_texts(self, seat: int) -> set[str]:
        return {tile_text(t) for t in self.hands[seat]}

    @property
    def stock_size(self) -> int:
        return len(self.stock)

    def public_events(self) -> list[tuple[str, int, str | None]]:
        """(kind, seat, tile text for a placement else None), in order."""
        return [(kind, seat, tile) for kind, seat, tile, _ in self.events]
