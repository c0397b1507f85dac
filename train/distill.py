"""Search distillation: fit a policy and value MLP to a teacher's decisions, and write ``.npz`` weights.

The first stage of expert iteration (Anthony et al. 2017; AlphaZero without the tree): the
teacher (``search_v0``) plays (:mod:`kortmiljo.train.expert_data`), and the student learns

* its **moves**: cross-entropy against a target that puts ``1 - soft`` on the teacher's move
  and ``soft`` on a softmax of the search's action scores (``q / temperature``) where it
  searched, so near-ties between actions are not taught as certainties;
* its **outcomes**: the seat's return from the decision on (mean squared error), for the
  value head that records and hints show.

``--target advantage`` (with ``--advisor``) regresses scores instead of copying moves: the
actor's output for an action is taught its score minus the advisor's move's score (mean squared
error, on the scored actions only; less ``--margin`` on every other action, so the student leaves
the advisor's move only where it expects to gain more than that), and the student plays the
argmax. Where a decision has no scores (a stage the teacher leaves to the heuristic) the advisor's
move is taught 0 and the others ``-1``. This is the form for :mod:`kortmiljo.train.oracle_data`, whose
single-rollout scores are noisy but unbiased: a regression averages the noise out over similar
positions, where copying each decision's best action would learn it.

Games, not decisions, are held out (5 %): the decisions of one game share its outcome. Each
head keeps its best epoch on the held-out games. The result is written with
:func:`kortmiljo.agents.pretrained.save_weights`, so it plays with numpy alone (``PATH.npz`` in
``--agents``, or ``agents/weights/<game>_v1.npz`` as ``pretrained_v1``).

``python -m kortmiljo.train.distill GAME --data DIR[,DIR...] --out FILE.npz [--epochs N] [--hidden 256,256]
[--activation relu|tanh]``: ``tanh`` (with ``--hidden`` equal to the training run's ``--net``) makes
a student that ``kortmiljo train --init FILE.npz`` can fine-tune with PPO (the third stage).
``--advisor heuristic_v0`` gives the network the heuristic's move as one more input (a one-hot;
:mod:`kortmiljo.agents.pretrained`, "Advisor"): with a few thousand search decisions it need only learn where
search departs from the heuristic, not the whole game again. ``--init FILE.npz`` starts from an
earlier student of the same shape (or a narrower one, widened), so new data adds to what it learnt.
``--half`` holds the inputs as float16 (:func:`kortmiljo.train.expert_data.load_chunks`): millions of oracle
decisions in half the memory.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from kortmiljo.agents.pretrained import save_weights
from kortmiljo.train.expert_data import load_chunks

from kortmiljo.core.registry import load_game


def soft_targets(data: dict[str, np.ndarray], soft: float, temperature: float) -> np.ndarray:
    """Per decision, the distribution the student is taught (see the module docstring)."""
    n, A = data["mask"].shape
    target = np.zeros((n, A), dtype=np.float32)
    target[np.arange(n), data["action"].astype(np.int64)] = 1.0
    q = data["q"]
    searched = np.isfinite(q).sum(axis=1) > 1
    if soft > 0 and searched.any():
        qs = np.where(np.isfinite(q[searched]), q[searched], -np.inf) / temperature
        z = np.exp(qs - qs.max(axis=1, keepdims=True))
        z /= z.sum(axis=1, keepdims=True)
        target[searched] = (1 - soft) * target[searched] + soft * z
    return target


def advantage_targets(data: dict[str, np.ndarray], num_actions: int, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """(targets, weights) of ``--target advantage`` (see the module docstring); ``data`` has the advisor's
    one-hot as the last ``num_actions`` inputs (:func:`with_advice`)."""
    q, mask = data["q"], data["mask"]
    n, A = mask.shape
    rows = np.arange(n)
    h = data["obs"][:, -num_actions:].argmax(axis=1)
    scored = np.isfinite(q)
    searched = scored.sum(axis=1) > 1
    if not scored[rows[searched], h[searched]].all():
        raise ValueError("--target advantage needs the advisor's move scored wherever a decision has scores")
    choice = mask.sum(axis=1) > 1
    with np.errstate(invalid="ignore"):
        gain = q - q[rows, h][:, None]
    target = np.where(searched[:, None], np.nan_to_num(gain, nan=0.0), -1.0).astype(np.float32)
    weight = np.where(searched[:, None], scored, mask) & choice[:, None]
    target -= margin * (np.arange(A)[None, :] != h[:, None])
    target[rows, h] = 0.0
    return np.where(weight, target, 0.0).astype(np.float32), weight.astype(np.float32)


def regret(choice: np.ndarray, q: np.ndarray) -> float:
    """Mean score given up by ``choice`` against the best scored action, over the decisions with
    several scores where ``choice`` is scored (on held-out oracle data: how much a policy loses to
    the teacher's hindsight, the advisor's own figure being the bar)."""
    rows = np.flatnonzero((np.isfinite(q).sum(axis=1) > 1) & np.isfinite(q[np.arange(len(q)), choice]))
    if len(rows) == 0:
        return float("nan")
    return float((np.nanmax(q[rows], axis=1) - q[rows, choice[rows]]).mean())


def history_of(history: list[dict], epoch: int) -> dict:
    """The held-out figures of the search phase's ``epoch``."""
    return next(h for h in history if h["phase"] == "search" and h["epoch"] == epoch)


