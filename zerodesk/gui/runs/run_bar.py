"""The run bar (Simulate, Measure, Cancel, progress), the phase of each stage, and the status paragraph.

Renders a RunState; decides nothing. The paragraph sits below the buttons and never shrinks while
the tab is shown, so Start and Cancel stay where the pointer is.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from ...measure.rules import STAGES
from ...measure.run_state import RunState
from ..base import i18n
from ..base.style import ERROR_COLOR, OK_COLOR

PHASE_LABELS = {
    "setup": QT_TRANSLATE_NOOP("RunStatus", "setting up"),
    "warmup": QT_TRANSLATE_NOOP("RunStatus", "warm-up step"),
    "forward": QT_TRANSLATE_NOOP("RunStatus", "forward"),
    "backward": QT_TRANSLATE_NOOP("RunStatus", "backward"),
    "optimizer": QT_TRANSLATE_NOOP("RunStatus", "optimizer step"),
}

translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")


def _t(text: str) -> str:
    return QCoreApplication.translate("RunStatus", text)


def phase_name(phase: str) -> str:
    return _t(PHASE_LABELS.get(phase, phase))


class GrowOnlyLabel(QLabel):
    """A wrapped rich-text label whose height only grows (reset with relax()): the widgets below stay put."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._tallest = 0

    def setText(self, text: str) -> None:
        super().setText(text)
        if self.width() > 0:
            self._tallest = max(self._tallest, self.heightForWidth(self.width()))
            self.setMinimumHeight(self._tallest)

    def relax(self) -> None:
        self._tallest = 0
        self.setMinimumHeight(0)


class RunBar(QWidget):
    """Buttons and progress of a run, and one line per stage saying where it is."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(4)
        row = QHBoxLayout()
        self.simulate_button = QPushButton()
        self.simulate_button.setObjectName("simulateStart")
        self.start_button = QPushButton()
        self.start_button.setObjectName("measureStart")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("measureCancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setObjectName("measureProgress")
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        for w in (self.simulate_button, self.start_button, self.cancel_button):
            row.addWidget(w)
        row.addWidget(self.progress, 1)
        v.addLayout(row)
        phases = QHBoxLayout()
        phases.setSpacing(12)
        self.phase_labels: dict[int, QLabel] = {}
        for s in STAGES:
            label = QLabel()
            label.setObjectName(f"measurePhase{s}")
            label.setMinimumWidth(10)
            label.setWordWrap(True)
            self.phase_labels[s] = label
            phases.addWidget(label, 1)
        v.addLayout(phases)
        self.status = GrowOnlyLabel()
        self.status.setObjectName("measureStatus")
        v.addWidget(self.status)
        self.retranslate()

    def retranslate(self) -> None:
        self.simulate_button.setText(translate("RunStatus", "S&imulate"))
        self.simulate_button.setToolTip(translate("RunStatus", "One full-size step of rank 0 under fake tensors: no GPU, little memory — "
                                           "for models this machine cannot hold"))
        self.start_button.setText(translate("RunStatus", "&Measure"))
        self.start_button.setToolTip(translate("RunStatus", "Run one real training step per selected stage on local ranks"))
        self.cancel_button.setText(translate("RunStatus", "&Cancel"))
        self.cancel_button.setToolTip(translate("RunStatus", "Stop every process of the run now"))
        self.progress.setAccessibleName(translate("RunStatus", "Run progress"))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "status"):
            self.retranslate()
        super().changeEvent(event)

    def show_progress(self, state: RunState | None, starting: bool) -> None:
        if state is None:
            self.progress.setValue(0)
            self.progress.setFormat("%p%")
            return
        self.progress.setValue(round(1000 * state.progress))
        if state.error is not None:
            self.progress.setFormat(translate("RunStatus", "stopped"))
        elif starting and state.started is None:
            self.progress.setFormat(translate("RunStatus", "starting…"))
        else:
            self.progress.setFormat("%p%")

    def show_phases(self, state: RunState | None, stages: list[int], kind: str) -> None:
        """One line per stage: waiting / phase / done / stopped for a run; selected or not before one."""
        for s, label in self.phase_labels.items():
            name = i18n.stage_short(s)
            color = None
            if state is None:
                text = (translate("RunStatus", "{stage}: selected") if s in stages else self._not_run(kind)).format(stage=name)
                dim = s not in stages
            else:
                st = state.stage_status(s)
                dim = s not in state.stages
                if dim:
                    text = self._not_run(kind).format(stage=name)
                elif st.state == "done":
                    text, color = translate("RunStatus", "{stage}: done ✓").format(stage=name), OK_COLOR
                elif st.state == "stopped":
                    text, color = translate("RunStatus", "{stage}: stopped").format(stage=name), ERROR_COLOR
                elif st.state == "running":
                    text = translate("RunStatus", "{stage}: {phase}").format(stage=name, phase=phase_name(st.phase))
                    if st.phase in ("warmup", "forward") and 0 < st.progress < 1:
                        text += f" {round(st.progress * 100)}%"
                else:
                    text = translate("RunStatus", "{stage}: waiting").format(stage=name)
            label.setText(text)
            label.setStyleSheet("color: palette(mid);" if dim else f"color: {color};" if color else "")

    @staticmethod
    def _not_run(kind: str) -> str:
        return translate("RunStatus", "{stage}: not simulated") if kind == "simulated" else translate(
            "RunStatus", "{stage}: not measured")

    def set_running(self, running: bool, stopping: bool, can_measure: bool, can_simulate: bool) -> None:
        self.start_button.setEnabled(not running and can_measure)
        self.simulate_button.setEnabled(not running and can_simulate)
        self.cancel_button.setEnabled(running and not stopping)
