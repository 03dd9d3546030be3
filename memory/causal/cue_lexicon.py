"""The cue lexicon of the causal extractor: every cue, its direction and the vetoes around it.

Private to `memory.extract.causal` (the names keep their underscore): split out because the
lexicon is data, about half of the extractor, and changes for different reasons (a new cue, a
new language) than the span logic does. `_compile_lexicon()` indexes the cues by first word once
at import, so a sentence costs one dict lookup per word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class _Kind(Enum):
    FWD = "fwd"
    GATED = "gated"
    BWD = "bwd"
    PASSIVE = "passive"
    ADV = "adv"
    COND = "cond"
    SOV = "sov"
    POSTP = "postp"
    FIXBY = "fixby"
    NAMED = "named"


@dataclass(frozen=True)
class _Cue:
    kind: _Kind
    confidence: float
    lang: str
    # Clause-level cues ("since", "da", "car", "want") only count after a comma or at the
    # start of the sentence, where they cannot be a preposition or an English noun.
    clause_only: bool = False
    # Cues that only count at the very start of the sentence ("Durch X, ...", "Door X ...").
    initial_only: bool = False


# --------------------------------------------------------------------------------------------
# The lexicon. Each entry: (kind, confidence, lang, flags, phrases). Phrases are plain words
# separated by spaces (matched with any whitespace between); a phrase starting with "re:" is a
# raw regex fragment. Longest phrases are tried first.
# --------------------------------------------------------------------------------------------

_F, _G, _B, _P, _A, _C, _S, _PP, _N = (
    _Kind.FWD, _Kind.GATED, _Kind.BWD, _Kind.PASSIVE, _Kind.ADV, _Kind.COND, _Kind.SOV,
    _Kind.POSTP, _Kind.NAMED,
)
_CLAUSE, _INITIAL = "clause", "initial"

_PASSIVE_VERBS = (
    "caused|triggered|driven|prompted|sparked|fueled|fuelled|delayed|blocked|disrupted|damaged"
    "|slowed|interrupted|broken|stopped|halted|prevented|destroyed|killed|injured|hit|affected"
    "|forced|motivated|provoked|exacerbated|worsened|hampered|hindered|limited|offset|outweighed"
)

_STEP = r"(?:[\w-]+ ){0,2}?"  # up to two words before the event noun: "the GPU pool switch"
_UNTIL_CLAUSE = r"(?= ?,| )"  # the reference ends where its clause goes on
# A release named by its number: "6.4", "v2.3.0", "version 1.8", "versión 3.2"
_RELEASE = (
    r"(?:v|version |versión |versão |versione |versie |release |build |firmware |fw )?"
    r"\d+(?:\.\d+)+" + _UNTIL_CLAUSE
)
# Nouns of a change or an incident in software work: what "since the X" or "after the X"
# names as the step before ("since the switch", "after the cutover").
_EVENT_NOUNS = (
    "change|changes|switch|switchover|hotfix|fix|release|upgrade|update|migration|rollout|"
    "deploy|deployment|cutover|move|merge|patch|incident|outage|restart|reboot|failover|"
    "refactor|rewrite|rollback|revert|reorg|redesign|launch|cleanup|bump|swap"
)


# The same nouns in the other languages.
_EVENT_DE = (
    "update|umstellung|wechsel|änderung|migration|release|upgrade|deploy|deployment|"
    "hotfix|fix|patch|rollout|neustart|umzug|ausfall|failover|refactoring|einführung"
)
_EVENT_FR = (
    "changement|mise à jour|migration|déploiement|correctif|hotfix|bascule|"
    "redémarrage|incident|passage|version|release|refonte|mise en production"
)
_EVENT_ES = (
    "cambio|actualización|migración|despliegue|parche|hotfix|lanzamiento|reinicio|"
    "incidente|mudanza|versión|corte|refactorización"
)
_EVENT_NL = (
    "wijziging|update|upgrade|migratie|overstap|deploy|uitrol|hotfix|fix|patch|"
    "herstart|release|verhuizing|omschakeling"
)
_EVENT_PT = (
    "mudança|atualização|migração|deploy|implantação|correção|hotfix|troca|reinício|"
    "versão|release|virada"
)
_EVENT_IT = (
    "cambio|aggiornamento|migrazione|rilascio|deploy|hotfix|patch|riavvio|passaggio|"
    "versione|modifica"
)

# Every language's event nouns, for the linker's reading of "since the sidecar rollout".
EVENT_NOUNS_ALL = "|".join(
    (_EVENT_NOUNS, _EVENT_DE, _EVENT_FR, _EVENT_ES, _EVENT_NL, _EVENT_PT, _EVENT_IT)
)


def _step_named(
    lang: str, opening: str, determiners: str, events: str, release: str, release_det: str,
    also: tuple[str, ...] = (),
) -> tuple[_Kind, float, str, str, tuple[str, ...]]:
    """The row of back-references that name the step before by its event ("Seit dem Update,")
    or its release ("Seit 6.4,") in ``lang``: ``opening`` the words that open it,
    ``determiners`` the group before the event noun (with its space), ``release`` and
    ``release_det`` the same before a release number; ``also`` more forms, between the two."""
    return (_A, 0.8, lang, _INITIAL, (
        rf"re:(?:{opening}) {determiners}{_STEP}(?:{events}){_UNTIL_CLAUSE}",
        *also,
        rf"re:(?:{release}) {release_det}{_RELEASE}",
    ))


# "Three guerrillas were killed Friday in an ambush": a casualty verb, then "in"/"during" an
# event noun. The effect is the casualty clause, the cause the event.
_INCIDENT_VERBS = (
    "killed|injured|wounded|hurt|died|dead|hospitalised|hospitalized|displaced|trapped|"
    "stranded|arrested|detained|evacuated|damaged|destroyed|gutted|razed|missing"
)
_INCIDENT_NOUNS = (
    "attacks?|ambush(?:es)?|gunfights?|gun battles?|encounters?|clash(?:es)?|blasts?|"
    "explosions?|accidents?|fires?|firing|violence|stampedes?|crash(?:es)?|collisions?|riots?|"
    "rioting|shootings?|bombings?|raids?|incidents?|protests?|lathi-?charge|mishaps?|"
    "cross-?firing|crossfire|shelling|air-?strikes?|strikes?|earthquakes?|quakes?|floods?|"
    "flooding|landslides?|storms?|cyclones?|fighting|skirmish(?:es)?|scuffles?|melee|unrest|"
    "stone-?pelting|exchange of fire|operations?|retaliation|mob|lynching|assault|"
    "firefight|gunfire|bomb|grenade|ied|blaze|collapse|cloudburst|rains?|downpour|typhoon|"
    "hurricane|tornado|avalanche|tsunami|outbreak|epidemic|demonstrations?|agitation|crackdown|"
    "police action|wall collapse|house collapse|building collapse"
)

_LEXICON: tuple[tuple[_Kind, float, str, str, tuple[str, ...]], ...] = (
    # ---------------------------------------------------------------- English
    (_F, 0.9, "en", "", (
        "caused", "causes", "cause", "led to", "leads to", "lead to", "leading to", "has led to",
        "had led to", "have led to", "resulted in", "results in", "result in", "resulting in",
        "gave rise to", "gives rise to", "give rise to", "giving rise to", "triggered", "triggers",
        "trigger", "triggering", "causing", "is why", "was why", "which is why", "that is why",
        "that's why", "is the reason why", "is the reason for", "was the reason for",
        "was the reason why", "is responsible for", "was responsible for", "sparked", "sparks",
        "sparking", "prompted", "prompts", "prompting", "contributed to", "contributes to",
        "contributing to", "brought about", "brings about",
    )),
    (_G, 0.6, "en", "", (
        "broke", "breaks", "made", "makes", "making", "produced", "produces", "forced", "forces",
        "forcing", "increased", "increases", "increasing", "reduced", "reduces", "reducing",
        "raised", "raises", "raising", "lowered", "lowers", "decreased", "decreases", "cut",
        "cuts", "boosted", "boosts", "improved", "improves", "improving", "worsened", "worsens",
        "worsen", "delayed", "delays", "damaged", "damages", "damage", "shortened", "shortens",
        "lengthened", "drained", "drains", "stopped", "stops", "prevented", "prevents",
        "blocked", "blocks", "killed", "kills", "killing", "slowed", "slows", "allowed",
        "allows", "enabled", "enables", "kept", "keeps", "left", "leaving", "pushed", "pushes",
        "drove", "drives", "amplifies", "amplified", "narrow", "narrows", "narrowed",
        "dried out", "funded", "generated", "generates", "created", "creates", "stimulates",
        "precipitate", "precipitated", "raise", "increase", "reduce", "injuring", "injured",
        "destroyed", "disrupted", "disrupts", "crashed", "crashes", "overloaded", "saturated",
        "exhausted", "exceeded", "led", "leads", "let", "lets", "worsen", "warm", "removed",
        "removes", "eliminated", "introduced", "introduces",
        "releases", "released", "traps", "trapped", "warms", "warmed", "slows down",
        "slowed down", "sped up", "speeds up", "fixed", "fixes", "solved", "resolved",
        "mitigated", "invalidated", "corrupted", "locked", "exposed", "evoked", "affected",
        "affects", "hurt", "hurts", "harmed", "harms", "doubled", "tripled", "halved",
        "expanded", "expands", "dropped", "drops", "shrank", "shrinks", "lifted", "lifts",
        "accelerated", "accelerates", "weakened", "weakens", "strengthened", "strengthens",
        "exhausts", "overloads", "flooded", "floods",
        # what engineers say one thing did to another: "the backup took down the replica",
        # "the retry storm maxed out the pool", "the fixture explains the flaky test"
        "took down", "takes down", "brought down", "brings down", "knocked out", "knocks out",
        "kicked off", "kicks off", "set off", "sets off", "maxed out", "maxes out", "filled up",
        "fills up", "starved", "starves", "clogged", "clogs", "choked", "chokes", "pinned",
        "pins", "explains", "explained", "accounts for", "accounted for", "meant that",
        "means that",
    )),
    # ---------------------------------------------------------------- French (gated verbs)
    (_G, 0.55, "fr", "", (
        "a inondé", "a laissé", "a réduit", "a bloqué", "a retardé", "a endommagé",
        "endommage", "a empêché", "empêche", "a permis", "permet", "a détruit", "a aggravé",
        "aggrave", "a saturé", "sature",
    )),
    # ---------------------------------------------------------------- Dutch (gated verbs)
    (_G, 0.55, "nl", "", (
        "verhoogde", "verhoogt", "verlaagde", "verlaagt", "verminderde", "vermindert",
        "vertraagde", "vertraagt", "blokkeerde", "blokkeert", "verhinderde", "verhindert",
        "beschadigde", "beschadigt", "overbelastte", "vulde",
    )),
    (_B, 0.9, "en", "", (
        "because of", "because", "due to", "as a result of", "as a consequence of",
        "on account of", "owing to", "all because of", "is due to", "was due to", "were due to",
        "resulting from", "stemming from", "stems from", "stemmed from", "arising from",
        "arising out of", "in the wake of", "in wake of", "in response to", "in reaction to",
        "attributed to", "blamed on", "was the result of", "is the result of",
        "was the outcome of", "the result of", "in protest against", "in protest of",
        "in protest over", "in protest at",
        # the effect first, then its source: "the pages are a consequence of that IO
        # saturation", "the double charges all trace back to late retries", "the outage was
        # down to the expired certificate"
        r"re:(?:is|are|was|were) (?:all\s+|mostly\s+|partly\s+)?(?:a|the)\s+(?:direct\s+)?"
        r"(?:consequence|side[- ]effect|symptom|by-?product|knock-on effect)\s+of",
        "a consequence of", "a direct consequence of", "a side effect of", "a knock-on effect of",
        r"re:(?:all) (?:trace|traces|traced)\s+(?:back\s+)?to",
        r"re:(?:traces|traced) (?:back\s+)?to",
        r"re:(?:can|could|was|were|is|are|been) (?:be\s+)?traced\s+(?:back\s+)?to",
        "stem from", "stemming from", "results from", "resulted from", "result from",
        "originates from", "originated from", "originate from", "originating from",
        r"re:(?:is|are|was|were|all|mostly|partly|largely) down\s+to",
        r"re:(?:comes|came|boils|boiled) down\s+to",
        r"re:(?:is|are|was|were|been|be) (?:\w+ly\s+)?explained\s+by",
        r"re:(?:is|are|was|were|be) (?:\w+ly\s+)?attributable\s+to",
    )),
    (_B, 0.7, "en", "", (
        "thanks to", "following", "in connection with", "in support of", "demanding",
        "demanding that", "protesting", "protesting against", "in a bid to", "in order to",
        "in an attempt to", "over",
    )),
    # Protest purposes ("staged a dharna seeking the release of ..."): checked in _valid.
    (_B, 0.6, "en", "", (
        "seeking", "condemning", "calling for", "alleging that", "opposing", "against",
    )),
    (_B, 0.7, "en", _CLAUSE, ("since", "as")),
    # "arrested for looting", "fixed it by restarting", "marched to protest": checked in _valid.
    (_B, 0.45, "en", "", ("for", "by", "to")),
    (_B, 0.5, "en", "", ("after",)),
    (_P, 0.8, "en", "", (
        rf"re:(?:was|were|is|are|been|being|be|got|get|gets)\s+(?:\w+ly\s+)?(?:{_PASSIVE_VERBS})\s+by",
        rf"re:(?:{_PASSIVE_VERBS})\s+by",
    )),
    (_P, 0.7, "en", "", (
        rf"re:(?:{_INCIDENT_VERBS})(?:\s+(?!in\b|during\b)[\w'’-]+){{0,4}}?\s+(?:in|during)"
        rf"(?=\s+(?:[\w'’-]+\s+){{0,5}}?(?:{_INCIDENT_NOUNS})\b)",
    )),
    (_A, 0.85, "en", "", (
        "therefore", "thus", "hence", "consequently", "as a result", "as a consequence",
        # "Because of that, X" / "Because of that the build failed": the step before; not
        # "Because of that sequential scan, X", where "that" opens the cause's noun phrase
        r"re:(?:because) of (?:that|this)(?= ?[,;:.]| (?:the|a|an|we|it|they|our|its|i|you|he|"
        r"she|there|all|every|some|no|many|most|nothing|everything)\b)",
        "for this reason", "for that reason",
        "and thus", "and therefore", "and hence", "and so", "so",
        # the next state of a story told since the previous step: "Since then, X"
        "since then", "ever since", "ever since then", "from then on", "since that change",
        "after that", "after this", "from that point on", "from that day on", "since that day",
        "since that point", "since that night",
    )),
    # The step named by its event ("Since the switch, X", "After the upgrade, X") or its
    # release ("Since 6.4, X"), or a time after it ("Two days later X"), opening the sentence.
    (_A, 0.8, "en", _INITIAL, (
        rf"re:(?:since|after|ever since) (?:the|that|this|our|last week's|yesterday's) "
        rf"{_STEP}(?:{_EVENT_NOUNS}){_UNTIL_CLAUSE}",
        rf"re:(?:since|ever since) {_RELEASE}",
        r"re:(?:a|one|two|three|four|five|a few|several) (?:minutes?|hours?|days?|weeks?|"
        r"months?|sprints?) (?:later|after that|after this|afterwards)",
        r"re:(?:the next|the following|later that|that same|that) (?:morning|day|night|evening|"
        r"afternoon|weekend)(?= ?,| (?!(?:is|was|were|will|would|has|had|looks|seems)\b))",
    )),
    # Effect first, then its cause named as such: "Y; the cause was X", "The reason is X."
    (_N, 0.8, "en", "", (
        "the cause was", "the cause is", "the root cause was", "the root cause is",
        "the reason was", "the reason is", "the reason given was", "the reason given is",
        "the culprit was", "the culprit is", "the culprit turned out to be",
        # a diagnosis of what was told before: "Turned out the sidecar doubled memory."
        r"re:(?:it turned|it turns|as it turned|turned|turns) out(?:\s+that)?"
        r"(?!\s+(?:to|fine|well|great|ok|okay|good|bad|nice|harder|easier|simpler)\b)",
    )),
    (_F, 0.85, "en", "", (
        r"re:(?:is|are|was|were) (?:partly\s+|mostly\s+|largely\s+)?to\s+blame\s+for",
    )),
    (_C, 0.5, "en", _INITIAL, ("when", "whenever", "if", "once")),
    # ---------------------------------------------------------------- German
    (_F, 0.9, "de", "", (
        "führte zu", "führt zu", "führten zu", "führen zu", "führte dazu , dass",
        "führt dazu , dass", "führten dazu , dass", "führte dazu", "führt dazu",
        "verursachte", "verursachten", "verursacht", "bewirkte", "bewirkt",
        "hatte zur folge , dass", "hatte zur folge", "sodass", "so dass", "löste", "lösten",
        "ist der grund für", "war der grund für",
    )),
    (_G, 0.55, "de", "", (
        "erhöht", "erhöhte", "senkt", "senkte", "steigert", "steigerte", "verringert",
        "verringerte", "ermöglicht", "ermöglichte", "verhinderte", "verhindert", "verzögerte",
        "verzögert", "beschädigte",
    )),
    (_B, 0.9, "de", "", (
        "weil", "wegen", "aufgrund", "auf grund", "infolge", "aufgrund von", "infolge von",
        "verursacht durch", "aus diesem grund",
    )),
    (_B, 0.75, "de", _CLAUSE, ("da", "denn")),
    (_B, 0.6, "de", _INITIAL, ("durch",)),
    # The step named by its event or release, opening the sentence, in the other languages:
    # "Seit dem Update, ...", "Depuis la migration, ...", "Desde la 6.4, ...".
    _step_named("de", "seit|nach", "(?:dem|der|den|diesem|dieser|unserem|unserer) ", _EVENT_DE,
                "seit", "(?:der |dem )?"),
    _step_named("fr", "depuis|après", "(?:le |la |les |l'|ce |cet |cette |notre )", _EVENT_FR,
                "depuis", "(?:la |le )?"),
    _step_named("es", "desde|tras", "(?:el|la|los|las|este|esta|ese|esa|nuestro|nuestra) ",
                _EVENT_ES, "desde", "(?:la |el )?"),
    _step_named("nl", "sinds|na", "(?:de|het|die|deze|dat|onze) ", _EVENT_NL, "sinds", ""),
    _step_named("pt", "desde|após", "(?:o|a|os|as|esse|essa|este|esta|nosso|nossa) ", _EVENT_PT,
                "desde", "(?:a |o )?"),
    _step_named("it", "dopo", "(?:il |la |l'|lo |questo |questa |quel |quella )", _EVENT_IT,
                "dalla|dopo", "(?:la )?",
                also=(rf"re:(?:dal|dalla|dallo) {_STEP}(?:{_EVENT_IT}){_UNTIL_CLAUSE}",)),
    (_A, 0.85, "de", "", (
        "deshalb", "daher", "dadurch", "deswegen", "darum", "folglich", "somit",
        "infolgedessen", "aus diesem grund", "seitdem", "seither", "daraufhin",
        "seit dieser änderung", "seit der änderung",
    )),
    (_N, 0.8, "de", "", (
        "ursache war", "ursache ist", "die ursache war", "die ursache ist", "grund war",
        "grund ist", "der grund war", "der grund ist",
    )),
    (_C, 0.5, "de", _INITIAL, ("wenn", "sobald", "falls")),
    # ---------------------------------------------------------------- French
    (_F, 0.9, "fr", "", (
        "a entraîné", "ont entraîné", "entraîne", "entraînent", "entraînera", "a provoqué",
        "ont provoqué", "provoque", "provoquent", "a causé", "ont causé", "causent",
        "a conduit à", "conduit à", "mène à", "a mené à", "est la raison pour laquelle",
    )),
    (_B, 0.9, "fr", "", (
        "parce que", "parce qu'", "à cause de", "à cause du", "à cause des", "en raison de",
        "en raison du", "en raison des", "causé par", "causée par", "provoqué par",
        "provoquée par", "puisque", "dû à", "due à", "à la suite de", "suite à", "suite au",
        "suite aux", "grâce à", "grâce au", "grâce aux",
    )),
    (_B, 0.75, "fr", _CLAUSE, ("car",)),
    (_A, 0.8, "fr", "", (
        "donc", "par conséquent", "en conséquence", "c'est pourquoi", "c’est pourquoi",
        "c'est pour cela que", "de ce fait", "ainsi", "du coup", "depuis lors", "dès lors",
        "résultat :", "résultat ,", "depuis ,",
    )),
    (_N, 0.8, "fr", "", (
        "en cause ,", "en cause :", "la cause est", "la cause était", "la raison est",
        "la raison était", "la raison invoquée est", "la raison en est",
    )),
    (_C, 0.5, "fr", _INITIAL, ("lorsque", "lorsqu'", "quand", "si", "dès que")),
    # ---------------------------------------------------------------- Spanish
    (_F, 0.9, "es", "", (
        "provocó", "provoca", "provocan", "provocaron", "causó", "causan", "causaron",
        "llevó a", "lleva a", "llevaron a", "llevó al", "condujo a", "dio lugar a",
        "da lugar a", "resultó en", "ocasionó", "generó",
    )),
    (_G, 0.55, "es", "", (
        "redujo", "reduce", "reducen", "redujeron", "aumentó", "aumenta", "aumentan",
        "aumentaron", "subió", "disminuyó", "cerró", "agrietó", "elevó", "eleva",
    )),
    (_B, 0.9, "es", "", (
        "porque", "debido a", "debido al", "a causa de", "a causa del", "por culpa de",
        "como resultado de", "como consecuencia de", "ya que", "puesto que", "gracias a",
        "causado por", "causada por", "provocado por", "provocada por",
    )),
    (_A, 0.8, "es", "", (
        "por lo tanto", "por eso", "por ello", "así que", "como resultado", "en consecuencia",
        "por consiguiente", "por lo que", "desde entonces", "a partir de ahí",
        "a partir de entonces", "a partir de ese cambio", "de ahí que", "como consecuencia",
        "por este motivo", "por esa razón",
    )),
    (_N, 0.8, "es", "", (
        "la causa es", "la causa fue", "el motivo es", "el motivo fue", "la razón es",
        "la razón fue",
    )),
    (_B, 0.7, "es", _INITIAL, ("como",)),
    (_C, 0.5, "es", _INITIAL, ("cuando", "si")),
    # ---------------------------------------------------------------- Dutch
    (_F, 0.9, "nl", "", (
        "leidde tot", "leidt tot", "leiden tot", "leidden tot", "heeft geleid tot",
        "veroorzaakte", "veroorzaakt", "veroorzaakten", "zorgde voor", "zorgt voor",
        "zorgden voor", "resulteerde in", "resulteert in", "waardoor",
    )),
    (_B, 0.9, "nl", "", (
        "omdat", "doordat", "als gevolg van", "vanwege", "wegens", "dankzij",
        "veroorzaakt door",
    )),
    (_B, 0.75, "nl", _CLAUSE, ("want",)),
    (_B, 0.6, "nl", _INITIAL, ("door",)),
    (_A, 0.85, "nl", "", (
        "daardoor", "daarom", "dus", "als gevolg", "hierdoor", "dientengevolge", "sindsdien",
        "sinds die wijziging", "als gevolg daarvan",
    )),
    (_N, 0.8, "nl", "", (
        "de oorzaak is", "de oorzaak was", "oorzaak was", "de reden is", "de reden was",
    )),
    (_C, 0.5, "nl", _INITIAL, ("wanneer", "als", "zodra")),
    # ---------------------------------------------------------------- Turkish
    (_B, 0.9, "tr", "", ("çünkü",)),
    (_PP, 0.85, "tr", "", (
        "yüzünden", "nedeniyle", "sebebiyle", "dolayı", "sonucunda", "sonucu olarak",
        r"re:\w+(?:d|t)(?:ığı|iği|uğu|üğü|ıkları|ikleri|ukları|ükleri)\s+için",
        r"re:\w+(?:dığından|diğinden|duğundan|düğünden|tığından|tiğinden|tuğundan|tüğünden)",
    )),
    (_S, 0.85, "tr", "", (
        "yol açtı", "yol açar", "yol açıyor", "yol açmıştır", "yol açabilir", "neden oldu",
        "neden olur", "neden olmuştur", "neden olabilir", "sebep oldu", "sebep olur",
        "zarar verir", "zarar verdi",
    )),
    (_S, 0.6, "tr", "", (
        "düşürür", "düşürdü", "artırır", "artırdı", "azaltır", "azalttı", "engelledi",
        "engeller", "geciktirdi", "geciktirir", "bozdu", "bozar",
    )),
    (_A, 0.85, "tr", "", (
        "bu nedenle", "bu yüzden", "bu sebeple", "bundan dolayı", "dolayısıyla", "bu yüzden de",
        "o zamandan beri", "o günden beri", "bunun sonucunda", "bu değişiklikten sonra",
    )),
    (_N, 0.8, "tr", "", ("sebebi", "nedeni", "sebebi ise", "nedeni ise")),
    # ---------------------------------------------------------------- Portuguese
    (_F, 0.9, "pt", "", (
        "causou", "causaram", "levou a", "levou ao", "levou à", "levaram a", "leva a",
        "provocou", "provocaram", "resultou em", "resulta em", "resultaram em", "ocasionou",
    )),
    (_B, 0.9, "pt", "", (
        "devido a", "devido ao", "devido à", "por causa de", "por causa do", "por causa da",
        "já que", "uma vez que", "graças a", "causado por", "causada por",
    )),
    (_A, 0.8, "pt", "", (
        "portanto", "por isso", "como resultado", "consequentemente", "por conseguinte",
        "então", "assim", "desde então", "com isso", "a partir daí", "a partir de então",
        "por causa disso", "por esse motivo",
    )),
    (_N, 0.8, "pt", "", (
        "a causa é", "a causa foi", "o motivo é", "o motivo foi", "a razão é", "a razão foi",
    )),
    (_B, 0.7, "pt", _INITIAL, ("como",)),
    (_C, 0.5, "pt", _INITIAL, ("quando", "se")),
    # ---------------------------------------------------------------- Italian
    (_F, 0.9, "it", "", (
        "ha causato", "hanno causato", "ha provocato", "hanno provocato", "provoca",
        "ha portato a", "ha portato al", "ha portato alla", "porta a", "ha determinato",
        "ha comportato", "ha innescato", "ha generato", "ha reso",
    )),
    (_B, 0.9, "it", "", (
        "a causa di", "a causa del", "a causa della", "a causa dello", "a causa dei",
        "dovuto a", "dovuta a", "dovuto al", "dovuta al", "dovuto alla", "grazie a",
        "causato da", "causata da", "provocato da", "provocata da", "poiché", "perché",
        "visto che", "dato che", "siccome",
    )),
    (_A, 0.8, "it", "", (
        "quindi", "perciò", "pertanto", "di conseguenza", "per questo", "per questo motivo",
        "da allora", "da quel momento",
    )),
    (_C, 0.5, "it", _INITIAL, ("quando", "se")),
)

# "X broke out" / "made of" / "so far": a gated or adverbial cue followed by one of these is not
# causal. Keys are lowercased cue texts; values are regexes tried right after the cue.
_VETO_AFTER: dict[str, re.Pattern[str]] = {
    cue: re.compile(pattern, re.IGNORECASE)
    for cue, pattern in {
        "so": r"\s*(?:that\b|far\b|-|called\b|much\b|many\b|long\b|good\b|on\b|to speak\b|as\b|"
        r"[a-z]+ly\b|\w+\s+that\b|\w+\s*[.!?]?\s*$)",
        "made": r"\s+(?:of|by|up|out|sure|it|a|an|the decision|with|in|from|for|to\s+\w+)\b",
        "makes": r"\s+(?:of|by|up|sure|it|a|an|with|for)\b",
        "making": r"\s+(?:of|by|up|sure|it|a|an|with|for)\b",
        "broke": r"\s+(?:out|down|up|into|through|away|off|in)\b",
        "breaks": r"\s+(?:out|down|up|into|through|away|off|in)\b",
        "left": r"\s+(?:for|to|the\s+(?:party|company|building|country|city|office|room|house))\b"
        r"|\s*[,.]|\s+(?:at|on|in|after|before|with|early|behind|without)\b",
        "leaving": r"\s+(?:for|to|the\s+"
        r"(?:party|company|building|country|city|office|room|house))\b"
        r"|\s+(?:at|on|in|after|before|with|early|behind|without)\b",
        "as": r"\s+(?:well|a|an|the|of|part|soon|long|far|much|many|such|if|though|per|to|"
        r"for|usual|expected|planned|before|always|such|\d)\b",
        "for": r"",
        "over": r"\s+(?:the\s+(?:past|last|next|weekend|years?|months?|weeks?|days?)|\d|a\s+"
        r"(?:year|month|week|day|decade))\b",
        "following": r"\s+(?:day|week|month|year|morning|evening|steps?|code|command|error|"
        r"lines?|way|instructions)\b",
        "cut": r"\s+(?:off|across|through|short)\b",
        "cause": r"\s+(?:of|for|and|is|was|analysis)\b",
        "causes": r"\s+(?:of|for|and|are|were)\b",
        "if": r"\s+(?:any|not|so|possible|needed|necessary|only)\b",
        "as a result": r"\s+of\b",
        "as a consequence": r"\s+of\b",
        "so dass": r"",
        "dus": r"\s*[,.]?\s*$",
        "ainsi": r"\s+que\b",
        "assim": r"\s+como\b",
        "fixed": r"\s+(?:at|in|on|to|price|rate|size|width|point)\b",
        "then": r"",
        "led": r"(?!\s+(?:[\w'’-]+\s+){1,3}to\b)",
        "leads": r"(?!\s+(?:[\w'’-]+\s+){1,3}to\b)",
        "let": r"\s+(?:me|us|them|him|her|you|go|down)\b",
        # Verbs that are also intransitive: "latency dropped to 5 ms", "the team expanded in 2020".
        **{
            v: r"\s+(?:to|by|from|in|at|on|off|out|below|above|over|under|sharply|\d)"
            for v in ("dropped", "drops", "expanded", "expands", "shrank", "shrinks", "lifted",
                      "lifts", "accelerated", "accelerates", "weakened", "weakens",
                      "strengthened", "strengthens", "flooded", "floods")
        },
        "lets": r"\s+(?:me|us|them|him|her|you|go|down)\b",
    }.items()
}
# "for" is only causal in "for + gerund/this reason"; the veto above is empty and the check lives
# in _valid(). "the cause of", "a cause for" never start a forward relation.
_VETO_BEFORE: dict[str, re.Pattern[str]] = {
    cue: re.compile(pattern + r"\s*$", re.IGNORECASE)
    for cue, pattern in {
        "cause": r"\b(?:the|a|an|root|main|likely|probable|possible|no|this|that|its|his|her|"
        r"their|our|la|une|le|de)",
        "causes": r"\b(?:the|root|main|likely|possible|its|their|our)",
        "following": r"\b(?:the|a|by|in|of|is|are|was|were|be)",
        "made": r"\b(?:be|been|was|were|is|are|being|has|have|had)",
        "as": r"\b(?:such|same|so|as|just|known|well|seen|used|served|act|acts|acted)",
        "left": r"\b(?:is|was|were|are|be|been|has|have|had|the|on|to|turn|turned|far)",
        "fixed": r"\b(?:is|was|were|are|be|been|the|a)",
        "over": r"\b(?:is|was|were|are|game|all|take|took|taken|switch|switched|move|moved|"
        r"roll|rolled|hand|handed|turn|turned|run|ran|went|go|come|came|carry|carried|look|"
        r"looked|think|thinking|thought|hand|control|power|win|won|lead|priority|preference)",
        "leading to": r"\b(?:the\s+\w+|road|path|door|stairs|steps)",
        "a": r"",
    }.items()
}


_PASSIVE_AUX = ("was", "were", "is", "are", "been", "being", "be", "got", "get", "gets")


def _phrase_regex(phrase: str) -> str:
    """Turn a lexicon phrase into a regex fragment (spaces match any whitespace)."""
    if phrase.startswith("re:"):
        return phrase[3:]
    parts = [re.escape(p) for p in phrase.split()]
    return r"\s*".join(parts) if "," in phrase else r"\s+".join(parts)


def _first_words(phrase: str) -> tuple[str, ...]:
    """The lowercase words a phrase can start with: the index key of the cue table."""
    if not phrase.startswith("re:"):
        return (phrase.split()[0].lower(),)
    if phrase.startswith(r"re:\w+"):
        return ("*",)  # a suffix cue (Turkish "-dığı için"): scanned separately
    if phrase.startswith("re:(?:was|"):
        return _PASSIVE_AUX
    if phrase.startswith("re:(?:killed|"):
        return tuple(_INCIDENT_VERBS.split("|"))
    lead = re.match(r"re:\(\?:([^\W\d_][\w |]*)\) ", phrase)
    if lead:  # "re:(?:since|after|ever since) ...": the words its alternatives start with
        return tuple(dict.fromkeys(alt.split()[0] for alt in lead.group(1).split("|")))
    return tuple(_PASSIVE_VERBS.split("|"))


class _LazyPattern:
    """A case-insensitive regex compiled on its first ``match``: compiling all 600-odd cue
    patterns at import took 0.2 s, on the path of a cold server's first answer, while a
    sentence only ever tries the few whose first word it contains."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        compiled = self._compiled
        if compiled is None:  # two threads may both compile: same result, no harm
            compiled = self._compiled = re.compile(self.source, re.IGNORECASE)
        return compiled.match(text, pos)


