"""Entity mentions in free text: the names that bridge facts written in different sessions.

A fact about ``src/app/main.py`` written on Monday and a question about ``main.py``'s import
written a month later meet only if both yield the same entity key, so the heart of this module
is canonicalisation: ``name`` is lowercased, whitespace-collapsed and stripped of trailing
punctuation, ``()`` and possessive ``'s``, and known aliases are folded (``Postgres`` →
``postgresql``, ``k8s`` → ``kubernetes``).

The extractor is rule-based and code-aware, in two passes:

1. Multi-word spans are claimed first: CLI commands (inside backticks or after "run"/"ran").
2. The rest is cut into whitespace tokens, and each token is classified by the first rule
   that fits: url, file, package/version, error, env, symbol, package (known tech name) and
   finally capitalised name. Adjacent capitalised words merge into one name ("New York").

Types: ``file``, ``url``, ``env``, ``error``, ``symbol``, ``package``, ``version``,
``command`` and ``name``. Stop lists keep sentence-initial function words, weekdays and
months, and generic acronyms (API, JSON) out: they would join unrelated facts.
"""

from __future__ import annotations

import re

from ...hooks.text import CALENDAR_WORDS, ENTITY_STOP
from .backends import current as current_backends
from .mentions import EntityMention

__all__ = ["EntityMention", "canonical", "extract_entities"]


# --- vocabularies ---------------------------------------------------------------------------

# Well-known tools, libraries and services, matched even when written in lowercase.
TECH: frozenset[str] = frozenset(
    """
    postgres postgresql mysql mariadb sqlite sqlite3 redis valkey memcached mongodb mongo
    cassandra scylladb elasticsearch opensearch kafka rabbitmq zookeeper clickhouse snowflake
    bigquery redshift duckdb dynamodb cockroachdb timescaledb pgvector pgbouncer supabase
    firebase neo4j qdrant pinecone weaviate milvus faiss chromadb etcd minio s3 ec2 ecs eks
    gke sqs sns kinesis cloudfront rds
    docker podman kubernetes k8s k3s minikube helm kubectl terraform opentofu pulumi ansible
    nginx haproxy caddy traefik envoy istio consul argocd
    prometheus grafana datadog sentry jaeger opentelemetry otel loki elk kibana logstash
    airflow dagster prefect dbt spark pyspark flink hadoop hive trino presto databricks
    pandas numpy polars scipy sklearn scikit-learn pytorch torch tensorflow keras jax
    huggingface transformers langchain llamaindex ollama vllm openai anthropic
    python rust golang java kotlin scala ruby php elixir erlang haskell typescript javascript
    nodejs node.js deno perl lua zig dotnet csharp
    django flask fastapi starlette pydantic sqlalchemy alembic celery uvicorn gunicorn httpx
    aiohttp boto3 pytest mypy pyright ruff pip pipx uv conda virtualenv tox nox
    npm npx yarn pnpm react reactjs vue vuejs angular svelte sveltekit nextjs next.js nuxt
    remix vite webpack esbuild rollup babel eslint prettier jest vitest playwright cypress
    puppeteer storybook tailwind tailwindcss redux zustand graphql grpc protobuf trpc
    prisma drizzle typeorm sequelize mongoose knex nestjs
    cargo rustc tokio serde axum actix clippy wasm webassembly
    git github gitlab bitbucket jenkins circleci travis
    aws gcp azure vercel netlify heroku cloudflare fly.io digitalocean
    linux ubuntu debian alpine centos fedora macos homebrew systemd bash zsh vim neovim vscode
    jwt oauth oauth2 openapi swagger websocket websockets
    stripe twilio sendgrid auth0 okta jira confluence figma slack
    rails laravel spring springboot gradle maven jvm graalvm
    sqlite-vec apsw pysbd spacy nltk
    """.split()
)

# Ordinary English words that are also tools: only capitalised spellings count as the tool.
_TECH_CAPITALISED_ONLY = frozenset(
    "go node express spring poetry black requests vault flux bun swift chroma rails kind "
    "make just pip".split()
)

