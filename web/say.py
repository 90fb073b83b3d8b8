"""Refusals and notices in the reader's language: an English template looked up in the catalogue, then filled in.

The rules and the store build :class:`companion.errors.Message` values (template and values apart); this is the one
place that turns them into text for an answer, in the language of the device that asked (Flask-Babel's locale).
"""

from __future__ import annotations

from flask import has_request_context
from flask_babel import gettext

from companion.errors import BecherError, Message

__all__ = ["Message", "message_of", "say"]


def message_of(exc: BaseException) -> Message | str:
    """What an exception says, with its template when it has one."""
    if isinstance(exc, BecherError):
        return exc.message
    if len(exc.args) == 1 and isinstance(exc.args[0], Message):
        return exc.args[0]
    return str(exc)


def say(message: Message | str) -> str:
    """The sentence in the request's language; English outside a request or where the catalogue has no entry."""
    if not isinstance(message, Message):
        message = Message(message)
    if not has_request_context():
        return message.render()
    return message.render(gettext)
