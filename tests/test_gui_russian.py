"""Russian, complete: walk every widget, menu, tooltip, chart text and message box of the Russian
window and fail on any English word left in what the user sees."""

from __future__ import annotations

import gc
import html
import re

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialog,
    QDockWidget,
    QFileDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTabWidget,
    QTextBrowser,
    QWidget,
)

# Latin words a Russian UI keeps: names of products, models, methods, formats and keys
KEEP = {
    "adam", "adamw", "pytorch", "torch", "zerodesk", "zero", "deepspeed", "llama", "mistral", "qwen", "pythia", "neox",
    "gpt", "geforce", "instinct", "ada", "nvidia", "amd", "rmsnorm", "layernorm", "swiglu", "gelu", "rope", "sgd",
    "ddp", "fsdp", "zeroredundancyoptimizer", "json", "png", "svg", "ctrl", "shift", "alt", "small", "medium",
    "large", "english", "gloo", "nccl", "cuda", "cpu", "gpu", "gpus", "rtx", "sxm", "pcie", "mlp", "ffn", "qkv", "bias",
    "bf16", "fp32", "fp16", "fsdp2", "python", "http", "https", "www", "org", "com",
    # model families and their makers (Hugging Face model types are names, shown as they are)
    "gemma", "phi", "olmo", "falcon", "mixtral", "stablelm", "bloom", "opt", "gptj", "hugging", "face", "mini",
    "alibi", "top", "transformers", "config", "nvme",
    "foreach", "fused",  # AdamW's kernel flags (torch.optim.AdamW(foreach=..., fused=...))
    # the collectives keep their names (the term list), and the links and sharding schemes are products and papers
    "all", "reduce", "scatter", "gather", "broadcast", "nvlink", "infiniband", "ethernet", "roce", "connectx", "mics",
    "hpz",
    # PyTorch's and TorchTitan's names for the knobs (issue 30): the API a user searches for
    "autocast", "mixedprecisionpolicy", "prefetch", "torchtitan",
    # keys are named as printed on the keyboard
    "enter", "return", "esc", "escape", "tab", "space", "home", "end", "del", "delete", "backspace", "insert", "page",
}
CODE = re.compile(r"\b\w+(?:\.\w+)*\(\)|\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\bzerodesk \w+"
                  r"|\b[a-z]+\*\d+(?:,[a-z]+\*\d+)*")  # identifiers, calls, commands, typed lists (full*16,none*16)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


def english_words(text: str) -> list[str]:
    """Latin words of 3+ letters that are not names we keep, nor acronyms (GPU, FP32), nor units."""
    plain = html.unescape(re.sub(r"<[^>]+>", " ", text or ""))
    plain = re.sub(r"&\w+;", " ", plain)
    plain = CODE.sub(" ", plain)  # code is not English prose: max_position_embeddings, mem_get_info(), zerodesk measure
    plain = re.sub(r"(?:/[\w.-]+)+/?", " ", plain)  # paths
    plain = re.sub(r"\*\.[\w.]+|[\w.-]+\.zerodesk\.json|\b\w+\.(json|png|svg)\b", " ", plain)  # file patterns
    out = []
    for w in WORD.findall(plain):
        if len(w) < 3 or w.lower() in KEEP or w.isupper() or re.search(r"\d", w):
            continue
        out.append(w)
    return out


def widget_texts(root: QWidget) -> list[tuple[str, str]]:
    """(where, text) for everything a user can read on `root` and its children."""
    out: list[tuple[str, str]] = []

    def add(w, what, text):
        if text:
            out.append((f"{type(w).__name__}#{w.objectName()}.{what}", text))

    for w in [root, *root.findChildren(QWidget)]:
        if isinstance(w, QTextBrowser):  # the glossary card: its content is data, checked by the glossary tests
            continue
        add(w, "toolTip", w.toolTip())
        add(w, "statusTip", w.statusTip())
        add(w, "accessibleName", w.accessibleName())
        add(w, "accessibleDescription", w.accessibleDescription())
        if isinstance(w, QLabel):
            add(w, "text", w.text())
        elif isinstance(w, QAbstractButton):
            add(w, "text", w.text())
        elif isinstance(w, QGroupBox):
            add(w, "title", w.title())
        elif isinstance(w, QDockWidget):
            add(w, "windowTitle", w.windowTitle())
        elif isinstance(w, QLineEdit):
            add(w, "placeholder", w.placeholderText())
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                add(w, f"item{i}", w.itemText(i))
        elif isinstance(w, QTabWidget):
            for i in range(w.count()):
                add(w, f"tab{i}", w.tabText(i))
                add(w, f"tabTip{i}", w.tabToolTip(i))
        elif isinstance(w, QTableWidget):
            for c in range(w.columnCount()):
                item = w.horizontalHeaderItem(c)
                add(w, f"header{c}", item.text() if item else "")
            for r in range(w.rowCount()):
                item = w.verticalHeaderItem(r)
                add(w, f"row{r}", item.text() if item else "")
                for c in range(w.columnCount()):
                    cell = w.item(r, c)
                    add(w, f"cell{r},{c}", cell.text() if cell else "")
        elif isinstance(w, QListWidget):
            for i in range(w.count()):
                add(w, f"item{i}", w.item(i).text())
    return out


