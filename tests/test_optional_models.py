"""Optional model slots (issue 8): GLiNER entities, SaT splitting, cross-encoder reranking.

The real loading code runs on models the tests build (a tiny untrained GLiNER saved with
``save_pretrained``; a tiny ONNX cross-encoder over the packaged MiniLM tokenizer), loaded
back through the same path users take (``Memory(entity_model=FOLDER)``). No trained model
ships in any package, so these prove loading and plumbing, never quality (that is
``python -m evals.models``). Every missing or corrupt folder must leave one status line and
the rules / pysbd / the unreranked order in charge.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.extract.backends import Backends, using
from reasongraph_mcp.memory.extract.entities import EntityMention, extract_entities
from reasongraph_mcp.memory.extract.sentences import split_sentences
from reasongraph_mcp.memory.ml.embed import HashEmbedder
from reasongraph_mcp.memory.ml.gliner_entities import merge
from reasongraph_mcp.memory.ml.slots import ENV, ModelSlots, choose

TEXT = "Maria said the billing service crashed in src/app/main.py after the Redis upgrade."


@pytest.fixture(autouse=True)
def _no_slot_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ENV.values():
        monkeypatch.delenv(var, raising=False)


def _open(tmp_path: Path, **slots: str) -> Memory:
    return Memory(tmp_path / "m.db", embedder=HashEmbedder(), **slots)  # type: ignore[arg-type]


def _entity_names(mem: Memory, fact: int) -> set[str]:
    return {name for _, name, _ in mem.store.entities_of([fact]).get(fact, [])}


# -- one place for every slot's name --------------------------------------------------------


def test_a_slot_reads_the_argument_first_then_its_environment_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert choose("entities", None).off and choose("entities", None).source == "default"
    monkeypatch.setenv("REASONGRAPH_ENTITY_MODEL", "/models/gliner")
    assert choose("entities", None).spec == "/models/gliner"
    assert choose("entities", None).source == "$REASONGRAPH_ENTITY_MODEL"
    assert choose("entities", "none").off and choose("entities", "none").source == "argument"


def test_without_models_status_names_the_fallback_of_each_slot(tmp_path: Path) -> None:
    with _open(tmp_path) as mem:
        notes = mem.status().notes
        assert notes[1:] == mem.model_notes
        assert [n.split(":")[0] for n in notes[1:]] == ["entities", "splitter", "reranker"]
        assert "code-aware rules" in notes[1] and "pysbd" in notes[2]
        assert "REASONGRAPH_RERANK_MODEL" in notes[3]
        assert ModelSlots().backends() is None  # nothing is activated on the write path


# -- the backend seam -----------------------------------------------------------------------


class _SemicolonSplitter:
    name = "semicolon"

    def split(self, paragraph: str) -> list[str]:
        return re.split(r"(?<=;) ", paragraph)


class _FixedEntities:
    name = "fixed"

    def __init__(self) -> None:
        self.primed: list[str] = []

    def prime(self, texts: list[str]) -> None:
        self.primed.extend(texts)

    def entities(self, text: str, rules: list[EntityMention]) -> list[EntityMention]:
        return merge(rules, [("billing service", "service")])


def test_active_backends_replace_pysbd_and_add_entities_only_inside_the_block() -> None:
    fixed = _FixedEntities()
    with using(Backends(entities=fixed, splitter=_SemicolonSplitter())):
        assert split_sentences("one. two; three") == ["one. two;", "three"]
        names = [m.name for m in extract_entities(TEXT)]
    assert fixed.primed == ["one. two;", "three"]  # one batch per text
    assert names[-1] == "billing service" and "src/app/main.py" in names
    assert split_sentences("one. two; three") == ["one.", "two; three"]  # pysbd again
    assert "billing service" not in [m.name for m in extract_entities(TEXT)]


def test_model_spans_never_duplicate_or_swallow_a_rule_mention() -> None:
    rules = extract_entities(TEXT)
    merged = merge(rules, [("in src/app/main.py", "file"), ("Redis", "database"),
                           ("Maria", "person"), ("x", "file")])
    assert merged[: len(rules)] == rules
    assert [(m.name, m.type) for m in merged[len(rules):]] == [("maria", "name")] or \
        "maria" in {m.name for m in rules}


# -- GLiNER ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tiny_gliner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained GLiNER on a 1-layer BERT, built offline and saved like a real one."""
    pytest.importorskip("gliner", reason="the [gliner] extra (gliner, torch) is not installed")
    from gliner import GLiNER, GLiNERConfig
    from transformers import BertConfig, BertTokenizerFast

    root = tmp_path_factory.mktemp("gliner")
    backbone = root / "backbone"
    backbone.mkdir()
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *TEXT.lower().replace(".", " . ")
             .replace("/", " / ").split()]
    (backbone / "vocab.txt").write_text("\n".join(dict.fromkeys(words)) + "\n")
    BertTokenizerFast(vocab_file=str(backbone / "vocab.txt")).save_pretrained(backbone)
    BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=1,
               num_attention_heads=2, intermediate_size=64,
               max_position_embeddings=128).save_pretrained(backbone)
    config = GLiNERConfig(model_name=str(backbone), hidden_size=32, max_width=4, max_len=64)
    model = GLiNER.from_config(config, backbone_from_pretrained=False)
    model.save_pretrained(root / "model")
    return root / "model"