# Spelling -> canonical key. Keys are lowercase.
ALIASES: dict[str, str] = {
    "postgres": "postgresql",
    "psql": "postgresql",
    "pg": "postgresql",
    "k8s": "kubernetes",
    "kube": "kubernetes",
    "node": "node.js",
    "nodejs": "node.js",
    "golang": "go",
    "js": "javascript",
    "ts": "typescript",
    "mongo": "mongodb",
    "elastic": "elasticsearch",
    "torch": "pytorch",
    "sklearn": "scikit-learn",
    "nextjs": "next.js",
    "reactjs": "react",
    "react.js": "react",
    "vuejs": "vue",
    "vue.js": "vue",
    "tailwindcss": "tailwind",
    "otel": "opentelemetry",
    "sqlite3": "sqlite",
    "py": "python",
    "python3": "python",
    "oauth2": "oauth",
    "springboot": "spring boot",
    "chromadb": "chroma",
    "homebrew": "brew",
    "websockets": "websocket",
}

# First words of command lines, for commands in backticks or after "run"/"ran".
_CLI = frozenset(
    """
    npm npx yarn pnpm bun node deno python python3 pip pip3 pipx uv poetry pytest tox nox
    cargo rustc rustup go make just cmake docker docker-compose podman kubectl helm terraform
    tofu pulumi ansible git gh brew apt apt-get dnf yum curl wget ssh scp rsync psql mysql
    redis-cli sqlite3 mvn gradle dotnet ruff mypy pyright black isort flake8 eslint prettier
    tsc jest vitest playwright alembic dbt airflow aws gcloud az rails bundle rake composer php
    java javac mix flutter dart pre-commit systemctl journalctl sudo bash sh zsh ls cat grep
    find tail jq sed awk chmod chown export source pkill kill ps top htop df du tar unzip
    openssl nginx certbot minikube kind k3s vercel netlify heroku flyctl wrangler supabase
    """.split()
)

_STOP_WORDS = ENTITY_STOP  # never a name on their own (hooks.text)

# Common words that start sentences ("Pin fastapi...", "Pod restarted."). Only consulted for
# sentence-initial words, where capitalisation says nothing about being a name.
_COMMON = frozenset(
    """
    pin call set see install remove delete create open close read write move rename start
    stop restart build deploy test tests merge push pull commit revert switch change replace
    bump upgrade downgrade enable disable configure ignore skip wrap split ensure verify
    confirm consider avoid prefer need needs want wants like love loved think know guess hope
    feel wish turns means sounds seems looks works worked happens happened went came said
    told asked pod pods table tables build builds server servers client clients app apps page
    pages file files function functions query queries index cache database user users service
    services error errors bug bugs issue issues feature features branch branches deploys
    release releases job jobs task tasks request requests response responses endpoint
    endpoints script scripts config container containers image images cluster clusters node
    nodes memory disk network latency performance logs log output input result results data
    model models schema migration migrations column columns row rows field fields type types
    value values list lists code docs doc readme project projects team everyone someone
    something nothing everything anything people person friend friends family mom dad kids
    kid life work job school home time day days week weeks month months year years morning
    night evening afternoon thing things stuff idea ideas plan plans goal goals reason
    question questions answer answers problem problems solution solutions way ways lots lot
    sticky scrolling sure glad happy sad proud excited amazing wonderful beautiful lovely
    interesting fun funny hard easy big small long short quick slow fast old young first
    last sounds awesome true anyone nobody whoever going getting having making doing trying
    remember remind thanks welcome tell ask let wait hold keep give take bring check look
    fixed added removed updated changed moved created deleted renamed tried found made used
    named gonna wanna gotta talk speak chat yes yeah no nope haha wow""".split()
)

_CALENDAR = CALENDAR_WORDS

_GENERIC_ACRONYMS = frozenset(
    """
    i ok api apis url urls uri json yaml xml html css http https sql ui ux cli cpu gpu ram
    pr prs ci cd todo fyi asap imo imho tl dr tldr lol omg id ids io os db dbs eta faq pdf
    tbd wip nb ps btw iirc afaik am pm utc gmt eod eta qa sdk ide orm rest crud mvp poc
    dns tcp udp ip ssl tls ssh vm vms kb mb gb tb ms ns usd eur ai ml llm llms
    """.split()
)

