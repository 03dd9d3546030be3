"""The named parts of a system a note speaks of, by kind: "apps/web", "the public API",
"orders-worker", "der Suchdienst", "le service de facturation", "PAYMENT_TIMEOUT_MS".

Two notes that each name a part of one kind, and no part in common, are about two parts:
"apps/web bundles with Vite 5" / "apps/admin now bundles with Rspack", "gunicorn timeout 30s
for the public API" / "... 120s on the internal reporting API", "PAYMENT_TIMEOUT_MS=10000" /
"PAYMENT_RETRY_MAX changed from 2 to 3". A rename or a move names both, so it still counts.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import _STOP

__all__ = ["other_part", "parts"]

# Kinds of part a name qualifies in English ("the payments service", "orders-api").
_KINDS = (
    "service|api|app|worker|frontend|backend|server|cluster|job|cron|bucket|queue|database|"
    "db|repo|module|crate|package|library|lib|site|bot|sdk|pipeline|dashboard|endpoint|"
    "function|lambda|stack|topic|table|consumer|gateway"
)
_NAMED = re.compile(rf"\b([a-z][\w.]*)[ \-]({_KINDS})s?\b(?!\.\w)", re.I)
# Monorepo folders name parts by path: "apps/web", "services/billing".
_PATH = re.compile(
    r"(?<![\w/])(apps|packages|services|libs|crates|modules|cmd|functions)/([\w.\-]+)", re.I
)
# German and Dutch compounds ("Suchdienst", "Checkout-Service", "zoekdienst") and the
# Romance "service of X" ("service de facturation", "servizio di notifiche").
_COMPOUND = re.compile(r"\b([^\W\d_]{3,}?)-?(dienst|service)\b", re.I)
_SERVICE_OF = re.compile(
    r"\b(?:service|servicio|servizio|servi[cç]o|dienst)\s+(?:de|di|do|da|des|du|der|van|für|"
    r"voor)\s+(?:la |le |les |los |las |el |o |a |de |het |die |das |den |l')?([^\W\d_]\w+)",
    re.I,
)
# Configuration keys: "PAYMENT_TIMEOUT_MS", "REPORT_INTERVAL_S".
_KEY = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
# Words before a kind noun that name no particular part ("the new service", "a micro service").
_NOT_A_NAME = frozenset(
    "new old main same other whole entire single every each any that this which micro "
    "the our their its my your await async return const let var import from".split()
)
_SERVICE_WORDS = frozenset({"dienst", "service"})
# Where a part is the value a change goes to: "to its own", "nach", "vers", "->".
_DESTINATION = re.compile(
    r"(?:\b(?:to|into|onto|vers|nach|naar|auf)|->|\u2192)\s+(?:[\w'-]+\s+){0,2}$", re.I
)


@lru_cache(maxsize=8192)
def parts(text: str) -> dict[str, frozenset[str]]:
    """The named parts of ``text`` by kind: {"api": {"public"}, "apps": {"web"}, "key": ...}."""
    found: dict[str, set[str]] = {}

    def add(kind: str, name: str, at: int) -> None:
        name = name.lower().strip(".")
        if _DESTINATION.search(text[max(0, at - 40) : at]):
            return  # "moved to its own OpenSearch cluster": a value, not the part spoken of
        if name and name not in _STOP and name not in _NOT_A_NAME and not name.endswith("ed"):
            found.setdefault(kind, set()).add(name)

    for m in _NAMED.finditer(text):
        add(m.group(2).lower().rstrip("s"), m.group(1), m.start())
    for m in _PATH.finditer(text):
        add(m.group(1).lower(), m.group(2), m.start())
    for m in _COMPOUND.finditer(text):
        if m.group(1).lower() not in _SERVICE_WORDS:
            add("service", m.group(1), m.start())
    for m in _SERVICE_OF.finditer(text):
        add("service", m.group(1), m.start())
    for m in _KEY.finditer(text):
        found.setdefault("key", set()).add(m.group(0).lower())
    return {k: frozenset(v) for k, v in found.items()}


def other_part(old: str, new: str) -> str | None:
    """The kind and names when both notes name parts of one kind, none in common, and neither
    note names the other's part anywhere (a rename or a move names both; "the S3 bucket for
    uploads" is "the uploads bucket")."""
    po, pn = parts(old), parts(new)
    for kind in po.keys() & pn.keys():
        if any(_one(a, b) for a in po[kind] for b in pn[kind]):
            continue
        if _named_in(po[kind], new) or _named_in(pn[kind], old):
            continue
        return f"{kind}: {'/'.join(sorted(po[kind]))} vs {'/'.join(sorted(pn[kind]))}"
    return None


def _named_in(names: frozenset[str], text: str) -> bool:
    low = text.lower()
    return any(re.search(rf"(?<![\w\-]){re.escape(name)}(?![\w\-])", low) for name in names)


def _one(a: str, b: str) -> bool:
    """One part by two spellings: the same name, one key inside the other (`STRIPE_SECRET`,
    `CASHIER_STRIPE_SECRET`), or a short form ("ws" for "websocket")."""
    if a == b or (len(a) > 3 and len(b) > 3 and (a in b or b in a)):
        return True
    short, long = sorted((a, b), key=len)
    return len(short) <= 3 < len(long) and short[0] == long[0] and _subsequence(short, long)


def _subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(c in rest for c in short)
