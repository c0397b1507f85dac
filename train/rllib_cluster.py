"""Joining Ray for ``kortmiljo train --backend rllib``, refused up front where the run cannot work.

* :func:`connect` starts a local Ray or joins ``--address``; a connection, authentication or version
  error becomes one :class:`~kortmiljo.train.config.TrainError` line (exit 2) saying what to do,
  where Ray would print a traceback after its 30-second client timeout.
* :func:`check_resources` compares what the run asks for (one CPU per env runner and per learner,
  ``--num-gpus-per-learner`` GPUs per learner) with what the cluster has free, and refuses a run
  that Ray could not place, where Ray would wait for ever without a word.

Both run before the run directory is written, so a refused run leaves ``--out`` as it was.
"""

from __future__ import annotations

import math

from kortmiljo.train.config import TrainError

AUTH_HINT = ("Ray 2.60 and later ask for a token: set RAY_AUTH_MODE=token and the head's token (RAY_AUTH_TOKEN, "
             "or the file ray start wrote) on every node and client, or start the cluster with "
             "RAY_AUTH_MODE=disabled on a trusted network (docs/rllib.md)")  # fmt: skip


def connect(config) -> dict:
    """Start Ray (``--num-cpus``) or join ``--address``; the cluster's free resources. One-line
    :class:`TrainError` for anything that stops it."""
    import ray

    if not ray.is_initialized():
        try:
            if config.address:
                ray.init(address=config.address, log_to_driver=not config.quiet)
            else:
                ray.init(num_cpus=config.num_cpus, include_dashboard=False, log_to_driver=not config.quiet)
        except Exception as err:  # Ray raises ConnectionError, RuntimeError, its own types: all one line
            raise TrainError(connection_error(config.address, err)) from None
    return dict(ray.available_resources())


def connection_error(address: str | None, err: BaseException) -> str:
    """What went wrong joining ``address`` (None: starting a local Ray), in one line with the remedy."""
    where = f"the Ray cluster at {address}" if address else "a local Ray"
    text = " ".join(str(err).split()) or type(err).__name__
    low = text.lower()
    if "auth" in low or "token" in low:
        return f"{where} refused this client's authentication ({type(err).__name__}: {text[:200]}); {AUTH_HINT}"
    if "version" in low and "mismatch" in low:
        return (f"{where} runs another version of Ray or Python than this client ({text[:300]}); every node and "
                "client needs the same Ray, Python minor version and kortmiljo (docs/rllib.md)")  # fmt: skip
    if isinstance(err, (ConnectionError, TimeoutError)) or "timeout" in low or "connect" in low:
        return (f"could not reach {where} ({type(err).__name__}: {text[:200]}); is `ray start --head` running "
                f"there, and its port open? If the head's log says 'Authentication required': {AUTH_HINT}")  # fmt: skip
    return f"could not start {where}: {type(err).__name__}: {text[:300]}"


def needs(config) -> dict[str, float]:
    """The Ray resources the run's actors reserve: a CPU per env runner; a CPU per remote learner (none
    where it takes a GPU, as RLlib's ``num_cpus_per_learner="auto"``) and its GPUs. The driver, and
    with ``--num-learners 0`` the learner, run in this process, outside Ray's accounting."""
    learner_cpus = 0 if config.num_gpus_per_learner > 0 else 1
    return {
        "CPU": config.num_env_runners + config.num_learners * learner_cpus,
        "GPU": config.num_learners * config.num_gpus_per_learner,
    }


def check_resources(config, free: dict, local_gpu: bool | None = None) -> None:
    """:class:`TrainError` where the cluster's ``free`` resources cannot hold the run's actors, or a GPU is
    asked for where there is none: Ray would wait for them without a word."""
    want = needs(config)
    cpus, gpus = free.get("CPU", 0.0), free.get("GPU", 0.0)
    where = f"the Ray cluster at {config.address}" if config.address else "the local Ray"
    if want["CPU"] > cpus + 1e-9:
        raise TrainError(
            f"--num-env-runners {config.num_env_runners} and --num-learners {config.num_learners} need "
            f"{want['CPU']:g} CPUs; {where} has {math.floor(cpus + 1e-9)} free. Use at most "
            f"{max(0, math.floor(cpus + 1e-9) - (want['CPU'] - config.num_env_runners)):g} env runners, or add nodes"
        )  # fmt: skip
    if config.num_gpus_per_learner <= 0:
        return
    if config.num_learners == 0:  # the learner runs in this process: this machine's GPU
        if local_gpu is None:
            import torch

            local_gpu = torch.cuda.is_available()
        if not local_gpu:
            raise TrainError(
                f"--num-gpus-per-learner {config.num_gpus_per_learner:g} with --num-learners 0 puts the learner on "
                "this machine, which has no GPU (torch.cuda.is_available() is False); drop the option, or use "
                "--num-learners N on a cluster with GPUs"
            )
    elif want["GPU"] > gpus + 1e-9:
        raise TrainError(
            f"--num-learners {config.num_learners} x --num-gpus-per-learner {config.num_gpus_per_learner:g} need "
            f"{want['GPU']:g} GPUs; {where} has {gpus:g} free. Drop --num-gpus-per-learner to learn on CPUs"
        )  # fmt: skip
