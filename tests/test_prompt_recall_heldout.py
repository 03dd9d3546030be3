"""Held-out cases for the prompt block (Rails, Flutter, Terraform), written beside
``test_prompt_recall.py`` and run only once the rules were written."""

from __future__ import annotations

import pytest
from captured import exchange
from reasongraph_mcp.memory import Memory


def block(mem: Memory, prompt: str, project: str) -> str:
    mem.drain()
    return mem.context_for(
        prompt, project=project, session="probe", budget=2000, now="2026-03-10T09:00:00Z",
        wait_for_model=True,
    ).text


PROJECT = "/home/dev/pantry"


@pytest.mark.xfail(reason="held out, failed when first run: a task with no relevant exchange "
                   "gets no block at all, so its standing rules are not shown either",
                   strict=False)
def test_a_rails_preference_said_while_fixing_something_else(real_memory: Memory) -> None:
    exchange(real_memory, "h1", "2026-02-02T10:00:00Z",
             "The orders index is slow again. Going forward, every query that walks an "
             "association has to use includes, I'm tired of N+1s.",
             "Orders#index loaded line_items per order; I added includes(:line_items, "
             ":customer) and the Bullet gem in development so an N+1 raises.", PROJECT)
    for i in range(3):
        exchange(real_memory, f"h{i + 2}", f"2026-02-0{i + 3}T10:00:00Z",
                 f"Change the copy on onboarding step {i}.",
                 f"Updated config/locales/en.yml for onboarding step {i}.", PROJECT)
    text = block(real_memory, "Add an admin page listing suppliers with their products.",
                 project=PROJECT)
    assert "includes(:line_items" in text or "Bullet" in text


@pytest.mark.xfail(reason="held out, failed when first run: a task with no relevant exchange "
                   "gets no block at all, so its standing rules are not shown either",
                   strict=False)
def test_a_flutter_style_correction_binds_new_widgets(real_memory: Memory) -> None:
    exchange(real_memory, "f1", "2026-02-02T10:00:00Z",
             "The cart badge overflows on small phones. Fix it, and please don't hardcode "
             "colours in widgets, take them from Theme.of(context).colorScheme.",
             "The badge text had a fixed width; it is now wrapped in FittedBox, and its "
             "colours come from colorScheme.error and colorScheme.onError.", PROJECT)
    text = block(real_memory, "Build a ProfileHeader widget with the avatar and a "
                              "membership chip.", project=PROJECT)
    assert "colorScheme" in text


def test_a_question_asked_twice_does_not_come_back_as_the_answer(real_memory: Memory) -> None:
    exchange(real_memory, "t1", "2026-02-02T10:00:00Z",
             "Which state backend do we use for the staging Terraform workspace?",
             "S3 bucket pantry-tfstate-staging with the DynamoDB table tf-locks for locking; "
             "the backend block is in envs/staging/backend.tf.", PROJECT)
    text = block(real_memory, "Remind me which state backend the staging Terraform "
                              "workspace uses.", project=PROJECT)
    assert "pantry-tfstate-staging" in text
    assert "Which state backend" not in text


def test_a_general_language_question_gets_nothing(real_memory: Memory) -> None:
    exchange(real_memory, "g1", "2026-02-02T10:00:00Z",
             "Ruby's memoization with ||= breaks when the value is false.",
             "SupplierScore#value memoized with ||=, so false was recomputed each call; "
             "it now uses defined?(@value).", PROJECT)
    text = block(real_memory, "Unrelated to our app: in Ruby, what is the difference "
                              "between a proc and a lambda?", project=PROJECT)
    assert text == ""
    text = block(real_memory, "Not about our supplier scoring, just Ruby in general: when does "
                              "memoization with ||= recompute?", project=PROJECT)
    assert text == ""
    text = block(real_memory, "Why does SupplierScore recompute its memoized value?",
                 project=PROJECT)
    assert "defined?(@value)" in text
