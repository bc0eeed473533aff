"""The window's single source of truth: the current plan, its breakdown, and the form's errors.

Qt-free (napari's habit): views subscribe with a callback and render what it holds; nothing else
computes a breakdown. An invalid form or a plan that cannot be computed leaves the last valid plan
and breakdown in place, and says why.
"""

from __future__ import annotations

from typing import Callable

from .accounting import Breakdown, compute
from .plan import Plan, PlanError

Listener = Callable[["PlanModel", str], None]  # (model, what changed: "plan" | "errors" | "compute_error")


class PlanModel:
    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.breakdown: Breakdown | None = None
        self.errors: dict[str, str] = {}  # field -> message, from the form
        self.compute_error = ""  # why the latest plan could not be computed ("" when it could)
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(model, what)` on every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _notify(self, what: str) -> None:
        for listener in list(self._listeners):
            listener(self, what)

    def set_plan(self, plan: Plan | None) -> bool:
        """A new valid plan from the form: compute it; False (and compute_error) when it cannot be."""
        if plan is None:
            return False
        try:
            breakdown = compute(plan)
        except (ValueError, ArithmeticError, PlanError) as exc:  # keep the last breakdown, say why
            self.compute_error = str(exc)
            self._notify("compute_error")
            return False
        self.plan, self.breakdown, self.compute_error = plan, breakdown, ""
        self._notify("plan")
        return True

    def set_errors(self, errors: dict[str, str]) -> None:
        self.errors = dict(errors)
        self._notify("errors")
