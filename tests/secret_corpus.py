"""The secret corpus: text a coding agent sees, each with a secret that must never be stored,
and ordinary text that must be stored unchanged.

``SECRETS`` is a list of ``(format, text, secret)``: after ``redact(text)`` the substring
``secret`` must be gone. ``SAFE`` is a list of texts that ``redact`` must leave unchanged
(hashes, ids, versions, flags that are not passwords, words such as "token bucket").

The values are realistic but fake: the right prefix, alphabet and length, drawn from a seeded
random generator (so the corpus is the same on every run). Used by ``tests/test_redact.py``,
``tests/test_secret_storage.py`` (through the engine and the hooks into the db, -wal, -shm and
export) and ``python -m evals.robustness``. Standard library only; imported by path, since
``tests`` is not a package.
"""

from __future__ import annotations

import base64
import random
import string

_RNG = random.Random(17)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
UPPER = string.ascii_uppercase + string.digits


def fake(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _pem(label: str) -> tuple[str, str]:
    body = "\n".join(fake(B64, 64) for _ in range(6))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----", body[:64]


def _jwt() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = b'{"sub":"user-4821","role":"admin","exp":1767225600}'
    body = base64.urlsafe_b64encode(claims).decode().rstrip("=")
    return f"{head}.{body}.{fake(URLSAFE, 43)}"


_RSA, _RSA_BODY = _pem("RSA PRIVATE KEY")
_OPENSSH, _OPENSSH_BODY = _pem("OPENSSH PRIVATE KEY")
_PGP, _PGP_BODY = _pem("PGP PRIVATE KEY BLOCK")
_GCP_BODY = fake(B64, 64)
_AZURE_ACCOUNT_KEY = fake(B64, 86) + "=="
_SAS_SIG = fake(ALNUM, 30) + "%2B" + fake(ALNUM, 10) + "%3D"
_JWT = _jwt()
_S = {name: value for name, value in [
    ("aws_id", "AKIA" + fake(UPPER, 16)),
    ("aws_secret", fake(B64, 40)),
    ("gcp_key", "AIza" + fake(URLSAFE, 35)),
    ("ya29", "ya29.a0AfB_" + fake(URLSAFE, 60)),
    ("refresh", "1//0g" + fake(URLSAFE, 60)),
    ("gocspx", "GOCSPX-" + fake(URLSAFE, 28)),
    ("azure_cs", fake(ALNUM, 3) + "8Q~" + fake(ALNUM + "_~.-", 34)),
    ("do", "dop_v1_" + fake(HEX, 64)),
    ("heroku", "HRKU-AA" + fake(URLSAFE, 58)),
    ("heroku_uuid", "%s-%s-%s-%s-%s" % (fake(HEX, 8), fake(HEX, 4), fake(HEX, 4), fake(HEX, 4),
                                        fake(HEX, 12))),
    ("ghp", "ghp_" + fake(ALNUM, 36)),
    ("github_pat", "github_pat_11A" + fake(ALNUM, 19) + "_" + fake(ALNUM, 59)),
    ("glpat", "glpat-" + fake(URLSAFE, 20)),
    ("npm", "npm_" + fake(ALNUM, 36)),
    ("pypi", "pypi-AgEIcHlwaS5vcmc" + fake(URLSAFE, 140)),
    ("dckr", "dckr_pat_" + fake(URLSAFE, 27)),
    ("shopify", "shpat_" + fake(HEX, 32)),
    ("atlassian", "ATATT3xFfGF0" + fake(URLSAFE, 170) + "=" + fake(UPPER, 8)),
    ("linear", "lin_api_" + fake(ALNUM, 40)),
    ("xoxb", "xoxb-" + fake("0123456789", 12) + "-" + fake("0123456789", 13) + "-"
     + fake(ALNUM, 24)),
    ("slack_hook", f"T{fake(UPPER, 8)}/B{fake(UPPER, 10)}/{fake(ALNUM, 24)}"),
    ("discord_hook", f"{fake('0123456789', 19)}/{fake(URLSAFE, 68)}"),
    ("teams_hook", f"webhookb2/{fake(HEX, 8)}-{fake(HEX, 4)}@{fake(HEX, 8)}/IncomingWebhook/"
                   f"{fake(HEX, 32)}/{fake(HEX, 8)}"),
    ("telegram", f"{fake('0123456789', 10)}:AA{fake(URLSAFE, 33)}"),
    ("twilio_sk", "SK" + fake(HEX, 32)),
    ("twilio_token", fake(HEX, 32)),
    ("sendgrid", f"SG.{fake(URLSAFE, 22)}.{fake(URLSAFE, 43)}"),
    ("mailgun", "key-" + fake(HEX, 32)),
    ("stripe", "sk_live_51" + fake(ALNUM, 96)),
    ("whsec", "whsec_" + fake(ALNUM, 32)),
    ("openai", "sk-proj-" + fake(URLSAFE, 120)),
    ("anthropic", "sk-ant-api03-" + fake(URLSAFE, 93) + "AA"),
    ("groq", "gsk_" + fake(ALNUM, 52)),
    ("replicate", "r8_" + fake(ALNUM, 37)),
    ("hf", "hf_" + fake(ALNUM, 34)),
    ("datadog", fake(HEX, 32)),
    ("sentry", fake(HEX, 32)),
    ("vault", "hvs." + fake(URLSAFE, 90)),
    ("terraform", fake(ALNUM, 14) + ".atlasv1." + fake(URLSAFE, 67)),
    ("cloudflare", fake(URLSAFE, 40)),
    ("cf_global", fake(HEX, 37)),
    ("age", "AGE-SECRET-KEY-1" + fake("023456789ACDEFGHJKLMNPQRSTUVWXYZ", 58)),
    ("apr1", "$apr1$" + fake(ALNUM, 8) + "$" + fake(ALNUM + "./", 22)),
    ("bcrypt", "$2y$10$" + fake(ALNUM + "./", 53)),
    ("django", fake(ALNUM + "!@#%^&*(-_=+)", 50)),
    ("encryption", base64.b64encode(_RNG.randbytes(32)).decode()),
    ("alibaba", "LTAI5t" + fake(ALNUM, 18)),
    ("fly", "fo1_" + fake(URLSAFE, 43)),
    ("supabase", "sbp_" + fake(HEX, 40)),
    ("planetscale", "pscale_tkn_" + fake(URLSAFE, 43)),
    ("doppler", "dp.st.prd." + fake(ALNUM, 40)),
    ("pulumi", "pul-" + fake(HEX, 40)),
    ("databricks", "dapi" + fake(HEX, 32)),
    ("grafana", "glsa_" + fake(ALNUM, 32) + "_" + fake(HEX, 8)),
    ("newrelic", "NRAK-" + fake(UPPER, 27)),
    ("gitlab_runner", "GR1348941" + fake(URLSAFE, 20)),
    ("bitbucket", "ATBB" + fake(ALNUM, 32) + fake(UPPER, 8)),
    ("rubygems", "rubygems_" + fake(HEX, 48)),
    ("nuget", "oy2" + fake(string.ascii_lowercase + string.digits, 43)),
    ("postman", f"PMAK-{fake(HEX, 24)}-{fake(HEX, 34)}"),
    ("sentry_token", "sntrys_" + fake(ALNUM, 120)),
    ("square", "sq0atp-" + fake(URLSAFE, 22)),
    ("braintree", f"access_token$production${fake('abcdefghijklmnopqrstuvwxyz0123456789', 16)}"
                  f"${fake(HEX, 32)}"),
    ("openrouter", "sk-or-v1-" + fake(HEX, 64)),
    ("perplexity", "pplx-" + fake(ALNUM, 48)),
    ("xai", "xai-" + fake(ALNUM, 80)),
    ("langsmith", f"lsv2_pt_{fake(HEX, 32)}_{fake(HEX, 10)}"),
    ("tavily", "tvly-dev-" + fake(ALNUM, 32)),
    ("argon2", "$argon2id$v=19$m=65536,t=3,p=4$" + fake(B64, 22) + "$" + fake(B64, 43)),
    ("yescrypt", "$y$j9T$" + fake(ALNUM + "./", 22) + "$" + fake(ALNUM + "./", 43)),
    ("ssha", "{SSHA}" + base64.b64encode(_RNG.randbytes(24)).decode()),
]}

SECRETS: list[tuple[str, str, str]] = [
    # -- cloud providers
    ("aws access key id", f"aws_access_key_id = {_S['aws_id']}", _S["aws_id"]),
    ("aws secret access key", f"aws_secret_access_key = {_S['aws_secret']}", _S["aws_secret"]),
    ("aws sts json", f'{{"AccessKeyId": "ASIA{fake(UPPER, 16)}", "SecretAccessKey": '
                     f'"{_S["aws_secret"][::-1]}"}}', _S["aws_secret"][::-1]),
    ("google api key", "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=Oslo"
                       f"&key={_S['gcp_key']}'", _S["gcp_key"]),
    ("gcp service account json",
     '{"type": "service_account", "project_id": "ledger-prod", "private_key": '
     f'"-----BEGIN PRIVATE KEY-----\\n{_GCP_BODY}\\n-----END PRIVATE KEY-----\\n", '
     '"client_email": "ci@ledger-prod.iam.gserviceaccount.com"}', _GCP_BODY),
    ("google oauth access token", f"the token came back as {_S['ya29']} from the consent flow",
     _S["ya29"]),
    ("google oauth refresh token", f"refresh with {_S['refresh']} when it expires",
     _S["refresh"]),
    ("google oauth client secret", f"client secret {_S['gocspx']} in the console",
     _S["gocspx"]),
    ("azure storage connection string",
     "DefaultEndpointsProtocol=https;AccountName=ledgerstore;"
     f"AccountKey={_AZURE_ACCOUNT_KEY};EndpointSuffix=core.windows.net", _AZURE_ACCOUNT_KEY),
    ("azure sas url", "https://ledgerstore.blob.core.windows.net/exports/q3.csv?sv=2022-11-02"
                      f"&ss=b&srt=o&sp=r&se=2026-03-01T00:00:00Z&sig={_SAS_SIG}", _SAS_SIG),
    ("azure client secret", f"the app registration's secret is {_S['azure_cs']} for now",
     _S["azure_cs"]),
    ("digitalocean token", f"doctl auth init -t {_S['do']}", _S["do"]),
    ("heroku api key", f"heroku login with {_S['heroku']}", _S["heroku"]),
    ("heroku api key env", f"HEROKU_API_KEY={_S['heroku_uuid']}", _S["heroku_uuid"]),
    ("cloudflare api token", f"CLOUDFLARE_API_TOKEN={_S['cloudflare']}", _S["cloudflare"]),
    ("cloudflare global key", "curl -H 'X-Auth-Email: ops@ledger.dev' "
                              f"-H 'X-Auth-Key: {_S['cf_global']}' https://api.cloudflare.com",
     _S["cf_global"]),
    ("hashicorp vault token", f"export VAULT_ADDR=https://vault:8200; vault login {_S['vault']}",
     _S["vault"]),
    ("terraform cloud token", f'credentials "app.terraform.io" {{ token = "{_S["terraform"]}" }}',
     _S["terraform"]),
    ("datadog api key", f"DD_API_KEY={_S['datadog']} DD_SITE=datadoghq.eu ./agent run",
     _S["datadog"]),
    ("sentry dsn", f"SENTRY_DSN=https://{_S['sentry']}@o450123.ingest.sentry.io/5501234",
     _S["sentry"]),
    ("age secret key", f"# created: 2026-01-14\n{_S['age']}", _S["age"]),
    ("alibaba cloud access key", f"aliyun configure set --access-key-id {_S['alibaba']}",
     _S["alibaba"]),
    ("fly.io token", f"flyctl deploy -t {_S['fly']}", _S["fly"]),
    ("supabase token", f"supabase login --token {_S['supabase']}", _S["supabase"]),
    ("planetscale token", f"service token {_S['planetscale']} for the branch", _S["planetscale"]),
    ("doppler token", f"doppler run --token {_S['doppler']} -- npm start", _S["doppler"]),
    ("pulumi token", f"pulumi login with {_S['pulumi']}", _S["pulumi"]),
    ("databricks token", f"databricks token is {_S['databricks']}", _S["databricks"]),
    ("grafana service account token", f"grafana token {_S['grafana']}", _S["grafana"]),
    ("new relic key", f"newrelic key {_S['newrelic']}", _S["newrelic"]),
    # -- version control, CI, package registries
    ("gitlab runner registration token", f"gitlab-runner register --registration-token "
                                         f"{_S['gitlab_runner']}", _S["gitlab_runner"]),
    ("bitbucket app password", f"bitbucket app password {_S['bitbucket']}", _S["bitbucket"]),
    ("rubygems key", f"gem push with {_S['rubygems']}", _S["rubygems"]),
    ("nuget key", f"dotnet nuget push pkg.nupkg -k {_S['nuget']}", _S["nuget"]),
    ("postman key", f"postman key {_S['postman']}", _S["postman"]),
    ("sentry auth token", f"sentry-cli with {_S['sentry_token']}", _S["sentry_token"]),
    ("github classic token", f"git remote set-url origin https://{_S['ghp']}@github.com/x/y",
     _S["ghp"]),
    ("github fine-grained token", f"GH_TOKEN: {_S['github_pat']}", _S["github_pat"]),
    ("gitlab personal token", f"curl --header 'PRIVATE-TOKEN: {_S['glpat']}' "
                              "https://gitlab.com/api/v4/projects", _S["glpat"]),
    ("npm token in .npmrc", f"//registry.npmjs.org/:_authToken={_S['npm']}", _S["npm"]),
    ("pypi token", f"twine upload -u __token__ -p {_S['pypi']} dist/*", _S["pypi"]),
    ("docker hub token", f"echo {_S['dckr']} | docker login -u ledgerci --password-stdin",
     _S["dckr"]),
    ("shopify token", f"X-Shopify-Access-Token header set to {_S['shopify']}", _S["shopify"]),
    ("atlassian api token", f"jira token {_S['atlassian']}", _S["atlassian"]),
    ("linear api key", f"the Linear key {_S['linear']} lives in 1Password", _S["linear"]),
    # -- chat webhooks and tokens
    ("slack bot token", f"SLACK_BOT={_S['xoxb']}", _S["xoxb"]),
    ("slack webhook", "curl -X POST -d '{\"text\":\"deploy done\"}' "
                      f"https://hooks.slack.com/services/{_S['slack_hook']}", _S["slack_hook"]),
    ("discord webhook", f"https://discord.com/api/webhooks/{_S['discord_hook']}",
     _S["discord_hook"]),
    ("teams webhook", f"https://ledger.webhook.office.com/{_S['teams_hook']}", _S["teams_hook"]),
    ("telegram bot token", f"https://api.telegram.org/bot{_S['telegram']}/sendMessage",
     _S["telegram"]),
    # -- mail and payments
    ("twilio api key", f"twilio api key {_S['twilio_sk']}", _S["twilio_sk"]),
    ("twilio auth token", f"TWILIO_AUTH_TOKEN={_S['twilio_token']}", _S["twilio_token"]),
    ("sendgrid key", f"sg = SendGridAPIClient('{_S['sendgrid']}')", _S["sendgrid"]),
    ("mailgun key", f"auth=('api', '{_S['mailgun']}')", _S["mailgun"]),
    ("square token", f"square token {_S['square']}", _S["square"]),
    ("braintree token", f"braintree {_S['braintree']}", _S["braintree"]),
    ("stripe secret key", f"stripe.api_key = \"{_S['stripe']}\"", _S["stripe"]),
    ("stripe webhook secret", f"endpoint secret is {_S['whsec']}", _S["whsec"]),
    # -- LLM APIs
    ("openai key", f"OPENAI_API_KEY={_S['openai']}", _S["openai"]),
    ("anthropic key", f"client = Anthropic(api_key=\"{_S['anthropic']}\")", _S["anthropic"]),
    ("groq key", f"groq key {_S['groq']}", _S["groq"]),
    ("replicate token", f"REPLICATE_API_TOKEN={_S['replicate']}", _S["replicate"]),
    ("huggingface token", f"huggingface-cli login --token {_S['hf']}", _S["hf"]),
    ("openrouter key", f"openrouter key {_S['openrouter']}", _S["openrouter"]),
    ("perplexity key", f"pplx key {_S['perplexity']}", _S["perplexity"]),
    ("xai key", f"grok via {_S['xai']}", _S["xai"]),
    ("langsmith key", f"tracing with {_S['langsmith']}", _S["langsmith"]),
    ("tavily key", f"search with {_S['tavily']}", _S["tavily"]),
    # -- JWTs and PEM blocks
    ("jwt", f"Cookie: session={_JWT}", _JWT),
    ("rsa private key", f"here is the key:\n{_RSA}\nuse it for the deploy", _RSA_BODY),
    ("openssh private key", f"cat ~/.ssh/id_ed25519\n{_OPENSSH}", _OPENSSH_BODY),
    ("pgp private key block", _PGP, _PGP_BODY),
    # -- connection strings and headers
    ("postgres url", "DATABASE_URL=postgresql://ledger:Xq7!pLm2#rT9@db.prod.internal:5432/ledger",
     "Xq7!pLm2#rT9"),
    ("mongodb srv url", "mongodb+srv://svc_ledger:Ww3eRt5yU7iO@cluster0.ab1cd.mongodb.net/ledger",
     "Ww3eRt5yU7iO"),
    ("ado.net connection string",
     "Server=tcp:ledger.database.windows.net,1433;Database=ledger;User ID=sa;"
     "Password=Hx9$kLq2!vR7;Encrypt=True;", "Hx9$kLq2!vR7"),
    ("libpq conninfo",
     "psql \"host=db.internal port=5432 user=app password=Tn4vWq8zLp dbname=app\"",
     "Tn4vWq8zLp"),
    ("authorization bearer", f"curl -H 'Authorization: Bearer {_S['ghp'][::-1]}' https://api",
     _S["ghp"][::-1]),
    ("authorization basic", "Authorization: Basic bGVkZ2VyOmh1bnRlcjJodW50ZXIy",
     "bGVkZ2VyOmh1bnRlcjJodW50ZXIy"),
    ("x-api-key header", "curl -H \"X-API-Key: 7fQ2mZ9xLp4RtW8v\" https://api.ledger.dev",
     "7fQ2mZ9xLp4RtW8v"),
    # -- .env and shell assignments
    (".env password", "DB_PASSWORD=Sup3r-S3cret_Pass", "Sup3r-S3cret_Pass"),
    ("export password without separator", "export DBPASSWORD='K7#mPq2@vLx9'", "K7#mPq2@vLx9"),
    ("PGPASSWORD", "PGPASSWORD=Rz8kWm3nQp psql -h db -U app ledger", "Rz8kWm3nQp"),
    ("MYSQL_PWD", "MYSQL_PWD=Vb5nM8qLx2 mysqldump ledger > dump.sql", "Vb5nM8qLx2"),
    ("django secret key", f"SECRET_KEY = '{_S['django']}'", _S["django"]),
    ("yaml api token", "api_token: 9c2f7e1a5b8d3f6e0a4c", "9c2f7e1a5b8d3f6e0a4c"),
    (".env encryption key", f"ENCRYPTION_KEY={_S['encryption']}", _S["encryption"]),
    ("kubectl literal", "kubectl create secret generic db --from-literal=password=Lm4x!Qz8Rw2",
     "Lm4x!Qz8Rw2"),
    # -- password flags of command lines
    ("--password flag", "influx setup --username admin --password Fl8xQz2mWv --org ledger",
     "Fl8xQz2mWv"),
    ("--password= flag", "mysqldump --user=root --password='Rt5!qW9zXc' ledger", "Rt5!qW9zXc"),
    ("mysql -pX", "mysql -h db.internal -u root -pYh7Kq2Lm9x ledger -e 'show tables'",
     "Yh7Kq2Lm9x"),
    ("mysql -p'quoted with spaces'", "mysql -uroot -p'my dog Rex 1987' ledger", "dog Rex 1987"),
    ("curl -u 'user:quoted with spaces'", "curl -u 'ci:tall blue Cactus 42' https://ci.ledger.dev",
     "blue Cactus 42"),
    ("sshpass -p \"quoted with spaces\"", 'sshpass -p "seven green Apples 9" ssh deploy@bastion',
     "green Apples 9"),
    ("curl -u user:pass", "curl -u deploy:Gq8vN3zLxw https://ci.ledger.dev/job/build",
     "Gq8vN3zLxw"),
    ("sshpass -p", "sshpass -p 'Wz4!nQ7xLm' ssh -p 2222 deploy@10.0.0.5", "Wz4!nQ7xLm"),
    ("docker login -p", "docker login -u ledgerci -p Dk9wQz3mLx registry.gitlab.com",
     "Dk9wQz3mLx"),
    ("htpasswd -b", "htpasswd -bc /etc/nginx/.htpasswd admin Hp6tRw2zQm", "Hp6tRw2zQm"),
    ("htpasswd apr1 line", f"admin:{_S['apr1']}", _S["apr1"]),
    ("htpasswd bcrypt line", f"ops:{_S['bcrypt']}", _S["bcrypt"]),
    ("argon2 hash", f"stored hash {_S['argon2']}", _S["argon2"]),
    ("yescrypt shadow line", f"deploy:{_S['yescrypt']}:19737:0:99999:7:::", _S["yescrypt"]),
    ("ldap ssha", f"userPassword: {_S['ssha']}", _S["ssha"]),
    ("netrc one line", "machine api.heroku.com login ops@ledger.dev password Nt5rQw8zLm",
     "Nt5rQw8zLm"),
    ("netrc lines", "machine github.com\n  login ledger-bot\n  password Np3xWq7mZr\n",
     "Np3xWq7mZr"),
    ("redis-cli -a", "redis-cli -h cache.internal -a Rd7xQw2mLz ping", "Rd7xQw2mLz"),
    ("ldapsearch -w", "ldapsearch -x -D cn=admin,dc=ledger -w Ld8xQw3mZp -b dc=ledger",
     "Ld8xQw3mZp"),
    ("smbclient -U user%pass", "smbclient //files/share -U ops%Sm5wQz2xLn", "Sm5wQz2xLn"),
    ("httpie -a user:pass", "http -a ops:Ht7xQw4mZp GET https://api.ledger.dev/me", "Ht7xQw4mZp"),
    ("openssl -passin", "openssl rsa -in key.pem -passin pass:Os4wQz9xLm -out plain.pem",
     "Os4wQz9xLm"),
]

SAFE: list[str] = [
    "commit 3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a fixed the race in the worker pool",
    "git log --oneline: 3f2a9c1 Fix pagination cursor, 8e7d6f5 Add retries",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/a.tar.gz",
    "image ledger@sha256:9b2f1c7e4a8d3f6e0b5c2a9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f",
    "request id 123e4567-e89b-12d3-a456-426614174000 timed out after 30 s",
    'encoded = base64.b64encode(b"hello world")  # b"aGVsbG8gd29ybGQ="',
    "upgraded to v2.3.1, fastapi==0.110.0 and Python 3.11.7",
    "The token bucket refills 10 tokens per second; max_tokens=4096, token_count: 3",
    "The password policy requires 12 characters and a reset every 90 days.",
    "mkdir -p build/dist && cp -r static build/",
    "the -p flag of mkdir -p creates the parents",
    "ssh -p 2222 deploy@10.0.0.5 'systemctl restart ledger'",
    "scp -P 2222 dump.sql deploy@10.0.0.5:/tmp/",
    "docker run -p 8080:80 -u 1000:1000 ledger:latest",
    "mysql -u root -p ledger   (it prompts for the password)",
    "curl -u admin https://ci.ledger.dev/api/json  (curl asks for the password)",
    "psql -h db.internal -U app --password ledger",
    "docker login -u ledgerci --password-stdin registry.gitlab.com",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "sshpass is not installed on the runner, so the job used ssh keys",
    "password=${DB_PASSWORD} and export GITHUB_TOKEN=$(gh auth token)",
    "token = os.environ['TOKEN']",
    'primary_key = id; cache_key = "user:123"; SORT_KEY=created_at',
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop",
    "git clone https://deploy@github.com/ledger/api.git and postgres://localhost:5432/ledger",
    "We use sk-learn style names, a skip-list and task-queue-worker-pool-size-limit",
    "The Authorization header is missing; Bearer tokens expire after an hour.",
    "Users can login with password reset links now.",
    "kubectl get secret db-creds -o yaml | grep -c data",
    "git push -u origin main",
    "pytest -k 'token and not slow' -p no:cacheprovider",
    "echo $1$2 $6 in the shell script",
    "API_BASE_URL=https://api.ledger.dev/v1 LOG_LEVEL=debug DEBUG=true AWS_REGION=eu-west-1",
    "const tokenBucket = new RateLimiter({ capacity: 100, refillPerSecond: 10 })",
    "npm install --save-dev eslint && pip install -U pip",
    "The secret to good caching is invalidation; the key: consistency.",
    "refresh tokens are rotated on every login; the API key is in Vault",
    "token = _clean(raw)\nfirst_token = tokens[0]\n_TOKEN = re.compile(r\"[^\\s,;]+\")",
    'tokenizer_file = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"',
    "connect(user=user, password=password, api_key=None)",
]
