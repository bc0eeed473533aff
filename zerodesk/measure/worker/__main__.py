"""`python -m zerodesk.measure.worker`: one rank of a measured step (rank.py); torchrun runs it unchanged."""

from .rank import main

if __name__ == "__main__":
    main()
