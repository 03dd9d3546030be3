"""Standing rules in a sentence: what a user lays down for a project ("house rules", "from
now on", "never ...", "don't use X", "X only") and the binding constraints an assistant states
while solving something else ("Safari 15.1 is our floor", "the cap is 40 credits/day").

Patterns only, so that both the prompt block (``memory.prompt.rules``, which gives the rules a
share of the budget) and the write path (``memory.write.ingest``, whose weakest update rule
never retires a rule) read a rule the same way.
"""

from __future__ import annotations

import re

__all__ = [
    "HABIT", "HOUSE", "IMPERATIVE", "NOT_RULE", "REDO", "REJECTS", "RULE", "RULE_OTHER",
    "RULE_SAID", "SCOPED",
    "is_correction", "is_rule", "is_standing", "said_rule",
]

# A rule by its fixed words: "house rules", "from now on", "we prefer", "named exports only",
# "is our floor", "before you tell me it's done"; and their equivalents in other languages
# ("ab jetzt", "désormais", "d'ora in poi", "bundan sonra", "今後").
RULE = re.compile(
    r"\b(house (rules?|style)|rules?:|(standing|hard|house|one|two|more) rules?\b|from now on|"
    r"from here on|going forward|henceforth|for the future|in (the )?future|convention|"
    r"(we|i) (would |'d )?prefer|prefer(ably)? [\w\-.`]+( \w+)? over|"
    r"don't ever|before you (tell|say|report|mark)|is our floor|our policy|policy is|"
    r"budget is|at most|never exceed|cap(ped)? at|hard (limit|constraint|cap|ceiling|floor)|"
    # "400 credits a month, full stop", "no one merges to main without a review"
    r"full stop|no exceptions|(nobody|no one|no-one) \w+s\b[^.!?]{1,60}\bwithout\b|"
    # a budget the build enforces: "lets keep it there, fail ci if it grows past 1mb gz"
    r"fail (the )?(ci|build|pipeline|pr) (if|when)\b|keep (it|them) (there|under|below)\b|"
    # a constraint the user passes on: "pgbouncer stays in transaction mode, not up for
    # discussion", "so nothing that needs a sticky session pls"
    r"not up for (discussion|debate)|non-?negotiable|not negotiable|"
    r"nothing (that|which) (needs|uses|requires|relies on)\b[^.!?]{1,60}\b(pls|please|plz)|"
    r"[\w\-]+ only(?=[;.!,]|$)|keep (\w+ ){0,2}in\b|"
    r"ab jetzt|von nun an|(ab )?künftig|zukünftig|in zukunft|a partir de (ahora|agora)|"
    r"de ahora en adelante|de agora em diante|daqui (pra|para) frente|désormais|dorénavant|"
    r"à (partir de )?maintenant|d'ora in (poi|avanti)|da ora in poi|d'ora innanzi|"
    r"voortaan|vanaf nu|bundan (sonra|böyle)|artık hep|"
    # "don't use X" and "always use X", in the user's own words
    r"(bitte )?(verwende|benutze|nutze)[nt]? (nie|niemals|kein\w*|immer)|"
    r"(no|nunca) (uses|utilices|usar)|(usa|utiliza) siempre|siempre (usa|utiliza)|"
    r"n'utilise[sz]? (pas|jamais|plus)|ne (jamais|pas) utiliser|utilise[sz]? toujours|"
    r"(não|nunca) (use|usem|usar|utilize)|(use|usar) sempre|sempre (use|usar)|"
    r"non (usare|usate|utilizzare)|mai (usare|usate)|usa(te)? sempre|"
    r"gebruik (geen|nooit|altijd)|"
    r"kullanma(yın|yalım)?|asla kullan\w*|her zaman kullan\w*|"
    # pl, cs, sv, id, ru
    r"od (teraz|tej pory|dziś)|odtąd|nie używaj\w*|zawsze używaj\w*|nigdy nie używaj\w*|"
    r"od (teď|ted|nynějška)|odteď|nadále|nepoužívej\w*|vždy použ\w*|nikdy nepouž\w*|"
    r"från och med nu|hädanefter|framöver|använd (aldrig|alltid|inte)|"
    r"mulai (sekarang|saat ini)|ke depan(nya)?|(jangan|tolong jangan) (pakai|gunakan|memakai|"
    r"menggunakan)|selalu (pakai|gunakan|memakai|menggunakan)|"
    r"с этого момента|впредь|отныне|(не|никогда не) используй\w*|всегда используй\w*)(?!\w)|"
    r"앞으로(는)?|이제부터|항상 (써|사용)|절대 (쓰지|사용하지)|(쓰지|사용하지) 마|"
    r"今後|これから(は|も)|以後|以后|今后|从现在开始|从今以后|必ず|絶対に|一律|永远不要|不要再|"
    r"使わない|使用しない|使うな|禁止|不要(用|使用)|别用|总是用|始终使用",
    re.I,
)
# A prohibition or a command that binds beyond this task, at the start of a clause (no subject
# before it: "Some owners never receive our texts" observes, "never import models directly"
# rules): "please don't use default exports", "no more sqlite in tests", "stop hand-writing
# ...", "always log the request id", "I never want gomock in this repo"; and "no [Required]
# attributes on domain entities", "no new Timecop in our specs". One whose object is a word
# pointing at this task's things ("Don't duplicate them.", "don't let it turn into a 400-file
# diff") binds only this task.
_CLAUSE = r"(?:^|[,;:(]\s*|\s[—–-]\s*|\b(?:and|also|btw|but|so|oh|plus|then)\b,?\s+)"
IMPERATIVE = re.compile(
    _CLAUSE + r"(?:please\s+)?(?:(?:don'?t|do not|never|always|avoid|no more|stop)\s+"
    r"(?!(?:know|think|see|understand|get|mind|worry|care|remember|forget)\b)"
    r"[\w\-.`']+\s+(?!(?:it|them|that|this|those|these|him|her|me|us)\b)[\w\-.`'\[]"
    r"|no (?:new |more )?[^\s,;.]+(?: [^\s,;.]+){0,3} (?:in|on|inside|outside|anywhere|unless|"
    r"except|under|for)\b)"
    r"|\b(?:i|we) (?:really )?(?:don't|do not|never) want\b|\bi want\b[^.;!?]{1,80}"
    r"(?:, not\b|instead of|rather than|\bonly\b)|\b(?:use|prefer|want) [^.;!?]{1,60}, not [\w@`]"
    r"|\b(?:use|prefer|want|pick|stick with|go with) [^.;!?]{1,60}instead of"
    r"|(?:please )?stop [\w\-]+ing\b"
    # "pls no argparse", "no print() — use jlog": a prohibition said in two words
    r"|\b(?:pls|plz|please) no [\w\-.`()]+|^\s*no [\w\-.`()]+ (?:pls|plz|please)\b"
    r"|\bno [\w\-.`()]+(?: [\w\-.`()]+)?\s*(?:[\u2014\u2013,;]|--?)\s*use\b",
    re.I,
)
# A scope over every such thing in the project, then what each must do: "anything that tests
# DB code should run against a real Postgres", "every new table uses ...", "all mapping goes
# in an IEntityTypeConfiguration", "anything that goes through a route belongs in
# spec/requests", "for any mailer you touch, make sure ..."; "in anything new use Kotest";
# not "every time the screen gets focus", nor "on all the app hosts so we get metrics".
SCOPED = re.compile(
    r"\b(?:in (?:any|every)thing new|in (?:all |any )?new (?:code|files?|modules?|components?|"
    r"tests?|endpoints?|services?|migrations?|screens?|classes|\w+s)\b|by default\b|"
    r"(?:anywhere|in (?:this|our|the) (?:repo|repository|codebase|project|code|specs|tests))"
    r"(?=[^.;!?]*\b(?:no|never|don't|not|only)\b)|"
    r"(?:every|each|all|any|anything|everything)\b(?! (?:time|day|night|week|hour|morning|"
    r"evening|more|longer|of (?:it|them|us)|at once)\b) "
    r"(?:(?!(?:so|which|because|when|if|and|but|then|to)\b)[^\s.;!?]+ ){0,8}"
    r"(?:should|must|shall|has to|have to|needs? to|goes (?:in|into|under|through|to)\b|"
    r"go (?:in|into|under|through)\b|belongs?\b|lives? (?:in|under)\b|gets?\b|uses?\b|"
    r"stays?\b|comes? with\b|requires?\b)|"
    # "every CLI in this repo is typer", "CLIs go in oakhaven/cli/", "scripts/ is only for
    # one-off ops stuff": where a kind of thing lives, or what it is, in this project
    r"(?:every|each|all|any)\b[^.;!?]{1,40}\bin (?:this|our|the) (?:repo|repository|codebase|"
    r"project)\b[^.;!?]{0,12}\b(?:is|are)\b|"
    r"^[A-Za-z][\w\-]*s (?:go|live|belong) (?:in|into|under) [\w\-./<>`]+/|"
    r"(?:^|\s)`?[\w\-.]+/`? (?:is|are) only for\b|"
    r"(?:for|in|on|with) (?:any|every|each|all) [\w\- ]{1,40}?,? (?:please )?(?:make sure|"
    r"ensure|remember to|always)|lives? in one place|"
    # a convention scoped to an area, as an imperative: "In tests, query elements by role",
    # "For migrations, always write a down step", "In the API layer, wrap errors ..."
    r"(?:^|[.;]\s+)(?:in|for|inside|within|across) (?:all |every |any |our |the |new )?"
    r"[\w\-/.`' ]{2,30}?,\s*(?:please\s+)?(?:always\s+)?(?:use|query|put|keep|prefer|name|"
    r"write|call|wrap|add|avoid|import|pass|return|log|throw|raise|mock|stub|select|assert|"
    r"mark|place|store|format|sort|group|build|create|define|declare|render|handle|catch|"
    r"fetch|load|go through|stick (?:to|with))\b|"
    # a tool the whole project is on: "we're on riverpod_generator everywhere"
    r"\bwe(?:'re| are)? (?:on|using|use) [^.;!?]{1,40}\beverywhere\b|"
    # a convention of the project in the first person: "we dont go through ActiveJob in this
    # app", "I never want gomock in this repo"; not "we don't have tests in this repo"
    r"\b(?:we|i) (?:don'?t|do not|never|always|only) (?!(?:have|had|know|see|get|got|need|"
    r"needed|think|understand|care|mind|remember)\b)[^.;!?]{1,60}?\b(?:in|on|for|across|inside)"
    r" (?:this|our|the) (?:app|apps|repo|repository|codebase|code ?base|project|code|service|"
    r"monorepo)\b)",
    re.I,
)
# The same rules in the other languages read (es, fr, de, nl, pt, it, tr): "regla para todo
# el repo: ...", "no llames perform/1 a mano", "pas de coroutines stp", "je veux plus voir de
# StartCoroutine", "et toujours annuler avec ...", "plus aucun texte en dur", "keine Mocks
# mehr", "nada de string solta"; "always"/"never" only at the start of a clause.
RULE_OTHER = re.compile(
    r"(?:^|[,;:(]\s*|\b(?:y|et|und|en|e|ve|ma|mais|pero|aber|maar)\s+)(?:siempre|nunca|toujours|"
    r"jamais|immer|niemals|altijd|nooit|sempre|mai più|her zaman|asla)\s+\w+|"
    r"\b(?:reglas?|règles?|regeln?|regras?|regol[ae]|kurall?ar?)\b[^.!?]{0,30}:|"
    r"\b(?:para todo el|en todo el|dans tout le|im ganzen|in de hele|em todo o|in tutto il|"
    r"bütün|tüm)\s+(?:repo|repositorio|proyecto|projet|projekt|project|projeto|progetto|proje|"
    r"código|code|codebase|codice)\b|"
    r"\bno (?:quiero|me gusta)\b|\bno (?:llames|uses|metas|pongas|hagas|escribas|añadas|"
    r"agregues)\b|\bnada de\b|\bno más\b|"
    r"\bpas de [\w\-]+(?: \w+)? (?:stp|svp|s'il te pla[iî]t)\b|\bplus aucun\b|"
    r"\b(?:je|on) (?:ne )?veu[xt] (?:plus|pas)\b|\bn'utilise\w* plus\b|"
    # at the start of a clause: not "wir haben kein Budget mehr"
    r"(?:^|[,;:(]\s*)(?:kein(?:e|en)? [\w\-.]+ mehr|geen [\w\-.]+ meer)\b|"
    r"\b(?:ich|wir) (?:will|wollen) (?:kein|nicht)|\b(?:ik|we) wil(?:len)? (?:geen|niet)\b|"
    r"\bnão quero\b|\bnunca mais\b|\bnon voglio\b|\bniente più\b|"
    r"\bistemiyorum\b|\bkullanmayalım\b|\byerine [\w\-.`]+ kullan\w*|"
    # "always" closing the clause, "toda mutação vinda de página é form action, sempre." (not
    # in English, where "it fails, always" reports)
    r",\s*(?:siempre|sempre|toujours|immer|altijd|her zaman|zawsze|всегда)[.!]?\s*$|"
    r"\b(?:não|nao) (?:faz|faça|faca|crie|cria|use)\b|\bno hagas\b|\bne fais pas\b",
    re.I,
)
# A habit of the team, in the first person: "we always stub HTTP with Req.Test", "vi stubbar
# alltid med Req.Test", "wir deployen nie freitags", "usamos siempre pnpm"; not what the team
# has, had or ran into ("we always had flaky specs", "wir haben immer Ärger mit ...").
_HAVE = (r"(?:have|had|has|get|got|found|saw|see|hit|ran|run|know|knew|seem|think|thought|"
         r"haben|hatten|hat|sind|waren|hebben|hadden|zijn|har|hade|var|är|er|fikk|fick|"
         r"avons|avions|sommes|étions|a|avait|est|était|tenemos|teníamos|temos|tínhamos|estamos|estábamos|"
         r"abbiamo|avevamo|siamo|eravamo|mamy|mieliśmy|jesteśmy)\b")
