"""Fact kinds: cue words decide what a sentence does, in a fixed priority order."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory.extract.kinds import KINDS, classify_kind

CASES = [
    ("We decided to use Redis for caching.", "decision"),
    ("We chose SQLite over Postgres.", "decision"),
    ("We'll use pnpm from now on.", "decision"),
    ("We switched to Postgres because SQLite locked up.", "decision"),
    ("Going with @tanstack/react-virtual.", "decision"),
    ("Agreed, AG Grid's licence cost is a non-starter for us.", "decision"),
    ("Let's go with option B.", "decision"),
    ("I prefer tabs over spaces.", "preference"),
    ("I like short commit messages.", "preference"),
    ("Please use pnpm, not npm.", "preference"),
    ("Don't use default exports.", "preference"),
    ("I always squash before merging.", "preference"),
    ("My favourite editor is Helix.", "preference"),
    ("Responses must stay under 200 ms.", "constraint"),
    ("The job must not touch production.", "constraint"),
    ("The API cannot return more than 100 items.", "constraint"),
    ("We have to support Safari 15.", "constraint"),
    ("Secrets should never be logged.", "constraint"),
    ("The monthly budget is 500 dollars.", "constraint"),
    ("Keep p95 latency max 300 ms.", "constraint"),
    ("Named exports only.", "constraint"),
    ("The outage was caused by a bad migration.", "cause"),
    ("The build failed because of a missing env var.", "cause"),
    ("Disk filled up, so the database went read-only.", "cause"),
    ("The memory leak led to the restarts.", "cause"),
    ("Missing indexes lead to slow dashboard queries.", "cause"),
    ("Deployed v2.3 yesterday.", "event"),
    ("The deploy crashed last night.", "event"),
    ("I went to a LGBTQ support group yesterday.", "event"),
    ("We released 1.4 on 5 May 2023.", "event"),
    ("Should we use Kafka?", "question"),
    ("Which approach did we settle on? ", "question"),
    ("TODO: add retries to the client.", "plan"),
    ("Next we will add caching.", "plan"),
    ("We plan to drop Python 3.9 support.", "plan"),
    ("I'm going to the beach tomorrow.", "plan"),
    ("The shipments table freezes with 10k rows.", "observation"),
    ("I can't wait to see you!", "observation"),
    ("Redis is an in-memory store.", "observation"),
    ("", "observation"),
    # German / French / Spanish / Dutch / Turkish / Portuguese cues
    ("Wir haben entschieden, Postgres zu verwenden.", "decision"),
    ("Nous avons décidé de passer à Redis.", "decision"),
    ("Decidimos usar Kafka.", "decision"),
    ("We hebben besloten om Go te gebruiken.", "decision"),
    ("Postgres kullanmaya karar verdik.", "decision"),
    ("Escolhemos o Postgres.", "decision"),
    ("Ich bevorzuge Tabs.", "preference"),
    ("Je préfère le thé.", "preference"),
    ("Prefiero TypeScript.", "preference"),
    ("Ik heb liever koffie.", "preference"),
    ("Tercih ederim vim.", "preference"),
    ("Prefiro usar vim.", "preference"),
    ("Die Antwort muss unter 200 ms bleiben.", "constraint"),
    ("Le service doit rester en Europe.", "constraint"),
    ("El servicio no puede usar más de 2 GB.", "constraint"),
    ("De API moet binnen 100 ms antwoorden.", "constraint"),
    ("Bunu kullanmak zorundayız.", "constraint"),
    ("O serviço não pode cair.", "constraint"),
]


@pytest.mark.parametrize(("sentence", "kind"), CASES)
def test_classify_kind(sentence: str, kind: str) -> None:
    assert classify_kind(sentence) == kind


def test_every_result_is_a_known_kind() -> None:
    assert {classify_kind(sentence) for sentence, _ in CASES} <= set(KINDS)


@pytest.mark.parametrize(("sentence", "binding"), [
    ("The Terraform pin stays at ~> 1.8 until the provider upgrade lands.", True),
    ("We stay on 1.8 until the Q3 upgrade.", True),
    ("The auth provider stays at v4.", True),
    # a reading, not a pin: a number held for a while, a share, a latency
    ("On the Pixel, `timeSamples` stays at 0 for 2.05 s after that call.", False),
    ("CPU stays at 40% under the load test.", False),
    ("p95 latency stays at 1.5 s with the new pool.", False),
])
def test_a_version_held_is_a_constraint_and_a_reading_held_is_not(
    sentence: str, binding: bool
) -> None:
    from reasongraph_mcp.memory.extract.standing import said_rule
    assert said_rule(sentence) is binding
