"""Word tables of the coding-agent update rules (``memory.updates.coding``).

Data only, like ``lexicon``: the categories of tools that replace one another, the identifier
shapes that fill one slot, and the cue words of plans, coexistence, removal, bug status, lifted
constraints and ownership. A tool may sit in several categories (Elasticsearch stores logs and
serves search); two tools of one category in the same slot are a swap, two of different
categories (Postgres and Redis, MkDocs and Netlify) are two facts.
"""

from __future__ import annotations

import re

# category: aliases (lowercase; "_" joins the words of a multi-word name).
_CATEGORY_WORDS = {
    "unit_test": "jest vitest mocha jasmine ava karma pytest unittest nose nose2 junit testng "
    "spock kotest rspec minitest phpunit xunit nunit mstest gotest ginkgo",
    "e2e_test": "cypress playwright selenium puppeteer webdriverio testcafe detox appium",
    "js_pkg": "npm pnpm yarn bun",
    "py_pkg": "pip pip-tools pipenv poetry uv pdm conda hatch rye",
    "build_jvm": "maven gradle sbt ant bazel",
    "bundler": "webpack vite rollup parcel esbuild turbopack rspack snowpack browserify",
    "js_runtime": "node node.js nodejs deno bun",
    "py_web": "flask fastapi django starlette sanic tornado bottle pyramid aiohttp litestar "
    "quart falcon",
    "js_web": "express koa fastify hapi nestjs hono",
    "ssr": "next.js nextjs nuxt remix gatsby sveltekit astro",
    "frontend": "react vue angular svelte solid preact ember backbone",
    "state": "redux mobx zustand recoil jotai vuex pinia xstate",
    "go_web": "gin echo fiber chi gorilla",
    "rust_web": "actix actix-web axum rocket warp tide poem",
    "jvm_web": "spring spring_boot micronaut quarkus ktor dropwizard",
    "ruby_web": "rails sinatra hanami",
    "orm": "sqlalchemy peewee tortoise prisma typeorm sequelize drizzle hibernate jooq exposed "
    "diesel sqlx gorm ent activerecord",
    "db": "postgres postgresql mysql mariadb sqlite mongodb mongo cockroachdb cockroach "
    "dynamodb cassandra clickhouse snowflake bigquery redshift oracle mssql sql_server "
    "spanner firestore supabase planetscale neon timescaledb duckdb couchdb",
    "cache": "redis memcached valkey keydb hazelcast dragonfly",
    "queue": "rabbitmq sqs kafka redpanda nats activemq pulsar kinesis pubsub beanstalkd",
    "jobs": "celery sidekiq bullmq rq resque dramatiq huey temporal",
    "search": "elasticsearch opensearch solr algolia meilisearch typesense",
    "logs": "elasticsearch loki splunk papertrail logstash graylog cloudwatch_logs datadog_logs "
    "logtail",
    "metrics": "prometheus graphite influxdb victoriametrics datadog statsd",
    "errors": "sentry rollbar bugsnag honeybadger airbrake raygun",
    "ci": "jenkins github_actions gitlab_ci circleci travis travis_ci buildkite teamcity drone "
    "bamboo azure_pipelines bitbucket_pipelines",
    "cd": "argo argocd argo_cd flux fluxcd spinnaker",
    "iac": "terraform opentofu pulumi cloudformation cdk ansible chef puppet",
    "paas": "heroku fly.io render railway vercel netlify cloudflare_pages github_pages "
    "app_engine elastic_beanstalk",
    "compute": "ec2 ecs eks fargate lambda gke cloud_run aks kubernetes nomad cloudfront",
    "cloud": "aws gcp azure digitalocean hetzner linode ovh",
    "registry": "dockerhub docker_hub ecr gcr ghcr quay artifactory nexus",
    "container": "docker podman containerd",
    "lint_py": "flake8 pylint ruff pyflakes pycodestyle",
    "fmt_py": "black yapf autopep8 ruff_format",
    "lint_js": "eslint tslint biome oxlint standard",
    "fmt_js": "prettier biome dprint",
    "typecheck_py": "mypy pyright pyre pytype",
    "docs": "sphinx mkdocs mkdocs_material docusaurus hugo jekyll vuepress gitbook mdbook",
    "http_py": "requests httpx aiohttp urllib3",
    "http_js": "axios fetch got superagent ky",
    "logging_go": "zap logrus zerolog slog",
    "auth": "auth0 okta cognito keycloak clerk firebase_auth",
    "email": "sendgrid mailgun postmark ses mailchimp",
    "payments": "stripe braintree adyen paypal",
    "monorepo": "nx turborepo lerna rush",
    "merge": "squash squash-merge squash-merges rebase rebase-merge merge-commit",
    "log_level": "debug info warning warn error critical trace",
    "ids": "uuid uuids ulid ulids snowflake_id bigint serial",
    "api_style": "rest graphql grpc trpc soap",
    "vcs_host": "github gitlab bitbucket gitea",
    "secrets": "vault sops doppler 1password secrets_manager",
    "proxy": "nginx traefik envoy haproxy caddy",
    "ml": "torch pytorch tensorflow jax keras",
}
_ALIASES = {"k8s": "kubernetes", "postgresql": "postgres", "mongo": "mongodb", "nodejs": "node",
            "node.js": "node", "pytorch": "torch", "argocd": "argo", "argo_cd": "argo"}