HABIT = re.compile(
    rf"\bwe (?:always|never|only) (?!{_HAVE})(?!\w+ed\b)[a-z][\w\-]+|"
    rf"\b(?:wir|we|wij|vi|nous|on) (?:ne )?(?!{_HAVE})\w+ (?:immer|nie|niemals|grundsätzlich|"
    r"altijd|nooit|alltid|aldrig|altid|aldri|toujours|jamais)\b|"
    rf"\b(?!{_HAVE})\w+(?:amos|emos|imos|iamo) (?:siempre|nunca|sempre|mai)\b|"
    r"\bgilt für (?:alles|alle)\b",
    re.I,
)
# Where a turned-down piece of work is told how things are done here: a scope ("aqui",
# "hos oss", "bei uns", "in this repo"), a habit ("always", "immer", "alltid") or an
# obligation ("must", "moet", "muss", "måste").
HOUSE = re.compile(
    r"\b(?:here|in this (?:repo|repository|project|codebase|code ?base|app)|aqui|aquí|acá|ici|"
    r"chez nous|hier|bei uns|bij ons|hos oss|här|da noi|u nas|tutaj|bizde|burada|"
    r"always|never|alltid|aldrig|immer|nie|niemals|altijd|nooit|toujours|jamais|siempre|nunca|"
    r"sempre|zawsze|nigdy|asla|must|has to|have to|should|moet|moeten|muss|müssen|soll|doit|"
    r"doivent|faut|deve|devem|debe|deben|tiene que|tem que|måste|ska|skall|skal|musi|muszą|"
    r"gerek\w*|zorunda)(?!\w)|ここでは|うちでは|我们这里|这里|여기서는|우리는|必须|べき",
    re.I,
)


