"""``ContextConfig``: every weight, threshold and bound of the prompt block, in one place.

The block is built by ``context.build`` from exchanges (``exchanges.py``) and standing rules
(``rules.py``); this is to it what ``RecallConfig`` is to recall. ``CONTEXT`` is the one in
use. The thresholds on cosine similarity are for the packaged MiniLM embedder.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContextConfig:
    """Weights and bounds of the prompt block (see ``memory/prompt/context.py``)."""

    # -- the prompt ------------------------------------------------------------------------
    min_words: int = 2  # a prompt with fewer content words gets nothing
    embed_chars: int = 2_000  # of the prompt, embedded
    query_chars: int = 4_000  # of the prompt, searched
    idf_words: int = 32  # of the prompt's content words, weighed by document frequency
    gloss_sample: int = 40  # recent assistant facts that tell whether the notes are English
    unseen_idf: float = 0.3  # weight of a prompt word no fact contains: no evidence either way

    # -- recall and exchanges ----------------------------------------------------------------
    candidates: int = 40  # facts recalled for the prompt
    past_candidates: int = 20  # facts recalled at the point in world time the prompt names
    past_undated: int = 3  # superseded facts shown for "back then" with no date: the closest
    past_bonus: float = 0.3  # rank added to a fact in force then and superseded since
    said_after: float = 0.8  # relevance kept by an exchange said after the time asked about
    then_lift: float = 0.3  # relevance added to an exchange holding such a fact (no penalty
    # for having been changed later: that is what the prompt asks about)
    shortlist: int = 12  # exchanges, best ranked first, loaded and scored
    max_exchanges: int = 6  # exchanges kept after scoring

    # -- relevance floor (an exchange must clear it: recall scores are relative) --------------
    min_cos: float = 0.25  # a fact less similar than this to the prompt is never injected
    strong_cos: float = 0.45  # ... at least this similar needs no lexical support
    nearest_cos: float = 0.38  # the most similar exchange, at least this similar, needs none
    min_lex: float = 0.15  # share of the prompt's rare-word mass a fact must contain
    no_vector_lex: float = 1.5  # without vectors, min_lex times this
    w_lex: float = 0.6  # relevance = best cosine + w_lex * lexical share + w_rank * rank
    w_rank: float = 0.1
    rank_cap: float = 3.0  # recall rank counted at most this much
    session_lift: float = 0.3  # of the best other kept turn of the same session, added
    chain_order: bool = True  # a question for causes shows each linked exchange after its source
    chain_peer: float = 0.9  # ... after direct matches at least this share of its source's rel
    chain_child: float = 1.0  # ... linked by this weight at least (one specific identifier)
    chain_share: float = 0.5  # ... and each exchange first gets at most this share of the budget
    keep_fraction: float = 0.30  # of the best relevance, for an exchange to be kept

    # -- "changed later" marks (``context._mark_revised``) -----------------------------------
    revise_rare_degree: int = 12  # an entity on more facts than this ("Airflow") names no subject
    revise_words_rare: int = 3  # same subject: a shared rare entity and this many shared words,
    revise_words_two: int = 5  # ... or two shared entities and this many,
    revise_words: int = 7  # ... or this many shared words alone
    revised_penalty: float = 0.8  # relevance kept by an exchange a later one changed

    # -- links to other exchanges (``exchanges.bridge``) -------------------------------------
    bridge_from: int = 3  # the best kept exchanges whose identifiers are followed
    max_bridged: int = 3  # exchanges added through an identifier
    bridge_decay: float = 0.7  # of the linking exchange's relevance, for a fully linked one
    min_link: float = 0.5  # weakest link followed: a capitalised name named by two exchanges
    bridge_max_df: int = 4  # an identifier in more exchanges than this links nothing
    bridge_idents: int = 64  # identifiers searched at most (an FTS5 query stays short)
    bridge_rows: int = 400  # facts fetched that name them
    story_min: float = 1.0  # ... at least (a direct match is linked on stronger evidence
    # than an exchange bridged in: one specific identifier, or two capitalised names)
    story_full: float = 3.0  # rare identifiers shared with a stronger match that lift a
    # direct match fully into its story (``exchanges.story_links``; fewer lift it less)
    cause_hops: int = 3  # recorded cause links followed back from the kept exchanges' facts
    changed_lift: float = 1.05  # of the changed exchange's relevance, for the one that changed it
    max_changed: int = 2  # later exchanges added because they changed a kept one
    changed_same_cos: float = 0.4  # ... saying so in a sentence this close to one of the old
    max_caused: int = 3  # exchanges added as the causes of a kept one (a causal question only)
    asked_ident: float = 2.0  # link weight times this for an identifier the prompt names
    ident_specific: float = 1.0  # a path, snake_case or dotted name, a name with digits
    ident_plain: float = 0.5  # a capitalised word, an acronym, a hyphenated English compound
    follow_up: float = 1.0  # weight of the next/previous turn when the later one follows up
    same_conversation: float = 0.5  # ... when it does not
    follow_up_words: int = 4  # a turn this short reads as a follow-up

    # -- rendering -------------------------------------------------------------------------
    hold_exchanges: int = 4  # the budget stretches to show this many best exchanges whole
    # (3 lost the answer ranked fourth in the busy project: dev pooled 0.775 -> 0.825 with 4)
    max_stretch: float = 2.0  # ... up to this many times the budget (long replies)
    hold_chain: int = 4  # ... for a question of causes or impact, whose steps lie in more
    max_stretch_chain: float = 2.5  # exchanges, up to this many times
    w_recalled: float = 0.5  # order within an exchange: cosine + this if recall found the fact
    w_linked: float = 0.5  # ... + this if it names the identifier that linked the exchange
    w_named: float = 0.5  # ... + this times the share of ``named_cap`` identifiers it names
    named_cap: int = 3
    causes_from: int = 2  # facts per shown exchange whose recorded cause may be added
    causes_per_fact: int = 1  # "because" lines per fact
    filler_chars: int = 24  # a shorter sentence with fewer than filler_words content words...
    filler_words: int = 3  # ... is filler
    rule_turn_words: int = 2  # ... but a user's sentence in a rule turn with this many is a
    # rule said short ("mocktail, no mockito."), never filler
    narration_words: int = 12  # "Let me look at X." of at most this many words states nothing

    # -- standing rules (``rules.py``) --------------------------------------------------------
    rule_share: float = 0.5  # of the budget, at most, for standing rules
    rule_share_asked: float = 0.2  # ... when the prompt also asks a question
    rule_min_cos: float = -1.0  # rules are few and bind every task: order them, do not filter
    max_rules: int = 6  # standing rules shown
    how_per_rule: int = 2  # assistant sentences per rule turn showing how it is applied
    rule_chars: int = 220  # a longer rule line is cut to this many characters
    rule_rows: int = 400  # recent user facts searched for rules
    said_rule_rows: int = 200  # recent assistant facts searched for constraints


CONTEXT = ContextConfig()
