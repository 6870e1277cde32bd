"""Train a small policy on bones.envs.VectorEnv and measure it against random.

    pip install 'bones[envs]'
    python examples/train_policy.py                   # block, 2 players: about a minute
    python examples/train_policy.py --updates 400 --n 1024

The policy is linear-softmax over the legal actions (logits = tensor @ W + b, illegal
actions masked out), trained with REINFORCE in plain numpy as seat 0 of ``n`` rounds
stepped together by VectorEnv, against uniform random (the other seats use
``env.random_actions()``).  The return of each finished round, less a running mean,
scales the gradient of its moves' log-probabilities.

It is then measured on duplicate deals with the Round API: each deal is played twice, the
policy as seat 0 and then as seat 1, against random, and the script prints the policy's
mean return per round with a 95% interval (the untrained policy first, for comparison).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from bones import Round
from bones.envs import VectorEnv


class LinearPolicy:
    def __init__(self, n_features: int, n_actions: int) -> None:
        self.w = np.zeros((n_features, n_actions), np.float32)
        self.b = np.zeros(n_actions, np.float32)

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = obs @ self.w + self.b
        logits = np.where(mask, logits, -np.inf)
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=-1, keepdims=True)

    def sample(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        p = self.probs(obs, mask)
        u = rng.random((len(p), 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)


def scale(obs: np.ndarray) -> np.ndarray:
    """Counts and scores to comparable magnitudes (the tensor holds raw values)."""
    return obs / np.maximum(1.0, np.abs(obs).max(axis=-1, keepdims=True))


def train(args: argparse.Namespace) -> LinearPolicy:
    env = VectorEnv(args.variant, args.players, args.n, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    policy = LinearPolicy(env.tensor_spec.size, env.action_space.size)
    step = env.reset()
    n, f, a = args.n, env.tensor_spec.size, env.action_space.size
    grad_w = np.zeros((n, f, a), np.float32)  # per round: sum of d log pi / dW so far
    grad_b = np.zeros((n, a), np.float32)
    gained = np.zeros(n, np.float32)
    baseline, finished, t0 = 0.0, 0, time.time()
    for update in range(args.updates):
        acc_w = np.zeros_like(policy.w)
        acc_b = np.zeros_like(policy.b)
        episodes = 0
        for _ in range(args.steps):
            mine = step.to_play == 0
            actions = env.random_actions()
            if mine.any():
                obs = scale(step.observations[mine])
                p = policy.probs(obs, step.action_masks[mine])
                chosen = policy.sample(obs, step.action_masks[mine], rng)
                actions[mine] = chosen
                onehot = -p
                onehot[np.arange(len(chosen)), chosen] += 1.0
                grad_w[mine] += obs[:, :, None] * onehot[:, None, :]
                grad_b[mine] += onehot
            step = env.step(actions)
            gained += step.rewards[:, 0]
            done = step.dones
            if done.any():
                adv = gained[done] - baseline
                acc_w += np.tensordot(adv, grad_w[done], axes=1)
                acc_b += adv @ grad_b[done]
                baseline += 0.01 * float((gained[done] - baseline).mean())
                episodes += int(done.sum())
                grad_w[done] = 0
                grad_b[done] = 0
                gained[done] = 0
        if episodes:
            policy.w += args.lr * acc_w / episodes
            policy.b += args.lr * acc_b / episodes
        finished += episodes
        if update % 20 == 0 or update == args.updates - 1:
            print(
                f"update {update:4d}: {finished} rounds, running mean return {baseline:+.2f}, "
                f"{time.time() - t0:.0f} s"
            )
    return policy


def evaluate(policy: LinearPolicy, args: argparse.Namespace) -> tuple[float, float]:
    """The policy's mean return per round against random on duplicate deals, +- 95%."""
    rng = np.random.default_rng(args.seed + 1)
    per_deal = []
    for deal in range(args.deals):
        results = []
        for seat in (0, 1):
            r = Round.deal(args.variant, args.players, seed=10_000 + deal)
            obs = np.empty(r.tensor_spec.size, np.float32)
            mask = np.zeros(r.action_space.size, bool)
            while not r.is_over:
                legal = r.legal_actions
                if r.to_move == seat:
                    r.observation_tensor(seat, obs)
                    r.action_mask(mask)
                    p = policy.probs(scale(obs[None]), mask[None])[0]
                    r.play(int(p.argmax()))
                else:
                    r.play(legal[rng.integers(len(legal))])
            results.append(r.returns()[seat])
        per_deal.append(statistics.mean(results))
    mean = statistics.mean(per_deal)
    return mean, 1.96 * statistics.stdev(per_deal) / math.sqrt(len(per_deal))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="block")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--n", type=int, default=512, help="rounds stepped together")
    ap.add_argument("--updates", type=int, default=150)
    ap.add_argument("--steps", type=int, default=16, help="env steps per update")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--deals", type=int, default=1000, help="duplicate deals to measure on")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    env = VectorEnv(args.variant, args.players, 1)
    untrained = LinearPolicy(env.tensor_spec.size, env.action_space.size)
    mean, half = evaluate(untrained, args)
    print(f"untrained (argmax of zeros: the first legal action): {mean:+.2f} +- {half:.2f}")
    policy = train(args)
    mean, half = evaluate(policy, args)
    print(
        f"trained policy vs random, {args.deals} duplicate deals: mean return {mean:+.2f} per "
        f"round (95% interval {mean - half:+.2f} .. {mean + half:+.2f})"
    )


if __name__ == "__main__":
    main()