def with_advice(game, data: dict[str, np.ndarray], advisor: str) -> dict[str, np.ndarray]:
    """``data`` with the advisor's move at every decision appended to ``obs`` as a one-hot (the
    advisor reads the observation, ``unseen`` and the mask, all of which a chunk holds)."""
    return {**data, "obs": np.concatenate([data["obs"], advice_columns(game, advisor)(data)], axis=1)}


def advice_columns(game, advisor: str, batch: int = 4096):
    """``part -> (n, num_actions)``: the advisor's one-hot moves for a chunk's decisions, read from
    its float32 arrays (``load_chunks(columns=...)`` appends them before any cast, so the advisor
    sees exactly what it saw in play)."""
    from kortmiljo.agents.pretrained import advice
    from kortmiljo.agents.registry import make_agent

    agent = make_agent(advisor, game, seed=0)
    size = game.layout.size

    def columns(part: dict[str, np.ndarray]) -> np.ndarray:
        X, M = part["obs"], part["mask"]
        out = np.empty((len(X), game.num_actions), dtype=np.float32)
        for k in range(0, len(X), batch):
            obs = {"observation": X[k : k + batch, :size], "unseen": X[k : k + batch, size:],
                   "action_mask": M[k : k + batch].astype(np.int8)}  # fmt: skip
            out[k : k + batch] = advice(agent, obs, game.num_actions)
        return out

    return columns


