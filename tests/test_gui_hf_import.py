"""File > Import Hugging Face config…, File > Open on a config.json, and a config.json dropped on the window."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QLabel

from zerodesk.core.plan import Plan, load_plan

CONFIGS = Path(__file__).parent / "hf_configs"


def copy_config(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "some-local-folder"
    folder.mkdir(exist_ok=True)
    return Path(shutil.copy(CONFIGS / f"{name}.json", folder / "config.json"))


def test_menu_has_the_import_action(window):
    actions = [a.objectName() for a in window.menu_file.actions()]
    assert actions.index("actImportHfConfig") == actions.index("actOpen") + 1
    assert window.hf_import.action.text().replace("&", "") == "Import Hugging Face config…"


def test_import_llama_2_keeps_its_context_and_its_name(window, qtbot, tmp_path):
    path = copy_config(tmp_path, "llama-2-7b-hf")
    with qtbot.waitSignal(window.hf_import.imported, timeout=60_000) as blocker:
        assert window.hf_import.read(path)
    plan: Plan = blocker.args[0]
    assert plan.model.name == "meta-llama/Llama-2-7b-hf"  # not "some-local-folder"
    assert plan.params == 6_738_415_616 and plan.seq_len == 4096
    form = window.form
    assert form.field("model.architecture.max_positions").text() == "4096"
    assert form.field("model.architecture.family").currentData() == "llama"
    assert window.model.plan == plan and window.is_modified()  # a new, unsaved document
    assert not form.field("model.architecture.experts").isVisibleTo(form)


def test_open_on_a_config_imports_it(window, qtbot, tmp_path):
    path = copy_config(tmp_path, "mixtral-8x7b-v0.1")
    with qtbot.waitSignal(window.hf_import.imported, timeout=60_000) as blocker:
        window.open_plan_file(path, ask=False)
    plan = blocker.args[0]
    assert plan.params == 46_702_792_704 and plan.model.architecture.experts == 8
    form = window.form
    assert form.field("model.architecture.experts").isVisibleTo(form)
    assert form.field("model.architecture.top_k").text() == "2"
    assert "File > Open" not in window.statusBar().currentMessage()


def test_layout_knobs_survive_the_form_and_a_save(window, qtbot, tmp_path):
    path = copy_config(tmp_path, "phi-2")
    with qtbot.waitSignal(window.hf_import.imported, timeout=60_000):
        window.hf_import.read(path)
    plan = window.model.plan
    arch = plan.model.architecture
    assert (arch.family, arch.parallel, arch.head_bias, arch.rotary_dim) == ("phi", True, True, 32)
    assert plan.params == 2_779_683_840
    hint = window.form.findChild(QLabel, "archHint").text()
    assert "parallel attention + MLP" in hint and "rotary on 32 lanes" in hint and "head bias" in hint
    saved = tmp_path / "phi.zerodesk.json"
    assert window.save_to(saved)
    assert load_plan(saved) == plan


def test_dropping_a_config_imports_it(window, qtbot, tmp_path):
    path = copy_config(tmp_path, "gemma-2b")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.hf_import.imported, timeout=60_000) as blocker:
        QApplication.sendEvent(window, drop)
    assert blocker.args[0].params == 2_506_172_416 and blocker.args[0].model.name == "google/gemma-2b"


def test_a_plan_file_is_not_taken_for_a_config(window, tmp_path):
    other = tmp_path / "notes.json"
    other.write_text(json.dumps({"hello": 1}))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(other))])
    enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert not enter.isAccepted()


def test_bad_config_is_one_sentence(window, qtbot, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "tie_word_embeddings": "false"}))
    window.hf_import.read(path)
    qtbot.waitUntil(lambda: "tie_word_embeddings" in window.statusBar().currentMessage(), timeout=30_000)
    message = window.statusBar().currentMessage()
    assert "true or false" in message and "\n" not in message


def test_unknown_type_imports_as_a_tensor_list_and_survives_a_save(window, qtbot, tmp_path):
    """GPT-Neo has no ZeroDesk layout: transformers reads it in a subprocess, the plan keeps the tensors."""
    import pytest

    pytest.importorskip("transformers")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gpt_neo", "_name_or_path": "EleutherAI/gpt-neo-tiny", "hidden_size": 24,
                                "num_layers": 2, "num_heads": 4, "vocab_size": 37, "max_position_embeddings": 16,
                                "attention_types": [[["global", "local"], 1]]}))
    with qtbot.waitSignal(window.hf_import.imported, timeout=120_000) as blocker:
        window.hf_import.read(path)
    plan = blocker.args[0]
    assert plan.model.tensors and plan.model.architecture is None and plan.seq_len == 16
    assert window.model.plan == plan  # the form keeps the tensor list while the count is untouched
    assert "exact from transformers" in window.form.findChild(QLabel, "paramsHint").text()
    saved = tmp_path / "neo.zerodesk.json"
    assert window.save_to(saved)
    assert load_plan(saved).model.tensors == plan.model.tensors


def test_family_fields_follow_the_layout(form, qtbot):
    from zerodesk.core.catalog import find_model

    form.apply_model_preset("mixtral-8x7b")
    assert form.field("model.architecture.experts").isVisibleTo(form)
    assert form.model.plan.params == find_model("mixtral-8x7b").published_params
    form.apply_model_preset("llama-2-7b")
    assert not form.field("model.architecture.experts").isVisibleTo(form)
    assert form.field("model.architecture.max_positions").text() == "4096"  # Llama 2's context
    form.apply_model_preset("phi-2")
    assert form.model.plan.model.architecture.parallel  # knobs the form does not show are kept

