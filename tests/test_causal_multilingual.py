"""Cue extraction in Italian, Chinese and Japanese, the story-telling cues of every language
("Seitdem ...", "X; Ursache war Y"), and the linker's locality factor."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory.causal import links
from reasongraph_mcp.memory.causal.cues import extract_causes


@pytest.mark.parametrize(
    ("sentence", "cause", "effect", "backref"),
    [
        ("L'aggiornamento della libreria ha causato il crash del worker.",
         "L'aggiornamento della libreria", "il crash del worker", None),
        ("Il build è fallito a causa di una dipendenza mancante.",
         "una dipendenza mancante", "Il build è fallito", None),
        ("因为迁移锁住了订单表，结账接口超时了。", "迁移锁住了订单表", "结账接口超时了", None),
        ("内存泄漏导致服务崩溃。", "内存泄漏", "服务崩溃", None),
        ("构建失败是因为缓存过期。", "缓存过期", "构建失败", None),
        ("マイグレーションがテーブルをロックしたため、デプロイが失敗した。",
         "マイグレーションがテーブルをロックした", "デプロイが失敗した", None),
    ],
)
def test_cues_in_more_languages(sentence: str, cause: str, effect: str, backref: str | None):
    spans = extract_causes(sentence)
    assert spans and (spans[0].cause, spans[0].effect, spans[0].backref) == (
        cause, effect, backref
    )


def test_cjk_anaphor_points_back():
    assert extract_causes("这导致了部署失败。")[0].backref == "cause"
    assert extract_causes("そのため、ロールバックした。")[0].backref == "cause"


def test_not_causal():
    assert extract_causes("La causa del problema è ignota.") == []
    assert extract_causes("前端换了新的图标库。") == []


def test_cjk_content_words_share_bigrams():
    a, b = links.content_words("内存泄漏导致服务崩溃"), links.content_words("服务崩溃了")
    assert links.overlap(a, b) > 0.5


def test_locality_decays_to_a_floor():
    assert links.locality(0) == links.locality(links.NEAR_SESSIONS) == 1.0
    assert links.locality(links.NEAR_SESSIONS + 2) < 1.0
    assert links.locality(None) == links.locality(10_000) == links.FAR_FLOOR


@pytest.mark.parametrize(
    ("sentence", "effect"),
    [
        ("Since then, requests often wait seconds for a free connection.",
         "requests often wait seconds for a free connection"),
        ("Seitdem warten Anfragen oft mehrere Sekunden auf eine freie Verbindung.",
         "warten Anfragen oft mehrere Sekunden auf eine freie Verbindung"),
        ("Desde entonces, la consulta hace un escaneo completo de la tabla.",
         "la consulta hace un escaneo completo de la tabla"),
        ("Du coup, le service écrit 40 Go de logs par jour.",
         "le service écrit 40 Go de logs par jour"),
        ("Sindsdien groeit de tabel events elke week.", "groeit de tabel events elke week"),
        ("Com isso, a listagem dispara mais de 500 consultas.",
         "a listagem dispara mais de 500 consultas"),
        # a sentence adverb inside its clause: the whole clause follows from before
        ("Preisänderungen kommen dadurch erst am nächsten Tag im Shop an.",
         "Preisänderungen kommen erst am nächsten Tag im Shop an"),
        ("The nightly import therefore runs an hour late.", "The nightly import runs an hour late"),
    ],
)
def test_a_sentence_that_follows_from_the_one_before_points_back(sentence: str, effect: str):
    span = extract_causes(sentence)[0]
    assert (span.backref, span.effect) == ("cause", effect)


@pytest.mark.parametrize(
    ("sentence", "cause", "effect"),
    [
        ("The node blocked all publishers; the cause was the memory alarm.",
         "the memory alarm", "The node blocked all publishers"),
        ("Der Knoten blockierte alle Publisher; Ursache war der Memory-Alarm.",
         "der Memory-Alarm", "Der Knoten blockierte alle Publisher"),
        ("Notre IP a été bannie ; la raison invoquée est ce pic de tentatives.",
         "ce pic de tentatives", "Notre IP a été bannie"),
        # the clause before, in the same sentence, is what the adverb points back to
        ("Die Klicks erscheinen doppelt; die Zahlen sind deshalb zu hoch.",
         "Die Klicks erscheinen doppelt", "die Zahlen sind zu hoch"),
        ("Como nadie lo ejecutó en el servidor nuevo, el certificado caducó.",
         "nadie lo ejecutó en el servidor nuevo", "el certificado caducó"),
    ],
)
def test_a_cause_named_after_its_effect(sentence: str, cause: str, effect: str):
    assert (cause, effect, None) in [(s.cause, s.effect, s.backref)
                                     for s in extract_causes(sentence)]


def test_a_cause_named_as_unknown_names_none():
    assert extract_causes("The root cause is still unknown.") == []
    assert extract_causes("Die Ursache ist noch unklar.") == []


def test_an_english_cue_that_is_a_word_of_the_sentences_language_is_not_read():
    """"as" is the Portuguese article here, not "because"."""
    spans = extract_causes("Como a mensagem volta para o início da fila, as demais mensagens "
                           "ficam paradas.")
    assert [s.cue for s in spans] == ["Como"]
    assert extract_causes("The deploy failed as the disk was full.")[0].cue == "as"