_TOOL_CATEGORIES: dict[str, frozenset[str]] = {}
for _cat, _words in _CATEGORY_WORDS.items():
    for _w in _words.split():
        _TOOL_CATEGORIES[_w] = _TOOL_CATEGORIES.get(_w, frozenset()) | {_cat}
_MULTI = frozenset(w for w in _TOOL_CATEGORIES if "_" in w)
# Ambiguous common words that are only tools when written as names.
_CASED_ONLY = frozenset(
    "fetch echo chi fiber standard rest got neon spring solid ember rocket warp tide poem "
    "chef puppet flux render railway debug info warning warn error critical trace ses vault "
    "lambda serial bigint ent exposed nx rush hatch rye bun node".split()
)

# Shapes of identifiers that fill one slot: a path, a domain or URL, a chat channel, an env var,
# a cloud region.
_SHAPES = (
    ("region", re.compile(r"^(?:us|eu|ap|sa|ca|me|af|europe|asia|us-gov)-[a-z]+-?\d$")),
    ("url", re.compile(r"^(?:https?://)?[a-z0-9-]+(?:\.[a-z0-9-]+)+\.[a-z]{2,}(?:/\S*)?$|"
                       r"^(?:https?://)?[a-z0-9-]+\.(?:dev|io|com|net|org|app|cloud|ai|co)$")),
    ("path", re.compile(r"^[\w.-]*/[\w./-]*$|^[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|java|kt|rb|"
                        r"yaml|yml|toml|json|cfg|ini|sql|sh|md|proto)$")),
    ("channel", re.compile(r"^#[a-z][\w-]*$")),
    ("env", re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")),
    ("handle", re.compile(r"^@[\w-]+(?:/[\w-]+)?$")),
)

# The new statement is a plan, a proposal, a condition, a trial or a question.
_HEDGE = re.compile(
    r"^\s*(?:if|when|once|unless|maybe|perhaps|should|could|would)\b"
    r"|\b(?:if|unless|whether|will|won't|would|could|might|should|shall|going to|"
    r"plan(?:s|ned|ning)? to|want(?:s|ed)? to|would like|'d like|'ll|'d|thinking about|"
    r"considering|consider|evaluating|evaluate|proposal|propose[sd]?|suggest(?:s|ed)?|"
    r"someday|eventually|next (?:week|month|quarter|sprint|year|release)|tomorrow|later this|"
    r"let's|lets|not decided|undecided|tried|trying|experiment(?:ing|ed)?|on a branch|"
    r"prototype|prototyping|todo|wish|hope|maybe|perhaps|"
    r"probably|thoughts)\b"
)
# Coexistence: the new value joins the old one.
_ALSO = re.compile(
    r"\b(?:also|as well|too|in addition|additionally|either|besides|alongside|both|"
    r"as a fallback)\b"
)
# Refinements that keep the old statement and narrow it.
_ONLY = re.compile(r"\b(?:only|except|but|unless|provided)\b")
# Words that end what they name in their clause ("we dropped Jest", "RabbitMQ is gone").
_REMOVAL = re.compile(
    r"\b(?:dropped|drop|removed|remove|gone|ripped out|ripped|deleted|retired|replaced|"
    r"replacing|instead|no longer|stopped|abandoned|killed|deprecated|sunset|scrapped|ditched|"
    r"archived|decommissioned|moved off|migrated off|off of|reversed|reverted|rolled back|"
    r"backed out|undid|undone|cancell?ed|is off|are off|not anymore|anymore)\b"
)
_CLAUSE_SPLIT = re.compile(r"[,;:()]|\.(?:\s|$)|\s[-\u2013\u2014]\s|\bbut\b|\band\b")

# Bug status.
_BUG_OPEN = re.compile(
    r"\b(?:open|still open|broken|breaks|fail|fails|failing|unresolved|in progress|known issue|"
    r"flaky|flakes|keeps failing|bug|leak|leaks|crash|crashes|crashing|hangs|hanging|"
    r"regression|race|times out|timing out|errors? out|not working|doesn't work|"
    r"does not work|red)\b"
)
_BUG_FIXED = re.compile(
    r"\b(?:fixed|fix(?:ed)? in|resolved|closed|stable|passes|pass|passing|green|gone|"
    r"works|working|no longer (?:fails|failing|flaky|crashes|leaks)|patched|solved|"
    r"sorted out|merged the fix)\b"
)
_BUG_REOPENED = re.compile(
    r"\b(?:is back|are back|came back|reopened|re-opened|regressed|broken again|"
    r"failing again|fails again|didn't hold|did not hold|not fixed|still (?:fails|failing|"
    r"broken|happens))\b"
)
# Constraints and their lifting.
_CONSTRAINT = re.compile(
    r"\b(?:can't|cannot|can not|don't|do not|never|not allowed|must not|mustn't|may not|"
    r"forbidden|prohibited|blocked|banned|disallowed|need|needs|required|requires|must|"
    r"freeze|frozen|restricted|no)\b"
)
_LIFTED = re.compile(
    r"\b(?:lifted|is fine|are fine|fine now|ok now|okay now|allowed now|now allowed|"
    r"are allowed|is allowed|cleared to|unblocked|no longer (?:blocked|required|restricts?|"
    r"forbidden|needed|needs?)|not required|no longer|removed|dropped|is enough|are enough|"
    r"suffices|can now|can \w+(?: \w+){0,5} (?:now|again))\b"
)
# Owners and handovers.
_OWNER = re.compile(
    r"\b(?:owns?|owned|owner|maintains?|maintained|maintainer|leads?|led|drives?|driven|"
    r"drove|responsible|on-call|on call|codeowners|go(?:es)? to|point of contact|"
    r"in charge)\b"
)
_HANDOVER = re.compile(
    r"\b(?:took over|taken over|takes over|handed (?:\S+ ){0,4}?(?:over|off)|handover|"
    r"hand-off|from now on|switched to|now|is off|transferred)\b"
)
_TEAM_HEADS = frozenset("team squad group guild crew".split())
# Renames and moves of a named thing: "renamed X to Y", "X is now called Y".
_RENAME = re.compile(
    r"\b(?:renamed|rename|now called|is called|moved|relocated|migrated|changed)\b"
)
# Words that name one side of a scope: an environment, a platform, a direction. Two facts on
# opposite sides are about two things ("LOG_LEVEL in staging" vs "in production").
_SCOPE_GROUPS = (
    ("prod production", "staging stage", "dev development local", "qa", "preview canary "
     "sandbox beta"),
    ("read reads reading", "write writes writing"),
    ("ios", "android", "web", "desktop"),
    ("linux", "windows", "macos mac osx"),
    ("frontend client", "backend server"),
    ("upload uploads", "download downloads"),
    ("inbound ingress", "outbound egress"),
    ("primary master leader", "replica replicas follower standby"),
    ("unit", "integration", "e2e end-to-end"),
    ("api", "worker", "scheduler", "web", "cron", "admin"),
)
# Generic subject nouns: "the analytics DB" and "analytics data" name one thing.
_GENERIC = frozenset(
    "servic service app data db databas database system code codebas project setup stack "
    "thing we our us it they".split()
)
_ALIAS_STEMS = {
    "infra": "infrastructur", "db": "databas", "repo": "repositori", "deps": "depend",
    "config": "configur", "env": "environ", "docs": "doc", "k8s": "kubernet", "prs": "pr",
    "auth": "authent", "prod": "product",
}