_FILE_EXTENSIONS = frozenset(
    """
    py pyi pyx ipynb ts tsx js jsx mjs cjs json jsonl yml yaml toml ini cfg conf env lock md
    mdx rst txt csv tsv sql sh bash zsh fish ps1 bat rs go java kt kts scala rb php c h cc cpp
    cxx hpp cs swift html htm css scss sass less vue svelte xml proto graphql gql tf tfvars hcl
    gradle sbt parquet db sqlite sqlite3 log pem crt cert key pub pdf png jpg jpeg gif svg webp
    ico wasm so dylib dll exe zip gz tgz tar whl patch diff lua jl ex exs erl hs ml dart zig
    nim vim mk cmake dockerfile service plist lockb properties
    """.split()
)

_KNOWN_FILES = frozenset(
    """
    dockerfile makefile procfile gemfile justfile jenkinsfile vagrantfile rakefile brewfile
    containerfile caddyfile pipfile license readme changelog codeowners
    """.split()
)

_ERRNO = frozenset(
    """
    ECONNREFUSED ECONNRESET ECONNABORTED ETIMEDOUT ENOENT EACCES EPERM EADDRINUSE
    EADDRNOTAVAIL EPIPE EEXIST ENOTDIR EISDIR EMFILE ENFILE ENOSPC ENOMEM EAGAIN EBUSY EINVAL
    EHOSTUNREACH ENETUNREACH ENOTFOUND EAI_AGAIN ENOTEMPTY EROFS ESRCH ECHILD EINTR
    """.split()
)

_TLDS = frozenset("com org net io dev ai app co sh gg me us uk de fr nl eu xyz cloud tech".split())

# --- patterns -------------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\s,;()\[\]{}\"`|*\u201c\u201d\u2018]+")
_URL = re.compile(r"^(?:https?|ftp|wss?|s3|gs|file)://\S+$", re.I)
_EMBEDDED_URL = re.compile(r"[a-z][a-z0-9+.\-]*://", re.I)
_PKG_VERSION = re.compile(
    r"^(?P<pkg>@?[A-Za-z0-9][\w.\-]*(?:/[\w.\-]+)?)"
    r"(?P<op>===|==|>=|<=|~=|!=|\^|~|@|>|<)v?(?P<ver>\d+(?:\.[\w*]+)*(?:[-+][\w.]+)?)$"
)
_SEMVER = re.compile(r"^v\d+(?:\.\d+){0,3}(?:[-+][\w.]+)?$|^\d+\.\d+\.\d+(?:[-+][\w.]+)?$")
_ERROR_SUFFIX = re.compile(
    r"^[A-Z][A-Za-z0-9]*?[a-z0-9A-Z](?:Error|Exception|Warning|Killed|BackOff|Panic|Timeout|Fault)$"
)
_RUST_ERROR = re.compile(r"^E0\d{3}$")
_SIGNAL = re.compile(r"^SIG(?:KILL|TERM|SEGV|INT|HUP|ABRT|BUS|PIPE|QUIT|USR1|USR2|ALRM|CHLD)$")
_ENV = re.compile(r"^\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\}?$|^\$\{?([A-Z][A-Z0-9_]*)\}?$")
_DOTTED = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?$")
_SNAKE = re.compile(r"^_*[a-z][a-z0-9]*(?:_+[a-z0-9]+)+_*(?:\(\))?$")
_CAMEL = re.compile(
    r"^(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+"
    r"|[A-Z]{2,}[a-z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)(?:\(\))?$"
)
_CAPITALISED = re.compile(r"^(?:[A-Z][a-z\u00df-\u00ff]+(?:-[A-Z][a-z]+)?|[A-Z]{2,6}\d?)$")
_HYPHEN_PKG = re.compile(r"^([a-z][a-z0-9]*)(?:-[a-z0-9]+)+$")
_FILE_LIKE = re.compile(r"^[\w.@+\-]*[\w@+\-]\.([A-Za-z0-9]{1,11})$")
_DOTFILE = re.compile(
    r"^\.(?:[a-z][\w\-]*(?:rc|ignore|config|env)|env(?:\.[\w\-]+)?|github|vscode)$"
)
_BACKTICK = re.compile(r"`([^`\n]{1,200})`")
_RUN_CMD = re.compile(
    r"\b(?i:run|ran|runs|running|rerun|re-ran|re-run|execute|executed|executing|type|typed)"
    r"\s+(?P<cmd>(?:"
    + "|".join(sorted((re.escape(c) for c in _CLI), key=len, reverse=True))
    + r")(?![\w\-])(?:[ \t]+(?!(?:and|or|then|to|but|which|that|so|if|when|it|again|after"
    r"|before|with|in|on|for|from|locally|now|until|because)\b)"
    r"(?:-{1,2}[\w\-=]+|[\w.:/@=\-]+)){0,4})"
)
_NAME_PREFIXES = frozenset("new san los las st saint north south east west upper lower".split())
_CMD_STOP = frozenset("and or then to but which that so if when it again after before with".split())
_TRAILING = ".,;:!?'\u2019\")]}>"
_LEADING = "'\u2018\"([{<#"


