"""The form's Hybrid sharding group (issue 24): the shard group N, what it means (HSDP or hpZ), and the two links
communication crosses, with the network preset that sets the inter-node one.

A GPU preset sets the intra-node bandwidth (NVLink, PCIe) when it carries one (follow_gpu, wired by the form);
typing a bandwidth leaves the network preset. Texts keep the form's translation context ("PlanForm").
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QGroupBox

from ...core import catalog
from ...core.options import HYBRID
from ...core.plan import Plan
from ..base import i18n
from ..base.wrapped_label import WrappedLabel
from .field_set import FieldSet, form_layout, select_data
from .fields import CUSTOM

translate = QCoreApplication.translate  # lupdate reads translate("PlanForm", "text")

KEYS = ("cluster.shard_group", "hybrid", "cluster.network", "cluster.intra_node_gbps", "cluster.inter_node_gbps")


def hybrid_texts() -> dict[str, tuple[str, str]]:
    """The group's (label, tooltip) per field."""
    return {
        "cluster.shard_group": (translate("PlanForm", "Shard group N"), translate(
            "PlanForm", "Shard the states among N consecutive ranks (usually a node's GPUs) and replicate them across "
                        "the Nd/N groups; N divides Nd. Empty: N = Nd, no replicas")),
        "hybrid": (translate("PlanForm", "Group means"), translate(
            "PlanForm", "HSDP (FSDP2 on a 2-D mesh, MiCS): every sharded state among N. ZeRO++ hpZ (paper profile): "
                        "stage 3 among all Nd, plus a second 16-bit parameter shard among N")),
        "cluster.network": (translate("PlanForm", "Network preset"), translate(
            "PlanForm", "Sets the inter-node bandwidth per GPU")),
        "cluster.intra_node_gbps": (translate("PlanForm", "In a node, GB/s"), translate(
            "PlanForm", "GPU-to-GPU bandwidth inside a node (NVLink, PCIe), per GPU and per direction; a GPU preset "
                        "sets it (1 GB = 10⁹ B)")),
        "cluster.inter_node_gbps": (translate("PlanForm", "Between nodes, GB/s"), translate(
            "PlanForm", "Bandwidth between nodes (InfiniBand, Ethernet) per GPU and per direction: its NIC or its "
                        "share of the node's (1 GB = 10⁹ B)")),
    }


def _number(text: str) -> str:
    return text.strip().replace(",", ".")


class HybridSection(QGroupBox):
    """Shard group, its meaning, network preset and the two links' bandwidths."""

    def __init__(self, f: FieldSet, networks: list) -> None:
        super().__init__()
        self._f = f
        self._networks = networks
        form = form_layout(self)
        # keeps the tallest height its texts needed: "N = Nd: flat" is a line shorter than "r groups of N: ...", and each
        # shard group typed resized the section, laid the whole form out again and repainted every field of it
        self.group_hint = WrappedLabel(keep_height=True)
        self.group_hint.setObjectName("shardGroupHint")
        self.shard_group = f.edit("cluster.shard_group", stepper=True)
        f.form_row(form, "cluster.shard_group", self.shard_group, self.group_hint)
        self.hybrid = f.combo("hybrid", [("", v) for v in HYBRID.values], min_chars=12)
        f.form_row(form, "hybrid", self.hybrid)
        self.network = f.combo("cluster.network", [("", CUSTOM)] + [(n.label, n.name) for n in networks],
                               min_chars=12, on_choice=self._on_network)
        f.form_row(form, "cluster.network", self.network)
        self.intra = f.edit("cluster.intra_node_gbps")
        f.form_row(form, "cluster.intra_node_gbps", self.intra)
        self.inter = f.edit("cluster.inter_node_gbps", then=self._leave_network)
        f.form_row(form, "cluster.inter_node_gbps", self.inter)

    def retranslate(self) -> None:
        self.setTitle(translate("PlanForm", "Hybrid sharding and links"))
        self.shard_group.setPlaceholderText(translate("PlanForm", "Nd"))
        for i in range(self.hybrid.count()):
            self.hybrid.setItemText(i, i18n.option_label(HYBRID, self.hybrid.itemData(i)))
        self.network.setItemText(0, translate("PlanForm", "Custom"))
        for i, n in enumerate(self._networks, start=1):
            self.network.setItemText(i, i18n.preset_label(n))

    def values(self) -> dict:
        return {"cluster.shard_group": self.shard_group.text().strip() or None, "hybrid": self.hybrid.currentData(),
                "cluster.network": self.network.currentData() or None,
                "cluster.intra_node_gbps": _number(self.intra.text()),
                "cluster.inter_node_gbps": _number(self.inter.text())}

    def show(self, plan: Plan) -> None:
        c = plan.cluster
        self.shard_group.setText("" if c.shard_group is None else str(c.shard_group))
        select_data(self.hybrid, plan.hybrid.value)
        known = c.network is not None and any(n.name == c.network for n in self._networks)
        select_data(self.network, c.network if known else CUSTOM)
        self.intra.setText(f"{c.intra_node_gbps:g}")
        self.inter.setText(f"{c.inter_node_gbps:g}")

    def show_hint(self, plan: Plan) -> None:
        n = plan.cluster.shard_size
        if n >= plan.dp:
            text = translate("PlanForm", "N = Nd = {nd}: flat, no replicas").format(nd=plan.dp)
        elif plan.hybrid.value == "hpz":
            text = translate("PlanForm", "stage 3 among all {nd}, hpZ's second shard among {n}").format(nd=plan.dp, n=n)
        else:
            text = translate("PlanForm", "{r} groups of {n}: sharded in the group, replicated across").format(
                r=plan.replicas, n=n)
        self.group_hint.setText(text)

    def follow_gpu(self, name: str | None) -> None:
        """A GPU preset chosen: its intra-node bandwidth, when it states one."""
        if not name:
            return
        gpu = catalog.find_gpu(name)
        if gpu.intra_node_gbps is not None:
            with self._f.quiet():
                self.intra.setText(f"{gpu.intra_node_gbps:g}")
            if not self._f.is_quiet():  # the cluster section calls this quietly and validates the whole choice once
                self._f.validate()

    def _on_network(self) -> None:
        name = self.network.currentData()
        if name:
            network = catalog.find_network(name)
            with self._f.quiet():
                self.inter.setText(f"{network.gbps:g}")
        self._f.validate()

    def _leave_network(self) -> None:
        """A typed bandwidth is the user's own network."""
        if self.network.currentData():
            select_data(self.network, CUSTOM)
