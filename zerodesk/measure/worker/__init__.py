"""The torch side of measure: what runs inside a worker process (a rank, the launcher, the simulation).

Only the worker's own modules import these (tests/test_layers.py holds the contract): the window and the
command line start them as separate processes and read their protocol lines. They import the torch-free
half of measure and the core freely, never the window. `python -m
zerodesk.measure.worker` is one rank (__main__.py; torchrun runs it unchanged).

  rank.py          the thin worker: which rank, the process group, each stage, results and errors as protocol
  launcher.py      N local ranks, a fresh set per stage (python -m zerodesk.measure.worker.launcher);
                   fork_ready.py makes it cheap to fork (collector frozen, freed memory kept)
  simulate.py      rank 0 of a fake world under fake tensors (python -m zerodesk.measure.worker.simulate)
  serve.py         the warm worker: torch imported once, one forked child per launcher or simulation job
                   (job_server.py is its torch-free other end)
  step.py          one stage: its engine, the warm-up, the tracked step, the Result
  engines.py       DDP (stage 0), DDP + ZeroRedundancyOptimizer (1), FSDP2 (2-3) set-up; AdamW
  trackers.py      torch's memory trackers: which per stage, per-phase peaks, the live byte stream
  states.py        model states at rest counted from live tensors, and the torch profile's prediction
  torch_compat.py  every private torch API used, each behind a self-check that fails loudly
  model.py, hf_model.py  the model trained (ZeroDesk's decoder or transformers' own)
  recompute.py, ddp_sim.py, exchange.py, emitter.py, failures.py  recompute, DDP's stand-in, results between
                   ranks, protocol lines out, failures in one sentence
"""