def _collapse(text: str) -> str:
    return " ".join(text.split())


def canonical(text: str) -> str:
    """Return the canonical entity key for a spelling (the ``name`` of its mention).

    Lowercases, collapses whitespace, strips trailing punctuation, a trailing ``()`` and a
    possessive ``'s``, then folds known aliases (``"Postgres"`` -> ``"postgresql"``).
    """
    key = _collapse(text).lower().rstrip(".,;:!?\"")
    for suffix in ("'s", "\u2019s"):
        if key.endswith(suffix):
            key = key[: -len(suffix)]
    key = key.removesuffix("()").rstrip(_TRAILING)
    return ALIASES.get(key, key)


# --- classification -------------------------------------------------------------------------


def _is_initial(text: str, start: int) -> bool:
    """True when the token at ``start`` begins a sentence, line or list item."""
    before = text[max(0, start - 40) : start].rstrip(" \t\"'\u201c\u2018*_>#-")
    return not before or before[-1] in ".!?:;\n\u2026" or before.endswith(("\n-", "\n*"))


def _looks_common(word: str) -> bool:
    """Heuristic for a capitalised word that is just an English word starting a sentence."""
    lowered = word.lower()
    if lowered in _STOP_WORDS or lowered in _COMMON:
        return True
    return len(word) >= 6 and lowered.endswith(
        ("ing", "ed", "ly", "tion", "tions", "ment", "ments", "ness", "able", "ful", "ise", "ize")
    )


def _file_type(token: str) -> bool:
    lowered = token.lower()
    if lowered in _KNOWN_FILES or _DOTFILE.match(lowered):
        return True
    if "/" in token:
        if token.startswith(("~/", "./", "../")) or (
            token.startswith("/") and len(token) > 1 and token[1].isalpha()
        ):
            return any(c.isalpha() for c in token)
        last = token.rstrip("/").rsplit("/", 1)[-1]
        if token.endswith("/") and re.match(r"^[\w.\-]+(?:/[\w.\-]+)*/$", token):
            return any(c.isalpha() for c in token)
        return _file_type(last) if last else False
    m = _FILE_LIKE.match(token)
    if not m:
        return False
    ext = m.group(1).lower()
    if ext not in _FILE_EXTENSIONS:
        return False
    stem = token[: -len(ext) - 1]
    # "Node.js" / "Chart.js": a capitalised stem with .js is a library, not a file.
    if ext == "js" and stem[:1].isupper() and "/" not in stem:
        return False
    return bool(stem.strip(".")) and any(c.isalpha() for c in stem)