def split_games(game_ids: np.ndarray, held_out: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean (train, validation) masks over decisions, holding out whole games."""
    ids = np.unique(game_ids)
    rng = np.random.default_rng(seed)
    val_ids = rng.choice(ids, size=max(1, int(round(len(ids) * held_out))), replace=False)
    val = np.isin(game_ids, val_ids)
    return ~val, val


def fit(data: dict[str, np.ndarray], hidden: list[int], epochs: int = 30, lr: float = 1e-3, batch: int = 256,
        soft: float = 0.5, temperature: float = 0.25, weight_decay: float = 1e-4, seed: int = 0,
        warm: dict | None = None, warm_epochs: int = 3, log=print,
        activation: str = "relu", target: str = "policy", margin: float = 0.0,
        init: tuple[list, list] | None = None) -> tuple[list, list, dict]:  # fmt: skip
    """Train actor and critic MLPs (ReLU or tanh) on teacher data; return their numpy layers and a report.

    ``init``: (actor, critic) numpy layers to start from (:func:`init_layers`), so a student goes on
    learning from new data where an earlier one stopped; an empty critic starts afresh. Hidden layers
    wider than ``init``'s are widened function-preservingly (Net2WiderNet, Chen et al. 2016, in its
    zero form): the new units start as a fresh layer's, and their outgoing weights at zero, so the
    wider student first plays exactly as the earlier one and gains capacity as it trains.

    ``warm``: data of a cheaper teacher (the heuristic) to fit first, for ``warm_epochs``: it covers
    many more positions than the search's games can, so the search's decisions then only have to
    teach where search plays differently (the held-out games are the search's, as without it).

    ``target="advantage"``: regress the scores over the advisor's move (see the module docstring);
    the actor's best epoch is then the one of least held-out error, not of most agreement."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    act = {"relu": nn.ReLU, "tanh": nn.Tanh}[activation]

    if target not in ("policy", "advantage"):
        raise ValueError(f"target must be 'policy' or 'advantage', got {target!r}")
    regress = target == "advantage"

    def tensors(d: dict[str, np.ndarray], soft: float) -> tuple:
        if regress:  # (targets, weights) stacked: the weights say which outputs are taught
            T = np.stack(advantage_targets(d, d["mask"].shape[1], margin), axis=1)  # (decisions, 2, actions)
        else:
            T = soft_targets(d, soft, temperature)
        return (torch.as_tensor(d["obs"]), torch.as_tensor(d["mask"]), torch.as_tensor(T), torch.as_tensor(d["ret"]))

    def policy_loss(out, m, t) -> torch.Tensor:
        if regress:
            w = t[1]
            return (w * (out - t[0]) ** 2).sum() / w.sum().clamp(min=1.0)
        return -(t * torch.log_softmax(out.masked_fill(~m, -1e9), dim=1)).sum(dim=1).mean()

    X, M, T, R = tensors(data, soft)
    A = torch.as_tensor(data["action"].astype(np.int64))
    tr, va = (torch.as_tensor(m) for m in split_games(data["game"], 0.05, seed))

    def mlp(out: int) -> nn.Sequential:
        layers, last = [], X.shape[1]
        for h in hidden:
            layers += [nn.Linear(last, h), act()]
            last = h
        return nn.Sequential(*layers, nn.Linear(last, out))

    actor, critic = mlp(M.shape[1]), mlp(1)
    for net, layers in zip((actor, critic), init or ((), ()), strict=True):
        linear = [m for m in net if isinstance(m, nn.Linear)]
        if len(layers) != len(linear):  # an empty critic (not kept) starts afresh
            continue
        with torch.no_grad():  # a wider student keeps the earlier one's units in its top-left block
            for m, (w, b) in zip(linear, layers, strict=True):
                out, inp = w.shape[1], w.shape[0]
                m.weight[:out, :inp] = torch.as_tensor(w.T)
                m.weight[:out, inp:] = 0.0  # new units feed nothing yet: the widened net computes the same
                m.bias[:out] = torch.as_tensor(b)

    def run_epochs(n: int, X, M, T, R, idx, after=None) -> None:
        opt = torch.optim.AdamW([*actor.parameters(), *critic.parameters()], lr=lr, weight_decay=weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=n)
        for ep in range(n):
            actor.train()
            critic.train()
            perm = idx[torch.randperm(len(idx))]
            for k in range(0, len(perm), batch):
                b = perm[k : k + batch]
                tb = T[b].transpose(0, 1) if regress else T[b]
                xb = X[b].float()  # a float16 copy of the inputs (--half) is widened batch by batch
                loss_pi = policy_loss(actor(xb), M[b], tb)
                loss_v = ((critic(xb).squeeze(1) - R[b]) ** 2).mean()
                opt.zero_grad()
                (loss_pi + 0.5 * loss_v).backward()
                opt.step()
            sched.step()
            if after:
                after(ep)

    best = {"actor": (-float("inf"), None, 0), "critic": (float("inf"), None, 0)}
    history = []

    def evaluate(ep: int, phase: str = "search") -> None:
        actor.eval()
        critic.eval()
        with torch.no_grad():
            xv = X[va].float()
            out = actor(xv)
            logits = out.masked_fill(~M[va], -1e9)
            multi = M[va].sum(dim=1) > 1  # agreement where there was a choice to make
            agree = float((logits.argmax(dim=1) == A[va])[multi].float().mean())
            v_mse = float(((critic(xv).squeeze(1) - R[va]) ** 2).mean())
            a_mse = float(policy_loss(out, M[va], T[va].transpose(0, 1))) if regress else None
        row = {"phase": phase, "epoch": ep + 1, "agreement": round(agree, 4), "value_mse": round(v_mse, 4)}
        if regress:
            row["advantage_mse"] = round(a_mse, 5)
            row["regret"] = round(regret(logits.argmax(dim=1).numpy(), data["q"][va.numpy()]), 5)
        history.append(row)
        extra = f", advantage mse {a_mse:.5f}, regret {row['regret']:.4f}" if regress else ""
        log(f"{phase} epoch {ep + 1}: held-out agreement {agree:.3f}, value mse {v_mse:.3f}{extra}")
        score = -a_mse if regress else agree
        if phase == "search" and score > best["actor"][0]:
            best["actor"] = (score, {k: v.clone() for k, v in actor.state_dict().items()}, ep + 1)
        if phase == "search" and v_mse < best["critic"][0]:
            best["critic"] = (v_mse, {k: v.clone() for k, v in critic.state_dict().items()}, ep + 1)

    if warm is not None:
        WX, WM, WT, WR = tensors(warm, 0.0)
        run_epochs(warm_epochs, WX, WM, WT, WR, torch.arange(len(WX)), lambda ep: evaluate(ep, "warm"))
    run_epochs(epochs, X, M, T, R, torch.nonzero(tr).flatten(), evaluate)
    actor.load_state_dict(best["actor"][1])
    critic.load_state_dict(best["critic"][1])

    def layers(net: nn.Sequential) -> list:
        return [
            (m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
            for m in net
            if isinstance(m, nn.Linear)
        ]

    var = float(R[va].var())
    report = {
        "decisions": int(len(A)),
        "held_out_decisions": int(va.sum()),
        "agreement": history_of(history, best["actor"][2])["agreement"],
        "agreement_epoch": best["actor"][2],
        "value_mse": best["critic"][0],
        "value_r2": round(1 - best["critic"][0] / var, 4) if var > 0 else None,
        "critic_epoch": best["critic"][2],
        "warm_decisions": int(len(warm["action"])) if warm is not None else 0,
        "history": history,
    }
    return layers(actor), layers(critic), report


def init_layers(path: str, game, hidden: list[int], activation: str, advisor: str | None) -> tuple[list, list]:
    """The (actor, critic) layers of the weights file ``path``, refused unless it is a student of the
    same kind: this game, ``activation`` and ``advisor`` (the inputs must mean the same), and as many
    hidden layers as ``hidden``, none wider (:func:`fit` widens a narrower one)."""
    from kortmiljo.agents.pretrained import check_weights, read_weights

    w = read_weights(path)
    check_weights(w, game, path)
    have = {"hidden": [int(b.shape[0]) for _, b in w.actor[:-1]], "activation": w.meta["activation"],
            "advisor": w.meta.get("advisor"), "include_unseen": w.meta["include_unseen"],
            "inputs": int(w.actor[0][0].shape[0])}  # fmt: skip
    want = {"hidden": hidden, "activation": activation, "advisor": advisor, "include_unseen": True,
            "inputs": int(w.meta["inputs"])}  # fmt: skip
    if len(have["hidden"]) == len(hidden) and all(old <= new for old, new in zip(have["hidden"], hidden, strict=True)):
        want["hidden"] = have["hidden"]  # as wide or narrower, layer by layer: fit widens it
    wrong = [f"{k} {have[k]!r} (this fit: {want[k]!r})" for k in want if have[k] != want[k]]
    if wrong:
        raise ValueError(f"--init {path}: a different student: {'; '.join(wrong)}")
    return w.actor, w.critic


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m kortmiljo.train.distill", description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--data", required=True, help="teacher-data folders (kortmiljo.train.expert_data), comma-separated")
    p.add_argument("--out", required=True, help="the .npz weights file to write")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--soft", type=float, default=0.5)
    p.add_argument("--temperature", type=float, default=0.25)
    p.add_argument("--warm", default=None, help="data of a cheaper teacher to fit first (folders, comma-separated)")
    p.add_argument("--warm-epochs", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--advisor", default=None, help="an agent whose move is an input (e.g. heuristic_v0)")
    p.add_argument(
        "--target",
        choices=("policy", "advantage"),
        default="policy",
        help="advantage: regress the scores over the advisor's move (needs --advisor; oracle data)",
    )
    p.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="with --target advantage: the gain the student must expect to leave the advisor's move",
    )
    p.add_argument("--activation", choices=("relu", "tanh"), default="relu",
                   help="tanh: fine-tunable by kortmiljo train --init (SB3's MLP activation)")  # fmt: skip
    p.add_argument("--init", default=None,
                   help="a weights file to start from (go on learning from new data): the same shape, "
                        "or narrower hidden layers, which are widened")  # fmt: skip
    p.add_argument("--half", action="store_true",
                   help="hold the inputs as float16 (half the memory: millions of oracle decisions)")  # fmt: skip
    a = p.parse_args(argv)
    import torch

    before = torch.get_num_threads()  # main() also runs in-process (the recipe, tests): leave torch as found
    torch.set_num_threads(a.threads)
    try:
        _distil(a, p)
    finally:
        torch.set_num_threads(before)


def _distil(a: argparse.Namespace, p: argparse.ArgumentParser) -> None:
    game = load_game(a.game)
    if a.target == "advantage" and not a.advisor:
        p.error("--target advantage needs --advisor (the scores are taught relative to the advisor's move)")
    if a.epochs < 1:
        p.error(f"--epochs must be >= 1, got {a.epochs}")
    if a.advisor:
        from kortmiljo.agents.catalog import game_agents

        if a.advisor not in game_agents(game.name):  # now, not after the fit (save_weights would refuse it)
            p.error(f"--advisor must be a versioned agent of {game.name}: {', '.join(sorted(game_agents(game.name)))}")
    hidden = [int(h) for h in a.hidden.split(",")]
    init = None
    if a.init:
        try:  # now, not after loading the data
            init = init_layers(a.init, game, hidden, a.activation, a.advisor)
        except ValueError as err:
            p.error(str(err))
    columns = advice_columns(game, a.advisor) if a.advisor else None
    dtype = np.float16 if a.half else np.float32
    data, info = _load(a.data, dtype, columns)
    warm = _load(a.warm, dtype, columns)[0] if a.warm else None
    print(f"{a.game}: {len(data['action'])} decisions from {info['games']} teacher games ({info['teacher_seconds']} s)")
    t = time.time()
    actor, critic, report = fit(data, hidden, a.epochs, a.lr, soft=a.soft, temperature=a.temperature, seed=a.seed,
                                warm=warm, warm_epochs=a.warm_epochs, activation=a.activation, target=a.target,
                                margin=a.margin, init=init)  # fmt: skip
    report["fit_seconds"] = round(time.time() - t)
    if a.advisor:  # the bar the student must clear: how often the advisor alone plays the teacher's move
        _, va = split_games(data["game"], 0.05, a.seed)
        multi = data["mask"][va].sum(axis=1) > 1
        moves = data["obs"][va][:, -game.num_actions :].argmax(axis=1)
        report["advisor_agreement"] = round(float((moves == data["action"][va])[multi].mean()), 4)
        bar = report["advisor_agreement"]
        print(f"held-out agreement: student {report['agreement']:.3f}, {a.advisor} alone {bar:.3f}")
        if a.target == "advantage":
            report["advisor_regret"] = round(regret(moves, data["q"][va]), 5)
            report["regret"] = history_of(report["history"], report["agreement_epoch"])["regret"]
            print(f"held-out regret: student {report['regret']:.4f}, {a.advisor} alone {report['advisor_regret']:.4f}")
    if not (report["value_r2"] or 0) > 0:  # no better than a constant: a value it shows would mislead
        print(f"the critic explains none of the held-out returns' variance (R² {report['value_r2']}); not kept")
        critic = []
    recipe = {
        "policy": "search distillation (train/distill.py)",
        "advantage": "score regression over the advisor's move (train/distill.py --target advantage)",
    }[a.target]
    source = {"recipe": recipe, "hidden": hidden, "epochs": a.epochs,
              "soft": a.soft, "temperature": a.temperature, "advisor": a.advisor, "target": a.target,
              **({"margin": a.margin} if a.target == "advantage" else {}), **info,
              **({"init": a.init, "lr": a.lr} if a.init else {}),
              **{k: v for k, v in report.items() if k != "history"}}  # fmt: skip
    save_weights(a.out, game, actor, critic, activation=a.activation, source=source, advisor=a.advisor)
    print(json.dumps(source, indent=1))


def _load(folders: str, obs_dtype=np.float32, columns=None) -> tuple[dict[str, np.ndarray], dict]:
    """Teacher data of comma-separated folders joined (game ids unique across them: the held-out
    split is by game)."""
    data, meta = load_chunks(folders.split(","), obs_dtype, columns)
    return data, {"games": meta["games"], "teacher_seconds": round(meta["seconds"])}


if __name__ == "__main__":
    main()
