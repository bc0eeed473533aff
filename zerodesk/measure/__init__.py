"""Simulate and measure a training step, and read what the step reports.

Two halves, one way: the modules here are torch-free, and the GUI and the CLI import only them;
the torch side lives in the worker/ subpackage and runs in its own processes, started through
runner.py (an isolated child Python, child.py) and heard through protocol.py's JSON lines.
tests/test_layers.py checks the static import graph: nothing here imports worker/ or torch.

  protocol.py    the messages, exit statuses and what the simulation offers; WorkerError
  job.py         a rank's and the simulation's command lines, read into a job (plan, scale, stages)
  runner.py      start a run as a subprocess tree and read it; reader.py splits its lines; run_state.py reduces them
  job_server.py  a warm worker for several runs in a row: torch imported once, each run forked from it (worker/serve.py)
  rules.py       ranks, host fit, units and differences the CLI and the window share; devices.py where a rank runs
  command.py, sim_command.py, cli_text.py   `zerodesk measure` and `zerodesk simulate`; progress.py their
                 progress line on a terminal (tqdm)
  interpreter.py, child.py, lifeline.py, proctree.py   which Python runs the ranks, how it starts and stops
  hf_tensors.py  any model type's tensor list, read by transformers in a subprocess
  worker/        the torch side (see its __init__)
"""