_Table = dict[str, tuple[tuple[_LazyPattern, _Cue], ...]]


def _compile_lexicon() -> tuple[_Table, re.Pattern[str], tuple[_Cue, ...]]:
    """Index every cue by its first word, longest phrase first.

    One big alternation tried at every character is ~100x slower than looking up each word of
    the sentence in a dict and trying only the few cues that start with it.
    """
    entries: dict[str, tuple[str, _Cue]] = {}
    for kind, conf, lang, flags, phrases in _LEXICON:
        cue = _Cue(kind, conf, lang, clause_only=flags == _CLAUSE, initial_only=flags == _INITIAL)
        for phrase in phrases:
            entries.setdefault(_phrase_regex(phrase), (phrase, cue))
    table: dict[str, list[tuple[int, _LazyPattern, _Cue]]] = {}
    suffix: list[tuple[str, _Cue]] = []
    for fragment, (phrase, cue) in entries.items():
        rank = 100 if phrase.startswith("re:") else len(phrase)
        compiled = _LazyPattern(rf"(?:{fragment})(?![\w'’-])")
        for word in _first_words(phrase):
            if word == "*":
                suffix.append((fragment, cue))
            else:
                table.setdefault(word, []).append((rank, compiled, cue))
    ordered: _Table = {
        w: tuple((p, c) for _, p, c in sorted(v, key=lambda t: -t[0])) for w, v in table.items()
    }
    suffix_re = re.compile(
        "|".join(f"(?P<s{i}>{f})" for i, (f, _) in enumerate(suffix)) + r"(?![\w'’-])",
        re.IGNORECASE,
    )
    return ordered, suffix_re, tuple(c for _, c in suffix)


_TABLE, _SUFFIX_RE, _SUFFIX_CUES = _compile_lexicon()


# A fact that says it is not part of the story: a suspect ruled out, a change that made no
# difference.
RULED_OUT = re.compile(
    r"\b(?:ruled out|not the (?:cause|culprit|problem|issue|reason)|red herring|made no "
    r"difference|(?:did not|didn't|does not|doesn't) (?:change|help|fix|matter|explain)|"
    r"changed nothing|no effect on|unrelated|ausgeschlossen|nichts geändert|écartée?s?|"
    r"rien changé|descartad[oa]s?|no cambió nada|uitgesloten|esclus[oa]|nada mudou)\b",
    re.IGNORECASE,
)
