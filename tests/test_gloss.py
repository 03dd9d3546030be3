"""The lexical path across languages (memory/read/gloss.py and its glossary.tsv): a prompt in
another language is searched with the English words of software work it contains, so that
the English notes an agent left can answer it; an English prompt is left as it is."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.read import gloss


def words(text: str) -> set[str]:
    return set(gloss.english_gloss(text).split())


def test_an_english_prompt_gets_no_gloss() -> None:
    assert gloss.english_gloss("Why did the customers get the shipping email twice?") == ""
    assert gloss.is_english("What did we decide about the invoice retries?")


def test_the_words_of_software_work_are_glossed_in_each_language() -> None:
    assert {"customer", "invoice"} <= words("Der Kunde hat die Rechnung nicht bekommen.")
    assert {"customer", "invoice"} <= words("El cliente no recibió la factura.")
    assert {"customer", "invoice"} <= words("Le client n'a pas reçu la facture.")
    assert {"customer", "invoice"} <= words("De klant heeft de factuur niet ontvangen.")
    assert {"customer", "invoice"} <= words("O cliente não recebeu a fatura.")
    assert {"customer", "invoice"} <= words("Il cliente non ha ricevuto la fattura.")
    assert {"customer", "invoice"} <= words("顧客が請求書を受け取っていません。")
    assert {"customer", "invoice"} <= words("客户没有收到发票。")
    assert {"customer", "invoice"} <= words("Klient nie dostał faktury.")
    assert {"customer", "invoice"} <= words("Zákazník nedostal fakturu.")
    assert {"customer", "invoice"} <= words("Kunden fick inte fakturan.")
    assert {"customer", "invoice"} <= words("Pelanggan tidak menerima faktur.")
    assert {"customer", "invoice"} <= words("고객이 청구서를 받지 못했어요.")  # particles follow
    assert {"customer", "invoice"} <= words("Клиент не получил счёт.")


def test_inflections_suffixes_and_compounds_are_read_to_their_parts() -> None:
    assert "customer" in words("Müşterilerimize fatura gitmedi.")  # Turkish suffixes
    assert {"shipping", "confirmation"} <= words("Die Versandbestätigung kam doppelt.")
    assert "database" in words("Die Datenbankverbindungen laufen voll.")


def test_a_turkish_stem_needs_turkish_suffixes() -> None:
    assert "string" in gloss.english_gloss("bu dizeyi nerede tutuyoruz")
    assert "string" not in gloss.english_gloss("um jogador abriu um ticket dizendo que esperou")


@pytest.mark.parametrize("asked", [
    "Heute schon wieder: ein paar Kunden haben die Versandbestätigung doppelt bekommen. "
    "Woran liegt das?",
    # a language whose words no note holds: the glossed words are the evidence
    "Znowu kilku klientów dostało potwierdzenie wysyłki dwa razy. Dlaczego?",
    "Пара клиентов опять получила подтверждение отправки дважды. Почему?",
    "또 몇몇 고객이 배송 확인 메일을 두 번 받았어. 왜 그래?",
])
def test_a_prompt_in_another_language_reaches_the_english_note_that_answers_it(
    real_memory: Memory, asked: str,
) -> None:
    mem = real_memory
    mem.store.conn.execute(
        "INSERT INTO inbox(session, turn, project, harness, prompt, response, created_at) "
        "VALUES ('s1', 't1', '/home/dev/shop', 'claude-code', ?, ?, '2026-02-02T09:00:00Z')",
        ("Some customers got the shipping confirmation email twice.",
         "The notify-shipments consumer acked after sending, and Postmark took longer than "
         "AckWait, so JetStream redelivered the message and the customer got a second "
         "shipping confirmation. I raised AckWait to 60s and made the send idempotent."),
    )
    mem.store.conn.execute(
        "INSERT INTO inbox(session, turn, project, harness, prompt, response, created_at) "
        "VALUES ('s2', 't2', '/home/dev/shop', 'claude-code', ?, ?, '2026-02-03T09:00:00Z')",
        ("Add a dark mode toggle to the settings page.",
         "I added a ThemeToggle component that flips CSS variables."),
    )
    mem.drain()
    text = mem.context_for(
        asked, project="/home/dev/shop", session="probe",
        now="2026-03-01T09:00:00Z", wait_for_model=True,
    ).text
    assert "AckWait" in text and "ThemeToggle" not in text


def _exchange(mem: Memory, session: str, when: str, prompt: str, response: str) -> None:
    mem.store.conn.execute(
        "INSERT INTO inbox(session, turn, project, harness, prompt, response, created_at) "
        "VALUES (?, ?, '/home/dev/marsh', 'claude-code', ?, ?, ?)",
        (session, session, prompt, response, when),
    )


def test_a_prompt_in_italian_is_answered_on_the_words_it_shares_with_the_notes(
    real_memory: Memory,
) -> None:
    """The packaged embedder reads English only, so an Italian prompt is far from every
    English note by cosine; the names and glossed terms it shares with one are the evidence
    (the block was empty when only cosine could admit a note)."""
    mem = real_memory
    _exchange(mem, "s1", "2026-01-20T09:00:00Z", "Ship the b2 run to the server.",
              "The b2 run is our best so far: validation mIoU 0.713 on the by-site split. "
              "Deployed `checkpoints/segformer_b2_e38.ckpt` to production as version 2 of "
              "marshseg on triton-prod-01.")
    _exchange(mem, "s2", "2026-01-22T09:00:00Z", "Set up pre-commit.",
              "Added ruff and mypy hooks to .pre-commit-config.yaml; CI runs the same hooks.")
    mem.drain()
    text = mem.context_for(
        "Il cliente ci chiede quale checkpoint girava in produzione quando ci hanno "
        "segnalato gli errori sulle mappe. Quale era, e con che punteggio di validazione?",
        project="/home/dev/marsh", session="probe",
        now="2026-03-01T09:00:00Z", wait_for_model=True,
    ).text
    assert "segformer_b2_e38" in text and "0.713" in text
    assert "pre-commit" not in text


def test_notes_written_in_the_prompts_language_are_searched_without_a_gloss(
    real_memory: Memory,
) -> None:
    from reasongraph_mcp.memory.prompt import context
    from reasongraph_mcp.memory.prompt.config import CONTEXT

    prompt = "Warum haben die Kunden die Versandbestätigung doppelt bekommen?"
    real_memory.remember("Der Consumer bestätigt die Nachricht erst nach dem Versand, und "
                         "Postmark war langsamer als AckWait, also kam die Mail doppelt.",
                         project="/home/dev/shop", role="assistant")
    assert context._searched(real_memory.store, prompt, "/home/dev/shop", CONTEXT) == prompt
    real_memory.remember("The consumer acked after sending and Postmark took longer than "
                         "AckWait, so the customer got the shipping email twice.",
                         project="/home/dev/other", role="assistant")
    glossed = context._searched(real_memory.store, prompt, "/home/dev/other", CONTEXT)
    assert glossed.startswith(prompt) and "customer" in glossed


def test_a_question_for_causes_is_read_as_one_in_other_languages() -> None:
    from reasongraph_mcp.memory.prompt.exchanges import CAUSAL_ASK

    for asked in ("Woran liegt das eigentlich genau?", "Pourquoi l'argent n'est pas arrivé ?",
                  "Qual é o motivo do atraso?", "Bunun nedeni ne?", "どうして二重に届くの？",
                  "为何会重复发送？", "Dlaczego płatność przeszła dwa razy?", "Proč padá build?",
                  "Varför är sidan långsam?", "Kenapa worker gagal?", "Почему упал сервис?",
                  "왜 결제가 두 번 됐어?"):
        assert CAUSAL_ASK.search(asked), asked
    assert not CAUSAL_ASK.search("Kunden haben die Bestätigung doppelt bekommen.")


def test_a_symptom_asked_about_without_why_is_a_question_for_causes() -> None:
    from reasongraph_mcp.memory.prompt.exchanges import CAUSAL_ASK

    for asked in ("Players say the hold is empty after loading. What's going on?",
                  "Receipts arrive half an hour late. Where is the delay coming from?",
                  "The edge rejects calls at two UTC. What's actually behind it?",
                  "Seit gestern sind die Exporte leer, was ist da los?",
                  "Les paiements échouent depuis lundi, qu'est-ce qui se passe ?",
                  "Los pagos fallan desde el lunes, ¿qué está pasando?",
                  "导出一直是空的，怎么回事？"):
        assert CAUSAL_ASK.search(asked), asked
    for task in ("Behind the load balancer we run two pods; add a third.",
                 "What is the default timeout of the client?",
                 "Add a retry to the webhook sender."):
        assert not CAUSAL_ASK.search(task), task


def test_a_day_of_a_month_is_read_in_other_languages() -> None:
    from datetime import datetime, timezone

    from reasongraph_mcp.memory.prompt.context import asked_time

    now = datetime(2026, 4, 14, tzinfo=timezone.utc)
    for asked in ("um jogador diz que no dia 10 de março esperou demais pra recuperar uma vida",
                  "el 10 de marzo, ¿cuánto tardaba en regenerarse una vida?",
                  "le 10 mars, combien de temps fallait-il attendre ?",
                  "Wie lange dauerte es am 10. März?",
                  "10 Mart tarihinde ne kadar sürüyordu?",
                  "3月10日の時点では何秒でしたか", "3월 10일에는 몇 초였어?",
                  "Ile sekund czekał 10 marca?", "Сколько секунд было 10 марта?"):
        assert asked_time(asked, now) == datetime(2026, 3, 10, 12, tzinfo=timezone.utc), asked
    assert asked_time("Im Mai 2026 haben wir umgestellt", now) is None  # a year, not a day
    assert asked_time("we ran 3 mart builds on the runner", now) is None  # English


def test_early_mid_or_late_in_a_month_is_read_in_other_languages() -> None:
    from datetime import datetime, timezone

    from reasongraph_mcp.memory.prompt.context import asked_time

    now = datetime(2026, 3, 20, tzinfo=timezone.utc)
    for asked, day in (("Quale modello girava all'inizio di febbraio?", 5),
                       ("Was lief Anfang Februar?", 5), ("Et mi-février ?", 15),
                       ("¿Y a finales de febrero?", 25), ("Wat draaide begin februari?", 5),
                       ("Şubat başında ne çalışıyordu?", 5), ("2月下旬は？", 25),
                       ("Co działało w połowie lutego?", 15),
                       ("Vad körde i början av februari?", 5),
                       ("Co běželo na konci února?", 25),
                       ("Apa yang jalan pertengahan Februari?", 15),
                       ("Что работало в середине февраля?", 15), ("2월 중순에는 뭐였지?", 15)):
        when = asked_time(asked, now)
        assert when is not None and (when.month, when.day) == (2, day), asked
    assert asked_time("The fine-tuning job failed again.", now) is None
    # Upper-case Turkish lowers "I" to "i", not to the dotless "ı" the month is spelled with.
    when = asked_time("ARALIK SONUNDA ne oldu?", now)
    assert when is not None and (when.year, when.month, when.day) == (2025, 12, 25)


def test_weekdays_and_months_are_not_glossed_so_they_never_read_as_a_date() -> None:
    from reasongraph_mcp.memory.read.gloss import english_gloss

    glossed = english_gloss("El martes de marzo el cliente vio un error en la factura.")
    assert "customer" in glossed and "error" in glossed
    assert not {"tuesday", "march"} & set(glossed.split())
