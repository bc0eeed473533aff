"""The window's single source of truth: the plan on screen, its breakdown, and the form's errors.

Qt-free, in napari's habit of evented models: the form edits the model, and every view observes it
through its events (`model.events.plan.connect(view.show_plan)`); no view reads another view's state.
An invalid form or a plan that cannot be computed leaves the last valid plan and breakdown in place,
and says why.
"""

from __future__ import annotations

from typing import Callable

from .accounting import Breakdown, compute
from .plan import Plan, PlanError
from .recent import Recent


class Event:
    """One kind of change: its callbacks are called in the order they connected."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., object]] = []

    def connect(self, callback: Callable[..., object]) -> Callable[..., object]:
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[..., object]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def connected(self) -> bool:
        return bool(self._callbacks)

    def emit(self, *args: object) -> None:
        for callback in list(self._callbacks):
            callback(*args)


class PlanEvents:
    """What a view can observe; each event passes the values named beside it."""

    def __init__(self) -> None:
        self.plan = Event()  # (plan, breakdown): a new valid plan, computed
        self.errors = Event()  # (errors): the form's field errors changed ({} when it is valid)
        self.compute_error = Event()  # (message): the latest valid plan could not be computed; the last one stays
        self.loaded = Event()  # (plan): a whole plan from outside the form, for the form to show (see load)


class PlanModel:
    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.breakdown: Breakdown | None = None
        self.errors: dict[str, str] = {}  # dotted field -> message, from the form
        self.compute_error = ""  # why the latest plan could not be computed ("" when it could)
        self.events = PlanEvents()
        # the breakdowns of the last few plans, by value: a choice made again (a profile or scheme toggled back) is not
        # computed again, and its breakdown is the very object the views (and their caches) had for it
        self._computed: Recent[Breakdown] = Recent(8)

    @property
    def is_valid(self) -> bool:
        """Whether the form's fields all hold valid values (the plan is then what they say)."""
        return not self.errors

    def set_plan(self, plan: Plan) -> bool:
        """A valid plan: compute it and tell the views; False (and compute_error) when it cannot be computed."""
        try:
            breakdown = self._computed.get(plan, lambda: compute(plan))
        except (ValueError, ArithmeticError, PlanError) as exc:  # keep the last breakdown, say why
            self.compute_error = str(exc)
            self.events.compute_error.emit(self.compute_error)
            return False
        self.plan, self.breakdown, self.compute_error = plan, breakdown, ""
        self.events.plan.emit(plan, breakdown)
        return True

    def set_errors(self, errors: dict[str, str]) -> None:
        self.errors = dict(errors)
        self.events.errors.emit(dict(errors))

    def load(self, plan: Plan) -> None:
        """A whole plan from outside the form (a file, New, the card example, an import, a preset).

        The form, connected to events.loaded, shows it in its fields and sets what they read back (a plan
        file's evidence is kept apart; an unknown GPU name reads back as none); with no form it is set as given.
        """
        if self.events.loaded.connected():
            self.events.loaded.emit(plan)
        else:
            self.set_plan(plan)
