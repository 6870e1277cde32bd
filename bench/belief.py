"""How well the belief model (``bones.core.belief``) predicts the hidden tiles of real games.

    python bench/belief.py JOURNAL [--games 40] [--deals 200] [--betas 0.1,0.3,0.5]

JOURNAL is a match journal (``bones match ... --journal``, or bench/strength.py's
``--journals``): its games carry the true deals.  At every position where bot 0 of the
match is to move, after at least two moves by the others, ``--deals`` deals are drawn by
``observation.sample`` and weighted by ``exp(round_log_likelihood)`` for each beta (the
expert's weights of the variant, changed by ``--weights name=value,...``).  The report is
the log-loss of the weighted marginals P(seat holds tile) against the true hands, per
position (lower is better), for the plain sampler (uniform) and for each beta, with the
effective sample size of the weights as a fraction of the deals.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import random
from collections.abc import Iterator

from bones.core.belief import round_log_likelihood
from bones.core.round import Round
from bones.plugins.search_bots import expert_weights

EPS = 1e-3  # marginals are clipped to [EPS, 1 - EPS]: a finite loss for every estimate


def positions(path: str, games: int) -> Iterator[tuple[Round, int]]:
    """(round, seat) for every position of bot 0 after two moves by the others."""
    with open(path) as handle:
        seen = 0
        for line in handle:
            record = json.loads(line)
            if record.get("type") != "game":
                continue
            seen += 1
            if seen > games:
                return
            me = record["seat_bots"].index(0)
            for entry in record["rounds"]:
                rnd = Round.from_msgpack(base64.b64decode(entry["round"]))
                moves = list(rnd.moves)
                while rnd.moves:
                    rnd.undo()
                others = 0
                for move in moves:
                    if rnd.to_move == me and others >= 2:
                        yield rnd.copy(), me
                    others += rnd.to_move != me
                    rnd.play(move)


def log_loss(truth: dict[int, set], hands: list[dict[int, set]], weights: list[float]) -> float:
    """The log-loss of the weighted marginals against the true hands."""
    total = sum(weights)
    tiles = set().union(*truth.values(), *(t for h in hands for t in h.values()))
    loss = 0.0
    for seat, held in truth.items():
        for tile in tiles:
            p = sum(w for w, h in zip(weights, hands, strict=True) if tile in h[seat]) / total
            p = min(max(p, EPS), 1 - EPS)
            loss -= math.log(p if tile in held else 1 - p)
    return loss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("journal")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--betas", default="0,0.1,0.2,0.3,0.5,1")
    parser.add_argument("--weights", default="", help="expert weights changed: name=value,...")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    betas = [float(b) for b in args.betas.split(",")]
    overrides = dict(kv.split("=") for kv in args.weights.split(",") if kv)
    rng = random.Random(args.seed)
    loss = {"uniform": 0.0, **{b: 0.0 for b in betas}}
    ess = {b: 0.0 for b in betas}
    count, variant = 0, ""
    for rnd, me in positions(args.journal, args.games):
        variant = rnd.variant
        weights = expert_weights(variant, {k: float(v) for k, v in overrides.items()})
        obs = rnd.observation(me)
        truth = {s: set(rnd.hand(s)) for s in range(rnd.players) if s != me}
        deals = [obs.sample(rng) for _ in range(args.deals)]
        hands = [{s: set(d.hand(s)) for s in truth} for d in deals]
        loss["uniform"] += log_loss(truth, hands, [1.0] * len(deals))
        for beta in betas:
            lls = [round_log_likelihood(d, me, beta, weights) for d in deals]
            top = max(lls)
            ws = [math.exp(x - top) for x in lls]
            ess[beta] += sum(ws) ** 2 / sum(w * w for w in ws) / len(ws)
            loss[beta] += log_loss(truth, hands, ws)
        count += 1
    if not count:
        raise SystemExit("no positions: the journal has no game of bot 0 past two moves")
    print(f"{args.journal}: {variant}, {count} positions, {args.deals} deals each")
    print("log-loss per position (lower is better), effective sample size of the weights")
    for name, value in loss.items():
        extra = f"   ESS {ess[name] / count:.2f}" if name in ess else ""
        label = "uniform" if name == "uniform" else f"beta {name}"
        print(f"  {label:>10}: {value / count:.3f}{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
