"""The distributions a charge appeared in, as a tree.

The question support staff answer with it is "was this money paid out, and what came back out of
it?": each distribution (id, status, date), its totals by category, and the items of this charge
in it. `chargebacks` is always listed among the totals, even at zero, because "no chargeback in
this payout" is itself the answer people look for.

Accepts pydantic models or plain mappings, so it works with whatever shape the client returns
(including fields it does not know yet).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from rich.text import Text
from textual.widgets import Tree

from paytui.ui import format as fmt

#: Categories of `total_amounts`, in the order a payout statement reads (net last).
TOTAL_CATEGORIES: tuple[str, ...] = ("sales", "refunds", "chargebacks", "returns", "fees", "net")

#: Categories that take money back from the merchant, shown in a warning colour.
OUTGOING_CATEGORIES = frozenset({"refunds", "chargebacks", "returns", "fees"})

EMPTY_MESSAGE = "This charge is in no distribution yet"
NOT_LOADED_MESSAGE = "Distributions not loaded — press d to load them"


def as_mapping(value: object) -> dict[str, Any]:
    """A wire-shaped dict from a pydantic model (by alias, extras kept) or a mapping."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        result = dump(mode="python", by_alias=True)
        return dict(result) if isinstance(result, Mapping) else {}
    if isinstance(value, Mapping):
        return dict(value)
    return {}


def as_decimal(value: object) -> Decimal | None:
    """Money from a model (Decimal) or from a tolerated raw value; never through float math."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def as_datetime(value: object) -> datetime | None:
    """A timestamp from a model (datetime) or an ISO 8601 string kept in an extra field."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def _amount_text(category: str, amount: object) -> Text:
    outgoing = category in OUTGOING_CATEGORIES
    style = fmt.OUTGOING_STYLE if outgoing else ("bold" if category == "net" else "")
    value = as_decimal(amount)
    return Text(
        fmt.money(value) if value is not None else fmt.literal(amount).plain, style=fmt.tone(style)
    )


class DistributionTree(Tree[dict[str, Any]]):
    """Distributions → totals by category and this charge's items."""

    DEFAULT_CSS = """
    DistributionTree {
        height: auto;
        background: $surface;
        padding: 0 1;
    }
    """

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(Text("Distributions"), name=name, id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 3
        self.show_not_loaded()

    def show_not_loaded(self) -> None:
        """The charge was read without `expand=distributions`; say how to get them."""
        self.clear()
        self.root.add_leaf(Text(NOT_LOADED_MESSAGE, style="italic"))
        self.root.expand()

    def show_distributions(
        self, distributions: Iterable[object] | None, *, charge_id: str | None = None
    ) -> None:
        """Rebuild the tree from the charge's `distributions` (models or mappings).

        Items of other charges are filtered out when `charge_id` is given: the API promises only
        this charge's items, but a tolerant client should not trust that blindly.
        """
        self.clear()
        dists = [as_mapping(d) for d in distributions or ()]
        if not dists:
            self.root.add_leaf(Text(EMPTY_MESSAGE, style="italic"))
            self.root.expand()
            return
        for dist in dists:
            self._add_distribution(dist, charge_id)
        self.root.expand()

    def _add_distribution(self, dist: dict[str, Any], charge_id: str | None) -> None:
        status = str(dist.get("status") or "—")
        label = Text.assemble(
            ("Distribution ", "bold"),
            fmt.literal(dist.get("distribution_id") or "?"),
            "  ",
            fmt.distribution_status(status),
            "  ",
            fmt.timestamp(as_datetime(dist.get("distribution_timestamp"))),
        )
        node = self.root.add(label, data=dist, expand=True)

        totals = as_mapping(dist.get("total_amounts"))
        totals_node = node.add(Text("Totals by category", style="bold"), expand=True)
        extra_categories = [c for c in totals if c not in TOTAL_CATEGORIES]
        for category in (*TOTAL_CATEGORIES, *extra_categories):
            amount = totals.get(category)
            if amount is None and category == "chargebacks":
                amount = Decimal("0")
            if amount is None:
                continue
            totals_node.add_leaf(
                Text.assemble(
                    (f"{category:<13}", "bold" if category == "net" else ""),
                    _amount_text(category, amount),
                ),
                data={"category": category, "amount": amount},
            )

        items = [as_mapping(i) for i in dist.get("items") or ()]
        if charge_id is not None:
            items = [i for i in items if i.get("charge_id") in (None, charge_id)]
        items_node = node.add(
            Text(f"Items for this charge ({len(items)})", style="bold"), expand=True
        )
        if not items:
            items_node.add_leaf(Text("none", style="italic"))
        for item in items:
            category = str(item.get("category") or "?")
            items_node.add_leaf(
                Text.assemble(
                    (
                        f"{category:<13}",
                        fmt.tone(fmt.OUTGOING_STYLE if category == "chargebacks" else ""),
                    ),
                    _amount_text(category, item.get("amount")),
                    "  item ",
                    fmt.literal(item.get("item_id") or "?"),
                ),
                data=item,
            )


def total_text(category: str, amount: object) -> Text:
    """A total in the table: outgoing categories in the error colour when not zero, net in bold."""
    value = as_decimal(amount)
    if value is None and category == "chargebacks":
        value = as_decimal(0)
    if value is None:
        return Text("—", style="dim", justify="right")
    style = ""
    if category in OUTGOING_CATEGORIES and value:
        style = fmt.OUTGOING_STYLE
    elif category == "net":
        style = "bold"
    return Text(fmt.money(value), style=fmt.tone(style), justify="right")


def total_of(distribution: Any, category: str) -> Any:
    totals = getattr(distribution, "total_amounts", None)
    return getattr(totals, category, None) if totals is not None else None


#: A distribution's status, as every list and detail shows it.
status_text = fmt.distribution_status
