"""A column of cards that keep their own height (the space stays below them), replaced as a
whole when the page shows something new."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from PySide6.QtWidgets import QVBoxLayout, QWidget

Card = TypeVar("Card", bound=QWidget)


class CardColumn(QWidget, Generic[Card]):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.column.addStretch(1)
        self.cards: list[Card] = []

    def set_cards(self, cards: Sequence[Card]) -> None:
        for card in self.cards:
            self.column.removeWidget(card)
            card.hide()  # gone from sight now, deleted once Qt is back in its loop
            card.deleteLater()
        self.cards = list(cards)
        for card in self.cards:
            self.column.insertWidget(self.column.count() - 1, card)
