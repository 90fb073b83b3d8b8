"""The two ways an action can fail: it is malformed, or it breaks the rules.

Both are ``ValueError`` so callers that only care about "refused" can catch one type,
while the server can still answer 400 (malformed) and 409/422 (against the rules) apart.

A refusal keeps its English template and its values apart (:class:`Message`): ``str()`` gives the English
sentence, and a front end can look the template up in its own catalogue and say it in the reader's language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Message:
    """A sentence for a person: an English ``str.format`` template and its values.

    A value that is itself a ``Message`` (a word such as "left", a sentence inside a sentence) is translated too;
    other values (names, numbers, faces) are shown as they are.
    """

    template: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, template: str, /, **params: Any) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "params", params)

    def render(self, translate: Callable[[str], str] = _same) -> str:
        """The sentence, with ``translate`` applied to this template and every nested one.

        A translation whose placeholders do not fit the values falls back to English rather than failing.
        """
        values = {k: v.render(translate) if isinstance(v, Message) else v for k, v in self.params.items()}
        if not values:
            return translate(self.template)
        try:
            return translate(self.template).format(**values)
        except (KeyError, IndexError, ValueError):
            return self.template.format(**values)

    def __str__(self) -> str:
        return self.render()


class BecherError(ValueError):
    """Base of every refusal; the message is one sentence a person can act on.

    Raised as ``BecherError("template with {name}", name=value)`` or with a ready :class:`Message`.
    """

    def __init__(self, message: str | Message, /, **params: Any) -> None:
        self.message = message if isinstance(message, Message) else Message(message, **params)
        super().__init__(str(self.message))


class MalformedInput(BecherError):
    """The input cannot be understood: a face that does not exist, a throw of the wrong size, a bad field."""


class IllegalAction(BecherError):
    """The input is well formed but not allowed now: out of turn, a fourth throw, announcing lower."""


def N_(template: str) -> str:
    """Marks a template for the translation catalogue where it is not the first argument of a refusal (one of two
    sentences chosen by a condition); the extraction looks for this name."""
    return template