def menu_texts(menu: QMenu, where: str = "") -> list[tuple[str, str]]:
    out = [(f"menu {where}", menu.title())]
    for a in menu.actions():
        if a.menu() is not None:
            out += menu_texts(a.menu(), f"{where}/{a.text()}")
            continue
        for what, text in (("text", a.text()), ("toolTip", a.toolTip()), ("statusTip", a.statusTip())):
            if text and not a.isSeparator():
                out.append((f"action {where}/{a.objectName()}.{what}", text))
    return out


def chart_texts(window) -> list[tuple[str, str]]:
    out = []
    for plot in (window.chart, window.dp_chart):
        pi = plot.getPlotItem()
        for name in ("left", "bottom"):
            axis = pi.getAxis(name)
            out.append((f"{plot.objectName()} axis {name}", axis.labelText))
            for level in axis._tickLevels or []:
                out += [(f"{plot.objectName()} tick", text) for _, text in level]
        out += [(f"{plot.objectName()} menu", a.text()) for a in plot.menu.build().actions() if not a.isSeparator()]
    chart = window.chart
    out += [("stage total", t) for t in chart.total_label_texts()]
    out.append(("gpu line", chart._gpu_line.label.format))
    for s in range(4):
        for key in chart.component_keys():
            out.append(("segment tooltip", chart.segment_text(s, key)))
    dp = window.dp_chart
    out.append(("dp tooltip", dp.point_text(2, 16, 10**9)))
    out.append(("dp nd line", dp._nd_line.label.format))
    return out


def capture_modal(action) -> list[tuple[str, str]]:
    """Run `action`, which opens a modal dialog; read its texts and close it."""
    seen: list[tuple[str, str]] = []

    def grab():
        box = QApplication.activeModalWidget()
        if box is None:
            QTimer.singleShot(20, grab)
            return
        if isinstance(box, QMessageBox):
            seen.append(("messagebox title", box.windowTitle()))
            seen.append(("messagebox text", box.text()))
            seen.append(("messagebox informative", box.informativeText()))
        seen.extend(widget_texts(box))
        if isinstance(box, QDialog):
            box.reject()
        else:
            box.close()

    QTimer.singleShot(20, grab)
    action()
    return seen


@pytest.fixture
def russian(qtbot, gui_settings):
    """A window started in Russian (Qt's own widgets name themselves once, at construction)."""
    from zerodesk.gui.base import i18n
    from zerodesk.gui.window.main_window import MainWindow

    i18n.set_language("ru")
    w = MainWindow(gui_settings)
    w.quiet = True
    w.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    qtbot.addWidget(w)
    w.resize(1440, 900)
    w.show()
    qtbot.waitExposed(w)
    yield w
    i18n.set_language("en")


def assert_russian(texts: list[tuple[str, str]]) -> None:
    leftovers = [(where, text, english_words(text)) for where, text in texts if english_words(text)]
    assert not leftovers, "\n".join(f"{where}: {text!r} -> {words}" for where, text, words in leftovers[:40])