# Not a rule: "I never asked for that", "we always had ...", a question.
NOT_RULE = re.compile(r"\b(i|we|you|they|it) (never|always) \w+ed\b|\?\s*$", re.I)
# A binding constraint in the assistant's words, found while solving something else ("Safari
# 15.1 is our floor", "the binary must stay under 8 MB", "Finance's cap ... is 40 credits/day").
RULE_SAID = re.compile(
    r"\b(rules? (for|in) (this|our|the) (repo|project|codebase)|is our (floor|ceiling|limit)|"
    r"our policy|policy is|the convention|convention is|(must|has to|have to) stay|"
    r"hard (limit|requirement|constraint)|constraint is|not up for (discussion|debate)|"
    r"non-?negotiable|treat [^.!?]{1,50} as a (hard |fixed |firm )?(constraint|requirement)|"
    r"(cap|limit|budget|quota|floor|ceiling)( for [\w\s\-']{1,40})? is (\$?\d|at)|"
    r"never exceed|at most \d|"
    # a version pin the project is held to: "nothing in this repo may need a Terraform newer
    # than 1.8.5", "we're stuck on 1.8 until the upgrade lands", "the pin stays at ~> 1.8"
    r"nothing (\w+ ){0,4}(may|can|must|should) (need|use|require|exceed)|"
    r"\b(no|not) newer than\b|\bnewer than v?\d[\w.]* (is|are) out\b|"
    r"(pin|pinned|stuck) (on|at|to) [~>=^ ]*v?\d|"
    # "stays at" a version, not a reading: "the pin stays at ~> 1.8", not "stays at 0 for 2 s"
    r"stays? (on|at) ([~>=^]+ ?v?\d|v\d|\d+\.\d+\b(?!\s*(?:(?:s|ms|sec|seconds|[kmgt]i?b)\b|%)))|"
    # a ceiling or a floor said as such: "a hard ceiling of 192 KiB", "the maximum payload we
    # allow at SF10 is 51 bytes", "locked to iPadOS 16: they can't move to 17 until 2027",
    # "nothing iOS 17-only without a fallback"
    r"(hard |upper |lower )?(ceiling|floor) of \d|"
    r"(maximum|max|minimum|min|largest|biggest|smallest) [\w\-/ ]{1,30}"
    r"(we allow|allowed|permitted|supported)|can'?t (move|go|upgrade|switch|update) to "
    r"[\w.\- ]{1,20} until|nothing [\w.\- ]{1,20}-only|"
    # a requirement over every such thing: "every POST that moves money now requires an
    # Idempotency-Key header", "all public endpoints must go through the rate limiter"
    r"(every|each|all|any) [\w\-/` ]{1,60}? (now )?(requires?|must|has to|have to|"
    r"needs? to|goes through|go through)\b)",
    re.I,
)