def _classify(token: str, initial: bool) -> tuple[str, str] | None:
    """Return (type, canonical) for one token, or None when it is not an entity."""
    lowered = token.lower()
    if _URL.match(token):
        return "url", canonical(token).rstrip("/")
    if _EMBEDDED_URL.search(token):
        return None
    if lowered in ALIASES or lowered in TECH:
        return "package", canonical(token)
    if token.startswith("@") and "/" in token and re.match(r"^@[\w.\-]+/[\w.\-]+$", token):
        return "package", lowered
    if _file_type(token):
        return "file", canonical(token)
    if token in _ERRNO or _RUST_ERROR.match(token) or _SIGNAL.match(token):
        return "error", lowered
    if _ERROR_SUFFIX.match(token):
        return "error", lowered
    env = _ENV.match(token)
    if env:
        return "env", (env.group(1) or env.group(2)).lower()
    if _SEMVER.match(token):
        return "version", lowered
    if _DOTTED.match(token):
        parts = token.removesuffix("()").split(".")
        if all(len(p) <= 1 for p in parts):
            return None  # e.g., i.e., U.S.
        if parts[-1].lower() in _TLDS and len(parts) >= 2:
            return "url", lowered
        return "symbol", canonical(token)
    if _SNAKE.match(token):
        return "symbol", canonical(token)
    if _CAMEL.match(token):
        return "symbol", canonical(token)
    hyphen = _HYPHEN_PKG.match(token)
    if hyphen and hyphen.group(1) in TECH:
        return "package", lowered
    if _CAPITALISED.match(token):
        if lowered in _CALENDAR or lowered in _GENERIC_ACRONYMS:
            return None
        if lowered in _TECH_CAPITALISED_ONLY:
            # "Go ahead", "Make the header sticky": at a sentence start these are verbs.
            return None if initial else ("package", canonical(token))
        if initial and _looks_common(token):
            return None
        if not initial and lowered in _STOP_WORDS and token != token.upper():
            return None
        return "name", canonical(token)
    return None


def _clean(raw: str) -> str:
    token = raw.lstrip(_LEADING)
    while token and token[-1] in _TRAILING:
        if token.endswith("()"):
            break
        token = token[:-1]
    for suffix in ("'s", "\u2019s"):
        if token.endswith(suffix) and len(token) > 2:
            token = token[: -len(suffix)]
    return token


def _command_key(command: str) -> str:
    """Canonical command: its first two words ("npm run build" -> "npm run")."""
    return " ".join(command.lower().split()[:2])


def _commands(text: str) -> list[tuple[int, int, str]]:
    """Command spans (start, end, command text) from backticks and "run X" phrases."""
    found: list[tuple[int, int, str]] = []
    for m in _BACKTICK.finditer(text):
        inner = m.group(1).strip().lstrip("$ ").strip()
        first = inner.split()[0] if inner.split() else ""
        if " " in inner and (first in _CLI or first.startswith("./")):
            found.append((m.start(), m.end(), _collapse(inner)))
    for m in _RUN_CMD.finditer(text):
        words = m.group("cmd").split()
        kept: list[str] = []
        for word in words:
            if word.lower() in _CMD_STOP:
                break
            kept.append(word)
        command = " ".join(kept).rstrip(_TRAILING)
        if any(s <= m.start("cmd") < e for s, e, _ in found):
            continue
        found.append((m.start("cmd"), m.start("cmd") + len(command), command))
    return found


def _is_name_word(token: str, initial: bool) -> bool:
    """True for a capitalised word that can be (part of) a person, place or product name."""
    if not _CAPITALISED.match(token):
        return False
    lowered = token.lower()
    if lowered in _CALENDAR or lowered in _GENERIC_ACRONYMS or lowered in TECH:
        return False
    if lowered in ALIASES or lowered in _TECH_CAPITALISED_ONLY or lowered in _KNOWN_FILES:
        return False
    if initial and _looks_common(token):
        return False
    return not (lowered in _STOP_WORDS and token != token.upper())


def _tokens(text: str, claimed: list[tuple[int, int]]) -> list[tuple[int, str, bool, bool]]:
    """(offset, cleaned token, sentence-initial, followed-by-punctuation) outside claims."""
    out: list[tuple[int, str, bool, bool]] = []
    for m in _TOKEN.finditer(text):
        if any(s <= m.start() < e for s, e in claimed):
            continue
        raw = m.group(0)
        token = _clean(raw)
        if not token or not any(c.isalnum() for c in token):
            continue
        offset = m.start() + raw.find(token)
        out.append((offset, token, _is_initial(text, offset), raw[-1] in _TRAILING))
    return out


def extract_entities(text: str) -> list[EntityMention]:
    """Return the entities mentioned in ``text``, deduplicated by canonical name.

    Mentions come in order of first appearance; ``display`` keeps the first spelling.
    Pure and fast (no I/O, regexes compiled at import). When a ``Memory`` has activated an
    entity model (``memory.extract.backends``), its new names follow the rules' mentions.
    """
    rules = _rule_entities(text)
    active = current_backends()
    if active is None or active.entities is None:
        return rules
    return active.entities.entities(text, rules)


