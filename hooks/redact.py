"""Secret scrubbing: text in, the same text with secrets replaced by ``[REDACTED:<kind>]``.

Standard library only, and the one copy: the hooks (``common.clean``, before the capture hook
writes an inbox row, even when no server ever runs) and the engine (``memory.write.ingest``,
``memory.write.revision``) both import this module; the installer copies it with the hook
scripts. Everything the memory stores passes through :func:`redact` first, so a pasted
``.env`` file, a ``mysql -p...`` command line or a stack trace with a bearer token never
reaches the SQLite file. The corpus it is tested against is ``tests/secret_corpus.py``.

How it works, in order:

1. :data:`RULES`, a table of ``(kind, regex, what is replaced)`` rows applied one after
   another: PEM blocks first (so nothing inside them is matched twice), then credentials in
   URLs and headers, password flags of common command lines (``mysql -pX``, ``curl -u u:X``,
   ``sshpass -p X``, ``docker login -p X``, ``--password X`` ...), netrc and htpasswd lines,
   chat webhooks, and vendor tokens with a recognisable prefix (``glpat-``, ``sk-ant-``,
   ``AKIA`` ...; the prefixes do not occur in prose). "What is replaced" is ``ALL`` (the
   whole match) or ``SECRET`` (only the group named ``secret``: the user, host, flag or
   setting name around it stays searchable).
2. Assignments to secret-looking names (``password=...``, ``"api_key": "..."``,
   ``export DBPASSWORD=...``, ``PGPASSWORD=...``) in env-file, shell, JSON, YAML and Python
   styles; and long, high-entropy values assigned to any name containing key, secret, token
   or password (:func:`_assignments`).

Two conventions keep ordinary text intact:

- A match never starts inside a word: when its first character is a letter, digit, ``_`` or
  ``-`` and the one before it is a letter, digit or ``_``, it is skipped (``task-queue`` is
  not an ``sk-`` key, ``fedora-updates:x`` not ``-u user:pass``). This is checked in code
  rather than with a leading ``\\b``, which would make ``re`` try every position of the text
  (a rule that starts with a literal is found by a fast substring search instead).
- Placeholders reveal nothing and stay: ``${DB_PASSWORD}``, ``$TOKEN``, ``<your-token>``,
  ``None``, ``***`` and an earlier ``[REDACTED:...]`` (so redaction is idempotent).

Deliberately *not* redacted: git SHAs, sha256 hashes, UUIDs, paths, version numbers, public
keys and certificates, ordinary words ("token bucket", "password policy"), and ``-p`` flags
that are not passwords (``ssh -p 2222``, ``mkdir -p dir``, ``docker run -p 80:80``,
``mysql -p dbname``, which prompts): a ``-p`` is a password only for the commands that read it
so (``mysql`` with the value attached, ``sshpass``, ``docker login``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

__all__ = ["RULES", "contains_secret", "redact"]

ALL = "all"  # the whole match is the secret
SECRET = "secret"  # only the group named ``secret`` is
Replace = Callable[[re.Match[str]], str]


def _tag(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# What ``_tag`` leaves in place of a secret, as other readers of the stored text find it.
TAG = re.compile(r"\[REDACTED:[\w\-]*\]")


_PLACEHOLDER = re.compile(
    r"^(?:none|null|nil|true|false|undefined|empty|changeme|required|optional|string|str|"
    r"\*+|x+|\.\.\.|…|redacted|secret|password|token|\[redacted.*)$"
    r"|^(?:\$|<|\{|%|os\.|process\.env|env\(|getenv|settings\.|config\.|self\.|\[REDACTED)",
    re.IGNORECASE,
)


def _placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.search(value.strip("\"'")))


def _splice(m: re.Match[str], group: str, kind: str) -> str:
    """The match with only ``group`` replaced by the tag."""
    start, end = m.span(group)
    base = m.start()
    return m.group(0)[: start - base] + _tag(kind) + m.group(0)[end - base :]


# -- conditions of the few rules that need more than a regex -----------------------------------

# psql and the other PostgreSQL tools take no password argument: ``--password`` (``-W``) only
# forces the prompt, so ``psql -U app --password app_db`` names a database.
_PG_TOOL = re.compile(
    r"\b(?:psql|pg_dump|pg_dumpall|pg_restore|pg_basebackup|createdb|dropdb|createuser|"
    r"dropuser|vacuumdb|reindexdb|clusterdb|pgbench)\b[^\n|;&]*$"
)


_SWITCH = re.compile(r"(?:no|skip|ask|prompt|show|require|reset|forgot|change|generate)-")


def _password_flag(m: re.Match[str]) -> str | None:
    """``--password X``: not ``--no-password``/``--ask-pass`` (switches), not after psql & co.
    (a switch there), nor a value that is itself a flag."""
    if _SWITCH.match(m.group("flag")):
        return None
    if m.group("sep").strip() == "" and (
        m.group("secret").startswith("-")
        or _PG_TOOL.search(m.string, max(0, m.start() - 300), m.start())
    ):
        return None
    return _splice(m, "secret", _kind_for(m.group("flag")))


def _line_start(m: re.Match[str]) -> str | None:
    """netrc's ``password X`` on a line of its own (only indentation before it), below a
    ``machine`` or ``login`` line."""
    before = m.string[m.string.rfind("\n", 0, m.start()) + 1 : m.start()]
    context = m.string[max(0, m.start() - 300) : m.start()]
    if before.strip() or not re.search(r"^\s*(?:machine|default|login)\b", context, re.M):
        return None
    return _splice(m, "secret", "password")


def _htpasswd(m: re.Match[str]) -> str | None:
    """``htpasswd -b[c] FILE USER PASSWORD`` and ``htpasswd -nb USER PASSWORD``."""
    flags = m.group("flags")
    if "b" not in flags:  # without -b htpasswd prompts: no password on the line
        return None
    args = list(re.finditer(r"\S+", m.group("args")))
    index = 1 if "n" in flags else 2
    if len(args) <= index:
        return None
    start = m.start("args") + args[index].start() - m.start()
    end = m.start("args") + args[index].end() - m.start()
    return m.group(0)[:start] + _tag("password") + m.group(0)[end:]


# -- the table ---------------------------------------------------------------------------------

# The argument of a password flag: quoted (it may hold spaces), or a word not starting with "-".
_ARG = r"(?P<secret>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'\-]\S*)"
# ``user:password``, the whole argument possibly quoted.
_USER_PASS = r"(?P<q>[\"'])?[^\s:\"'/]+:(?P<secret>(?(q)[^\"'\n]+|[^\s\"'@]+))"

# (kind, regex, what is replaced: ALL, SECRET or a function returning the new text or None to
# keep the match). Applied in this order; a vendor row before a more general one ("sk-ant-"
# before "sk-"). Regexes are case-sensitive unless they say (?i).
RULES: list[tuple[str, str, str | Callable[[re.Match[str]], str | None]]] = [
    # Whole blocks first: PEM private keys (also inside JSON, e.g. a GCP service-account
    # file's "private_key"), PGP private key blocks. An unterminated block runs to the end.
    ("private_key", r"(?s)-----BEGIN (?P<label>[A-Z0-9 ]*)PRIVATE KEY(?: BLOCK)?-----.*?"
                    r"(?:-----END (?P=label)PRIVATE KEY(?: BLOCK)?-----|\Z)", ALL),
    # Connection strings and URLs: scheme://user:PASSWORD@host (user may be empty).
    ("password", r"://[^\s:/@\[]*:(?P<secret>[^\s@/]+)@(?=[^\s@])", SECRET),
    ("sentry_dsn", r"https?://(?P<secret>[0-9a-f]{32})(?::[0-9a-f]{32})?@[\w.\-]*sentry",
     SECRET),
    ("azure_sas", r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{20,})", SECRET),
    # Authorization headers, and bearer tokens anywhere.
    ("bearer_token", r"(?:[Aa]uthorization|AUTHORIZATION)[\"']?\s*[:=]\s*[\"']?"
                     r"(?i:bearer|basic|token|bot|digest|apikey|sso-key)\s+"
                     r"(?P<secret>[A-Za-z0-9._~+/=\-]{8,})", SECRET),
    ("bearer_token", r"Bearer\s+(?P<secret>[A-Za-z0-9._~+/=\-]{20,})", SECRET),
    # Chat webhooks: the path is the credential.
    ("slack_webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/"
                      r"(?P<secret>[A-Za-z0-9_/\-]{20,})", SECRET),
    ("discord_webhook", r"discord(?:app)?\.com/api/webhooks/(?P<secret>\d+/[A-Za-z0-9_\-]{20,})",
     SECRET),
    ("teams_webhook", r"\.webhook\.office\.com/(?P<secret>webhookb2/[A-Za-z0-9@/_\-]{20,})",
     SECRET),
    ("telegram_token", r"api\.telegram\.org/(?:file/)?bot(?P<secret>\d+:[A-Za-z0-9_\-]{30,})",
     SECRET),
    # Password flags of command lines. A -p is a password only for these commands.
    # mysql: only with the value attached (-pX); "-p X" prompts and X is the database.
    ("password", r"(?:mysql|mariadb)[\w\-]*(?:\s+[^\s|;&]+){0,12}?\s-p" + _ARG,
     SECRET),
    ("password", r"sshpass(?:\s+-[a-oq-zA-Z]\S*)*\s+-p\s*" + _ARG, SECRET),
    ("password", r"(?:docker|podman|nerdctl|buildah|skopeo|oras|helm registry)\s+login"
                 r"(?:\s+[^\s|;&]+){0,12}?\s+-p\s*" + _ARG, SECRET),
    ("password", r"curl(?:\s+[^\s|;&]+){0,20}?\s+-(?:u\s*|-user[\s=]+)" + _USER_PASS, SECRET),
    ("password", r"(?:http|https|xh)(?:\s+[^\s|;&]+){0,20}?\s+(?:-a|--auth)[\s=]+"
                 + _USER_PASS, SECRET),  # HTTPie
    ("password", r"redis-cli(?:\s+[^\s|;&]+){0,12}?\s+-a\s+" + _ARG, SECRET),
    ("password", r"ldap(?:search|modify|add|delete|passwd|whoami)(?:\s+[^\s|;&]+){0,12}?\s+-w\s+"
                 + _ARG, SECRET),
    ("password", r"-pass(?:in|out)?\s+pass:(?P<secret>\S+)", SECRET),  # openssl
    ("password", r"(?:smbclient|rpcclient|smbmap)(?:\s+[^\s|;&]+){0,12}?\s+-U\s*[\"']?"
                 r"[^\s%\"']+%(?P<secret>[^\s\"']+)", SECRET),
    ("password", r"--(?P<flag>(?:[a-z0-9]+-)*"
                 r"(?:password|passwd|pass|passphrase|token|secret|api-key|client-secret))"
                 r"(?P<sep>=|\s+)(?P<secret>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"']+)",
     _password_flag),
    ("password", r"htpasswd\s+(?P<flags>-[A-Za-z]+(?:\s+-[A-Za-z]+)*)"
                 r"(?P<args>(?:\s+[^\s|;&]+){2,3})",
     _htpasswd),
    # netrc: "machine h login u password p", one line or one token per line.
    ("password", r"(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+(?P<secret>\S+)",
     SECRET),
    ("password", r"(?m)password[ \t]+(?P<secret>\S+)[ \t]*$", _line_start),
    # Password hashes (htpasswd, /etc/shadow): crackable offline, so secrets too.
    ("password_hash", r"\$(?:apr1|1|5|6)\$[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{20,}", ALL),
    ("password_hash", r"\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}", ALL),
    ("password_hash", r"\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{8,}\$[./A-Za-z0-9]{20,}", ALL),
    ("password_hash", r"\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$"
                      r"[A-Za-z0-9+/]{16,}", ALL),
    ("password_hash", r"\{SSHA?\}[A-Za-z0-9+/]{27,}={0,2}", ALL),
    # Cloud providers.
    ("aws_access_key", r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])", ALL),
    ("aws_secret_key", r"(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY)[\"']?\s*[:=]\s*[\"']?"
                       r"(?P<secret>[A-Za-z0-9/+=]{40})", SECRET),
    ("google_api_key", r"AIza[0-9A-Za-z_\-]{35}", ALL),
    ("google_oauth", r"ya29\.[A-Za-z0-9_\-]{20,}", ALL),
    ("google_oauth", r"1//0[A-Za-z0-9_\-]{40,}", ALL),  # refresh token
    ("google_oauth", r"GOCSPX-[A-Za-z0-9_\-]{24,}", ALL),  # client secret
    ("azure_key", r"(?:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/=]{20,})", SECRET),
    ("azure_client_secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}", ALL),
    ("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}", ALL),
    ("heroku_key", r"HRKU-[A-Za-z0-9_\-]{30,}", ALL),
    ("alibaba_key", r"LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9])", ALL),
    ("flyio_token", r"(?:fo1_|fm[12][ar]?_)[A-Za-z0-9_\-+/=]{40,}", ALL),
    ("supabase_token", r"sbp_[a-f0-9]{40}", ALL),
    ("planetscale_token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}", ALL),
    ("vault_token", r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", ALL),
    ("terraform_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}", ALL),
    ("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{2,35}\.)?"
                      r"[A-Za-z0-9]{40,}", ALL),
    ("pulumi_token", r"pul-[a-f0-9]{40}", ALL),
    ("databricks_token", r"dapi[a-f0-9]{32}(?:-\d)?", ALL),
    ("grafana_token", r"gl(?:c|sa)_[A-Za-z0-9_+/=\-]{32,}", ALL),
    ("newrelic_key", r"NRAK-[A-Z0-9]{27}", ALL),
    ("age_secret_key", r"AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}", ALL),
    # Version control, CI and package registries.
    ("github_token", r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}", ALL),
    ("gitlab_token", r"gl(?:pat|dt|rt|ptt|cbt|imt|soat|ffct|agent|oas)-[A-Za-z0-9_\-.]{20,}",
     ALL),
    ("gitlab_token", r"GR1348941[A-Za-z0-9_\-]{20,}", ALL),
    ("bitbucket_token", r"ATBB[A-Za-z0-9_=.\-]{32,}", ALL),
    ("atlassian_token", r"ATATT3[A-Za-z0-9_\-=]{50,}", ALL),
    ("npm_token", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", ALL),
    ("pypi_token", r"pypi-AgE[A-Za-z0-9_\-]{50,}", ALL),
    ("rubygems_token", r"rubygems_[a-f0-9]{48}", ALL),
    ("nuget_key", r"oy2[a-z0-9]{43}", ALL),
    ("docker_token", r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}", ALL),
    ("postman_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", ALL),
    ("shopify_token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", ALL),
    ("linear_key", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}", ALL),
    ("sentry_token", r"sntry[su]_[A-Za-z0-9_+/=]{40,}", ALL),
    # Chat, mail and payments.
    ("slack_token", r"xox[baprse]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,}", ALL),
    ("twilio_key", r"SK[0-9a-f]{32}(?![0-9A-Za-z])", ALL),
    ("sendgrid_key", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", ALL),
    ("mailgun_key", r"key-[0-9a-f]{32}(?![0-9A-Za-z])", ALL),
    ("stripe_key", r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{16,}", ALL),
    ("square_token", r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}", ALL),
    ("braintree_token", r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}", ALL),
    # LLM and ML APIs ("sk-ant-" and "sk-or-" before OpenAI's "sk-").
    ("anthropic_key", r"sk-ant-[A-Za-z0-9_\-]{20,}", ALL),
    ("openrouter_key", r"sk-or-v1-[A-Za-z0-9]{32,}", ALL),
    ("openai_key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|sk-[A-Za-z0-9]{20,}", ALL),
    ("groq_key", r"gsk_[A-Za-z0-9]{20,}", ALL),
    ("replicate_token", r"r8_[A-Za-z0-9]{20,}", ALL),
    ("huggingface_token", r"hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])", ALL),
    ("perplexity_key", r"pplx-[A-Za-z0-9]{40,}", ALL),
    ("xai_key", r"xai-[A-Za-z0-9]{60,}", ALL),
    ("langsmith_key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}", ALL),
    ("tavily_key", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}", ALL),
    # JSON Web Tokens (header and payload are base64 of "{...").
    ("jwt", r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*", ALL),
]

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _rule(kind: str, what: str | Callable[[re.Match[str]], str | None]) -> Replace:
    def replace(m: re.Match[str]) -> str:
        start = m.start()
        text = m.string
        if start and text[start - 1] in _WORD and (text[start] in _WORD or text[start] == "-"):
            return m.group(0)  # starts inside a word
        if what == ALL:
            return _tag(kind)
        if "secret" in m.re.groupindex and _placeholder(m.group("secret")):
            return m.group(0)
        if what == SECRET:
            return _splice(m, "secret", kind)
        out = what(m)  # type: ignore[operator]
        return m.group(0) if out is None else out

    return replace


_COMPILED: list[tuple[re.Pattern[str], Replace]] = [
    (re.compile(pattern), _rule(kind, what)) for kind, pattern, what in RULES
]


# -- assignments to secret-looking names -------------------------------------------------------

# A name, possessive and starting where a name can start, followed by an assignment operator.
_NAME_OP = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?P<name>[A-Za-z0-9_.\-]++)(?P<q1>[\"']?)\s*"
    r"(?P<op>:=|=(?!=)|:(?![/:]))"
)
_VALUE = re.compile(
    r"\s*(?:(?P<q>[\"'])(?P<qsecret>[^\"'\n]{1,500})(?P=q)"  # quoted, or bare: not "(" or "["
    r"|(?P<secret>[^\s\"',;}{)(\[\]][^\s\"',;}{)\]]{0,499}))"
)
_GENERIC_VALUE = re.compile(r"\s*[\"']?(?P<secret>[A-Za-z0-9+/=_\-.]{16,256})")

# Whose *last* word is the secret word, so ``max_tokens=4096``, ``token_count: 3`` and
# ``password_policy=strict`` are left alone. Strong words count after any prefix
# (``PGPASSWORD``, ``DBPASSWORD``, ``_authToken``); weak ones only after a separator or a
# camelCase hump (``db_pass``, ``dbPwd``, not ``bypass``), and "key" only with a word that makes
# it a credential (``api_key``, ``AccountKey``, not ``primary_key`` or ``cache_key``).
_STRONG = re.compile(
    r"(?:password|passwd|passphrase|secret|token|api[_\-.]?key|sshpass)$", re.IGNORECASE
)
_WEAK = re.compile(
    r"(?:^|[_.\-]|(?<=[a-z0-9])(?=[A-Z]))(?i:pass|pwd|auth|credentials?|"
    r"(?:access|secret|private|signing|account|auth|app|application|master|encryption|client|"
    r"storage|shared[_\-.]?access|service|deploy|license|webhook|hmac|jwt|session|admin|root|"
    r"ssh|gpg|pgp|aes|crypto|cipher|sas)[_\-.]?key)$"
)
# ``.env`` style names: ALL_CAPS ending in _KEY are keys unless the word before says otherwise.
_ENV_KEY = re.compile(r"^[A-Z0-9_]*[A-Z0-9]_KEY$")
_NOT_A_SECRET_KEY = re.compile(
    r"(?:^|_)(?:PRIMARY|FOREIGN|CACHE|PARTITION|SORT|HASH|ROUTING|SHARD|PUBLIC|PUBLISHABLE|"
    r"IDEMPOTENCY|LOOKUP|OBJECT|S3|FILE|PATH|GROUP|ENTRY|ROW|INDEX|UNIQUE|TRANSLATION|I18N|"
    r"LABEL|SEARCH|SITE|MAP|DICT|SSH_PUB|PUB)_KEY$"
)
_GENERIC_NAME = re.compile(r"key|secret|token|password|passwd|credential", re.IGNORECASE)


def _secret_name(name: str) -> bool:
    if _STRONG.search(name) or _WEAK.search(name):
        return True
    return bool(_ENV_KEY.match(name)) and not _NOT_A_SECRET_KEY.search(name)


def _kind_for(name: str) -> str:
    lowered = name.lower()
    if "pass" in lowered or "pwd" in lowered:
        return "password"
    if "token" in lowered or "auth" in lowered:
        return "token"
    if "api" in lowered:
        return "api_key"
    if "secret" in lowered or "credential" in lowered:
        return "secret"
    return "api_key" if "key" in lowered else "secret"


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


# A call or an index (``name(``, ``a.b[``): code, when spaced as code is (``x = f(y)``; a shell or
# ``.env`` assignment has no spaces around "=").
_CODE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*[(\[]")
# A file name or path ends in an extension: ``tokenizer.json``, ``keys/prod.pem``.
_FILE = re.compile(r"[/.][A-Za-z0-9_\-]+\.[a-z][a-z0-9]{0,4}$")


def _assigned_secret(name: str, m: re.Match[str], text: str) -> tuple[int, int] | None:
    """The span of the secret assigned to the secret-looking ``name``, or None."""
    v = _VALUE.match(text, m.end())
    if v is None:
        return None
    group = "qsecret" if v.group("qsecret") is not None else "secret"
    value = v.group(group)
    if _placeholder(value.strip()):
        return None
    if group == "secret" and _CODE.match(value) and m.group(0).endswith((" =", "\t=")) \
            and v.group(0)[:1].isspace():
        return None  # code, not a literal: "token = tokens[0]", "_TOKEN = re.compile(...)"
    if m.group("op") == ":" and not v.group("q") and not m.group("q1"):
        # "password: hunter2" (YAML or prose) -- but prose such as "the token: it expired"
        # must survive, so an unquoted colon value needs a digit or symbol, or real length.
        if not (re.search(r"[^A-Za-z]", value) or len(value) >= 12):
            return None
    return v.span(group)


def _generic_secret(m: re.Match[str], text: str) -> tuple[int, int, bool] | None:
    """A long, high-entropy value assigned to a name that merely contains a secret word:
    its span and whether it is a secret."""
    v = _GENERIC_VALUE.match(text, m.end())
    if v is None:
        return None
    value = v.group("secret")
    if value.startswith("[REDACTED") or _PLACEHOLDER.search(value):
        return None
    has_letter = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    # Dotted identifiers (settings.SECRET_KEY_VALUE) and paths are names, not secrets.
    if _FILE.search(value):
        return (*v.span("secret"), False)
    if not (has_letter and has_digit) or _entropy(value) < 3.5 or "/" in value.strip("/+="):
        if not (len(value) >= 32 and _entropy(value) >= 4.0):
            return (*v.span("secret"), False)
    return (*v.span("secret"), True)


def _assignments(text: str) -> str:
    out: list[str] = []
    done = 0  # text[:done] is in ``out``
    seen = 0  # names before this are inside a value already replaced or judged
    for m in _NAME_OP.finditer(text):
        if m.start() < seen:
            continue
        name = m.group("name")
        if _secret_name(name):
            span = _assigned_secret(name, m, text)
        elif _GENERIC_NAME.search(name):
            generic = _generic_secret(m, text)
            if generic is not None and not generic[2]:
                seen = generic[1]  # not a secret: nor is a name inside it (keeps this linear)
                continue
            span = None if generic is None else generic[:2]
        else:
            continue
        if span is None:
            continue
        out.append(text[done : span[0]])
        out.append(_tag(_kind_for(name)))
        done = seen = span[1]
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def redact(text: str) -> str:
    """Return ``text`` with every recognised secret replaced by ``[REDACTED:<kind>]``.

    The kinds are those of :data:`RULES` plus ``password``, ``token``, ``api_key`` and
    ``secret`` for assignments. Only the secret itself is replaced: names, flags, users and
    hosts stay. Idempotent: redacting twice gives the same text.
    """
    if not text:
        return text
    for pattern, replace in _COMPILED:
        text = pattern.sub(replace, text)
    return _assignments(text)


def contains_secret(text: str) -> bool:
    """Return True when :func:`redact` would change ``text``."""
    return redact(text) != text
