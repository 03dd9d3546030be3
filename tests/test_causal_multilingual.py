"""Cue extraction in Italian, Chinese and Japanese, and the linker's locality factor."""

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