# A correction of the agent's work, in any language: the user turns it down ("no.", "nope,",
# "nej,", "nein,", "non non,") and asks for it again ("redo", "gör om", "refais", "rifallo").
# What the turn says in between is how things are done here, whatever its words.
REJECTS = re.compile(
    r"^\s*(?:(?:no|nope|nah|nej|nein|non|nee|não|nao|hayır|nie|ne|не|нет|ні|아니요|아니|いや|"
    r"違う|不是|不对)\b[\s,]*)+[.,!:;\u2014\u2013-]",
    re.I,
)
REDO = re.compile(
    r"\b(?:redo|re-do|do it again|rewrite it|start over|gör om|gör det igen|mach (?:es|das) "
    r"(?:nochmal|neu)|nochmal|noch einmal|refais|refaites|refaz|refaça|rehaz\w*|vuelve a "
    r"hacerlo|opnieuw|doe het over|rifa\w*|przerób|zrób to jeszcze raz|predělej|udělej to znovu|"
    r"переделай\w*|перероби\w*|yeniden yap\w*|tekrar yap\w*|ulangi|buat ulang)(?!\w)|"
    r"やり直\w*|作り直\w*|重做|重写|重新写|다시 (?:해|작성|만들)",
    re.I,
)


def is_correction(turn: list[str]) -> bool:
    """Whether a user turn (its sentences in order) turns down the agent's work and asks for
    it again, or says how such work is done here ("não, aqui é minitest com fixtures", "nee.
    naam moet oh-<env>-... zijn"): the turn then lays down how it is done in this project."""
    return bool(turn) and REJECTS.match(turn[0]) is not None and any(
        REDO.search(t) or HOUSE.search(REJECTS.sub("", t, count=1)) for t in turn
    )


def is_rule(text: str) -> bool:
    """Whether ``text`` lays down a standing rule (a fixed phrase or general words)."""
    found = (RULE.search(text) or IMPERATIVE.search(text) or SCOPED.search(text)
             or RULE_OTHER.search(text) or HABIT.search(text))
    return bool(found) and not NOT_RULE.search(text)


def said_rule(text: str) -> bool:
    """Whether ``text`` states a binding constraint in passing ("Safari 15.1 is our floor")."""
    return RULE_SAID.search(text) is not None and not NOT_RULE.search(text)


def is_standing(text: str) -> bool:
    """A standing rule, or a binding constraint stated in passing."""
    return is_rule(text) or said_rule(text)