def _rule_entities(text: str) -> list[EntityMention]:
    """The code-aware rules alone (see the module docstring)."""
    spans: list[tuple[int, EntityMention]] = []
    claimed: list[tuple[int, int]] = []
    for start, end, command in _commands(text):
        claimed.append((start, end))
        spans.append((start, EntityMention(_command_key(command), command, "command")))
        tool = command.split()[0]
        if tool.lower() in TECH or tool.lower() in ALIASES:
            spans.append((start, EntityMention(canonical(tool), tool, "package")))
    claimed.extend(_package_versions(text, spans))

    tokens = _tokens(text, claimed)
    i = 0
    while i < len(tokens):
        offset, token, initial, punct = tokens[i]
        prefix = initial and token.lower() in _NAME_PREFIXES
        if _is_name_word(token, initial) or prefix:
            # Greedily merge "New York", "Support Group", "Bank of America".
            j = i
            while j + 1 < len(tokens) and not tokens[j][3] and j - i < 4:
                nxt_off, nxt, _, _ = tokens[j + 1]
                gap = text[tokens[j][0] + len(tokens[j][1]) : nxt_off]
                if gap != " ":
                    break
                if _is_name_word(nxt, False):
                    j += 1
                    continue
                if (
                    nxt.lower() in ("of", "de", "van", "von", "del", "da")
                    and j + 2 < len(tokens)
                    and not tokens[j + 1][3]
                    and _is_name_word(tokens[j + 2][1], False)
                    and text[nxt_off + len(nxt) : tokens[j + 2][0]] == " "
                ):
                    j += 2
                    continue
                break
            if j > i or not prefix:
                display = text[offset : tokens[j][0] + len(tokens[j][1])]
                spans.append((offset, EntityMention(canonical(display), display, "name")))
            i = j + 1
            continue
        i += 1
        after = text[offset + len(token) :]
        status = re.match(r"^[ \t]+([1-5]\d\d)\b", after)
        if token.upper() == "HTTP" and status:
            code = status.group(1)
            spans.append((offset, EntityMention(f"http {code}", f"{token} {code}", "error")))
            i += 1
            continue
        classified = _classify(token, initial)
        if classified is None:
            continue
        type_, key = classified
        spans.append((offset, EntityMention(key, token, type_)))
        if type_ == "package" and not punct:
            # "Python 3.11", "Node 20", "postgres 16" -> a version entity too.
            ver = re.match(r"^[ \t]+(v?\d+(?:\.\d+){0,3})(?=$|[\s,;:!?)]|\.(?:\s|$))", after)
            if ver:
                number = ver.group(1).lstrip("v")
                spans.append(
                    (offset, EntityMention(f"{key}@{number}", f"{token} {ver.group(1)}", "version"))
                )
                i += 1

    spans.sort(key=lambda item: item[0])
    seen: set[str] = set()
    result: list[EntityMention] = []
    for _, mention in spans:
        if mention.name and mention.name not in seen:
            seen.add(mention.name)
            result.append(mention)
    return result


def _package_versions(text: str, spans: list[tuple[int, EntityMention]]) -> list[tuple[int, int]]:
    """Add package and version mentions for pins (``fastapi==0.110``, ``react@18``).

    Returns the spans it consumed so that the token pass skips them.
    """
    consumed: list[tuple[int, int]] = []
    for m in _TOKEN.finditer(text):
        token = _clean(m.group(0))
        pin = _PKG_VERSION.match(token)
        if not pin or _EMBEDDED_URL.search(token):
            continue
        pkg, op, ver = pin.group("pkg"), pin.group("op"), pin.group("ver")
        if op in ("<", ">") or (op == "@" and "." in pkg and "/" not in pkg):
            continue  # "a<3" is a comparison; "user@10.0.0.1" is not a pin
        key = canonical(pkg)
        version_key = f"{key}@{ver}" if op in ("==", "===", "@") else f"{key}{op}{ver}"
        offset = m.start() + m.group(0).find(token)
        spans.append((offset, EntityMention(key, pkg, "package")))
        spans.append((offset, EntityMention(version_key, token, "version")))
        consumed.append((m.start(), m.end()))
    return consumed