def test_a_gliner_folder_loads_and_its_entities_join_the_rules(
    tmp_path: Path, tiny_gliner: Path,
) -> None:
    with _open(tmp_path, entity_model=str(tiny_gliner)) as mem:
        fact = mem.remember(TEXT)[0]
        assert mem.model_notes[0].startswith(f"entities: gliner folder:{tiny_gliner}")
        rules = {m.name for m in extract_entities(TEXT)}
        assert rules <= _entity_names(mem, fact)  # the rules always stay


def test_gliner_batches_every_sentence_of_a_write(tmp_path: Path, tiny_gliner: Path) -> None:
    from reasongraph_mcp.memory.ml.gliner_entities import load_gliner

    model = load_gliner(str(tiny_gliner))
    model.prime(["Redis crashed.", "Maria fixed it.", "Redis crashed."])
    assert len(model._cache) == 2
    assert all(isinstance(m, EntityMention) for m in model.entities("Redis crashed.", []))


def test_gliner_from_the_environment_variable(
    tmp_path: Path, tiny_gliner: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REASONGRAPH_ENTITY_MODEL", str(tiny_gliner))
    with _open(tmp_path) as mem:
        mem.remember("Redis crashed.")
        assert "(from $REASONGRAPH_ENTITY_MODEL)" in mem.model_notes[0]


def _corrupt_gliner(tmp_path: Path) -> Path:
    folder = tmp_path / "corrupt-gliner"
    folder.mkdir()
    (folder / "gliner_config.json").write_text("{not json")
    (folder / "pytorch_model.bin").write_bytes(b"\0" * 64)
    return folder


@pytest.mark.parametrize("make", [lambda p: p / "missing", _corrupt_gliner],
                         ids=["missing", "corrupt"])
def test_a_gliner_folder_that_cannot_load_falls_back_to_the_rules(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    folder = make(tmp_path)
    with _open(tmp_path, entity_model=str(folder)) as mem:
        fact = mem.remember(TEXT)[0]
        note = mem.model_notes[0]
        assert note.startswith("entities: model") and "could not load" in note
        assert note.endswith("using the code-aware rules") and "\n" not in note
        assert _entity_names(mem, fact) == {m.name for m in extract_entities(TEXT)}


# -- SaT ------------------------------------------------------------------------------------


def _corrupt_sat(tmp_path: Path) -> Path:
    folder = tmp_path / "corrupt-sat"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model_optimized.onnx").write_bytes(b"not onnx")
    (folder / "tokenizer.json").write_text("{}")
    return folder


@pytest.mark.parametrize("make", [lambda p: p / "missing", _corrupt_sat],
                         ids=["missing", "corrupt"])
def test_a_sat_folder_that_cannot_load_falls_back_to_pysbd(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    text = "Dr. Smith pinned pysbd to v0.3.4. Then e.g. the split held."
    with _open(tmp_path, split_model=str(make(tmp_path))) as mem:
        ids = mem.remember(text)
        note = mem.model_notes[1]
        assert "could not load" in note and note.endswith("using pysbd")
        assert [h.text for h in mem.store.facts(ids).values()] == split_sentences(text)


# -- reranker -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real ONNX cross-encoder graph whose score is the number of tokens in the pair, on
    the packaged MiniLM tokenizer: longer facts rank first (deterministic, offline)."""
    onnx = pytest.importorskip("onnx", reason="onnx (to build the test model) is not installed")
    from onnx import TensorProto, helper
    from reasongraph_mcp.memory.ml.minilm import MAX_TOKENS, packaged_files

    folder = tmp_path_factory.mktemp("cross-encoder")
    (folder / "tokenizer.json").write_bytes(packaged_files()[1].read_bytes())
    (folder / "tokenizer_config.json").write_text(
        f'{{"model_max_length": {MAX_TOKENS}, "do_lower_case": true}}')
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "s"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    graph = helper.make_graph(
        [helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
         helper.make_node("ReduceSum", ["mask_f", "axis"], ["logits"], keepdims=1)],
        "tiny-cross-encoder", inputs,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["b", 1])],
        initializer=[helper.make_tensor("axis", TensorProto.INT64, [1], [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(folder / "model.onnx"))
    return folder


def test_a_cross_encoder_folder_reorders_recall(tmp_path: Path, tiny_cross_encoder: Path) -> None:
    with _open(tmp_path, rerank_model=str(tiny_cross_encoder)) as mem:
        mem.remember(["Redis crashed.",
                      "Redis crashed again last night because the eviction policy of the "
                      "cache cluster was set to noeviction by the deploy script."])
        plain = mem.recall("redis crashed", rerank=False)
        ranked = mem.recall("redis crashed")
        assert mem.model_notes[2].startswith(f"reranker: folder:{tiny_cross_encoder}")
        assert ranked[0].text.startswith("Redis crashed again")
        assert {h.id for h in ranked} == {h.id for h in plain}
        assert ranked[0].score > ranked[1].score


def _corrupt_reranker(tmp_path: Path) -> Path:
    folder = tmp_path / "corrupt-reranker"
    folder.mkdir()
    (folder / "tokenizer.json").write_text("{}")
    (folder / "model.onnx").write_bytes(b"not onnx")
    return folder


@pytest.mark.parametrize("make", [lambda p: p / "missing", _corrupt_reranker],
                         ids=["missing", "corrupt"])
def test_a_reranker_that_cannot_load_leaves_the_fused_order(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    with _open(tmp_path, rerank_model=str(make(tmp_path))) as mem:
        mem.remember(["Redis crashed.", "Postgres is fine.", "Redis was upgraded."])
        assert mem.recall("redis") == mem.recall("redis", rerank=False)
        note = mem.model_notes[2]
        assert "could not load" in note and note.endswith("unreranked")


@pytest.mark.parametrize("slot", ["embedder", "reranker"])
def test_a_named_model_that_is_not_cached_fails_at_once_when_the_hub_is_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slot: str
) -> None:
    """fastembed alone retries a download for about 40 s offline; the engine says why at once."""
    import socket

    from reasongraph_mcp.memory.ml.embed import load_embedder
    from reasongraph_mcp.memory.ml.rerank import load_reranker

    with socket.socket() as closed:  # a port nothing listens on: connects are refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    for proxy in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(tmp_path / "empty-cache"))
    with pytest.raises(FileNotFoundError, match="not in the local cache and the model hub cannot"):
        if slot == "embedder":
            load_embedder("BAAI/bge-small-en-v1.5", tmp_path)
        else:
            load_reranker("Xenova/ms-marco-MiniLM-L-6-v2")


def test_background_loading_reports_every_slot(tmp_path: Path) -> Iterator[None]:  # type: ignore[misc]
    mem = Memory(tmp_path / "m.db", embedder=HashEmbedder(), background=True,
                 entity_model=str(tmp_path / "nope"))
    try:
        mem.remember("Redis crashed.")
        assert "could not load" in mem.model_notes[0]
    finally:
        mem.close()
