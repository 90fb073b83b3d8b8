"""The two ways an action can fail: it is malformed, or it breaks the rules.

Both are ``ValueError`` so callers that only care about "refused" can catch one type,
while the server can still answer 400 (malformed) and 409/422 (against the rules) apart.
"""

from __future__ import annotations


class BecherError(ValueError):
    """Base of every refusal; the message is one sentence a person can act on."""


class MalformedInput(BecherError):
    """The input cannot be understood: a face that does not exist, a throw of the wrong size, a bad field."""


class IllegalAction(BecherError):
    """The input is well formed but not allowed now: out of turn, a fourth throw, announcing lower."""