def test_every_visible_string_is_russian(russian, qtbot):
    w = russian
    from zerodesk.core import catalog

    texts = widget_texts(w)
    for menu in (w.menu_file, w.menu_edit, w.menu_view, w.menu_lang, w.menu_help):
        texts += menu_texts(menu)
    texts += chart_texts(w)
    texts.append(("status", w.status_note.text()))
    # several plans: presets, a GPU, the torch profile (its notes), by architecture, errors
    form = w.form
    for name in ("llama-2-7b", "gpt2", "deepspeed-zero1-1.5b", "card-example"):
        index = form.field("model.preset").findData(name)
        assert index >= 0, name
        form.field("model.preset").setCurrentIndex(index)
        form.field("model.preset").activated.emit(index)
        texts += widget_texts(w.plan_tab) + chart_texts(w)
    gpu = form.field("cluster.gpu")
    gpu.setCurrentIndex(gpu.findData("a100-80gb"))
    gpu.activated.emit(gpu.currentIndex())
    for profile in ("torch", "paper"):
        combo = form.field("profile")
        combo.setCurrentIndex(combo.findData(profile))
        combo.activated.emit(combo.currentIndex())
        scheme = form.field("scheme")
        scheme.setCurrentIndex(scheme.findData("mixed-adam-8bit"))
        scheme.activated.emit(scheme.currentIndex())
        w.tabs.setCurrentIndex(1)
        texts += widget_texts(w.table_tab) + widget_texts(w.plan_tab) + chart_texts(w)
    w.tabs.setCurrentIndex(0)
    # every field with something wrong in it: the sentences are Russian too
    for key in ("model.params", "cluster.nodes", "cluster.gpus_per_node", "cluster.dp", "cluster.gpu_memory_bytes",
                "seq_len", "micro_batch", "bandwidth_gbps", "model.architecture.heads", "model.architecture.ffn"):
        field = form.field(key)
        for bad in ("abc", "", "3"):
            field.setText(bad)
            field.textEdited.emit(bad)
            texts += [(f"error {key}", form.error_text(k)) for k in form.model.errors]
            texts.append(("stale note", w.plan_tab.stale.text()))
        form.model.load(form.model.plan)
    texts += widget_texts(w.form)
    # message boxes and the file dialog (Qt's own strings come from qtbase_ru)
    w.quiet = False
    texts += capture_modal(lambda: w.show_error(w.tr("Cannot open the plan"), "x"))
    texts += capture_modal(w._about)
    texts += capture_modal(lambda: w.ask_save_last_valid())
    texts += capture_modal(lambda: type(w).ask_save_changes(w))
    dialog = QFileDialog(w, "", "", "*.zerodesk.json")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    texts += capture_modal(dialog.exec)
    dialog.deleteLater()  # Python owns a dialog once it has run exec(): gone now, not whenever a collection runs
    assert any("Папка" in t or "Перейти" in t or "Тип" in t for _, t in texts), "Qt's own strings are not Russian"
    assert catalog.find_model("card-example").labels["ru"] in [t for _, t in texts]
    assert_russian(texts)


def test_the_check_itself_catches_english(qapp):
    assert english_words("Export Charts as PNG…") == ["Export", "Charts"]
    assert english_words("Экспорт в PNG (Ctrl+E), GPT-2 small, 2e9, 7B, FP32, ZeRO, AdamW") == []
    assert english_words("<b>Стадия 1</b> · hidden ×") == ["hidden"]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_glossary_tags_adapted_card_text_as_adapted(glossary, lang):
    """The definition and why-it-matters are the card's words changed by ZeroDesk (a translation, the term list's
    verb): the panel tags them 'Card, adapted' and says what changed, in the UI language; untouched card claims
    keep the plain 'Card' tag."""
    from zerodesk.gui.base import i18n

    i18n.set_language(lang)
    glossary.set_language(lang)
    glossary.flush()
    g = glossary.glossary
    assert g.definition_origin.adapted and g.why_origin.adapted
    page = glossary.browser.toHtml()
    plain = glossary.browser.toPlainText()
    adapted, card = ("Card, adapted", "Card") if lang == "en" else ("Карточка, адаптировано", "Карточка")
    definition = plain.index(g.definition)
    assert adapted in plain[:definition] and g.definition_origin.adapted in plain[:definition]
    why = plain.index(g.why)
    assert plain[definition:why].count(adapted) == 1 and g.why_origin.adapted in plain[definition:why]
    assert plain.count(adapted) == 2 and f"{card}\n" in plain.replace("\u2029", "\n")  # the card's own claims
    assert "▍" in page
    i18n.set_language("en")


def test_the_table_keeps_every_stage_in_view_in_russian(russian, qtbot):
    """Long Russian verdicts wrap inside their column instead of pushing stages 1-3 out to a scroll bar."""
    from zerodesk.core.catalog import find_model

    w = russian
    w.resize(1920, 1080)
    w.model.load(w.model.plan.model_copy(update={"model": find_model("llama-2-7b").to_model_spec()}))
    w.tabs.setCurrentWidget(w.table_tab)
    table = w.table_tab.table
    qtbot.waitUntil(lambda: table.columnCount() == 4 and table.isVisible())
    qtbot.wait(50)
    assert sum(table.columnWidth(c) for c in range(4)) <= table.viewport().width()
    qtbot.waitUntil(lambda: not table.horizontalScrollBar().isVisible())


def test_language_change_is_delivered_with_the_collector_held_off(qapp):
    """Qt hands LanguageChange down each widget's children from a copy of the list; a collection a retranslating
    handler ran could delete a dialog Python owns (any that ran exec()), and Qt sent to the deleted child."""
    from PySide6.QtCore import QEvent

    from zerodesk.gui.base import i18n

    seen = []

    class Retranslating(QWidget):
        def changeEvent(self, event):
            if event.type() == QEvent.Type.LanguageChange:
                seen.append(gc.isenabled())
            super().changeEvent(event)

    parent = QWidget()
    Retranslating(parent)
    Retranslating(parent)
    assert gc.isenabled()
    try:
        i18n.set_language("ru")
    finally:
        i18n.set_language("en")
    assert seen and not any(seen), seen
    assert gc.isenabled()  # and on again afterwards
