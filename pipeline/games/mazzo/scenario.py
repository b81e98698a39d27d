"""Mazzo's vocabulary for worked examples (scenario format 2), its figures and invariants.

A position gives each player's hand and bottino by card code, the reserve from its top
card down, who attacks, and optionally the cards a blind draw will find (``draws``). Cards
it does not place stay out of the game, like the rules card. Moves: ``{attack: code,
ability: forza}``, ``{open: code}``, ``{nonce: code}``, ``{believe: true}``,
``{doubt: true}``, ``{take: [code, code]}``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from pipeline.engine.core import Chance, Event
from pipeline.engine.plugin import FigureTable

if TYPE_CHECKING:
    from .engine import MazzoState

POSITION_KEYS = {"hands", "bottini", "riserva", "attacker", "turn", "draws"}
CARD_FIELDS = {"card", "other"}
EXPECT_KEYS = ("hands", "bottino", "bottini", "riserva", "attacker", "turn", "known")


def rate(successes: int, trials: int) -> dict[str, float]:
    """A rate cell of a figure table, with its 95% Wilson interval."""
    from pipeline.simulate import wilson

    low, high = wilson(successes, trials)
    return {"rate": successes / trials if trials else 0.0, "low": low, "high": high, "n": trials}


class ScenarioMixin:
    """ScenarioHooks, FigureHooks and InvariantHooks of the Mazzo rules."""

    codes: list[str]

    # -- scenarios ------------------------------------------------------------------------------

    def setup(
        self,
        position: Mapping[str, Any],
        players: int = 2,
        options: Mapping[str, Any] | None = None,
    ) -> MazzoState:
        from .engine import HAND, MazzoState

        unknown = set(position) - POSITION_KEYS
        if unknown:
            raise ValueError(f"unknown position keys: {', '.join(sorted(unknown))}")
        if players != 2:
            raise ValueError("Mazzo is a game for 2 players")
        state = MazzoState(self, Chance(0))  # type: ignore[arg-type]
        used: set[int] = set()

        def cards(key: str, codes: Any) -> list[int]:
            if not isinstance(codes, list):
                raise ValueError(f"{key}: a list of card codes")
            out = [self.card(str(code)) for code in codes]  # type: ignore[attr-defined]
            for c in out:
                if c in used:
                    raise ValueError(f"{key}: {self.codes[c]} is placed twice")
                if not self.in_play[c]:  # type: ignore[attr-defined]
                    raise ValueError(f"{key}: {self.codes[c]} does not take part in the game")
                used.add(c)
            return out

        for key in ("hands", "bottini"):
            sides = position.get(key, [[], []])
            if not isinstance(sides, list) or len(sides) != 2:
                raise ValueError(f"{key}: two lists, one per player")
            getattr(state, key)[:] = [cards(f"{key}[{p}]", s) for p, s in enumerate(sides)]
        if any(len(h) > HAND for h in state.hands):
            raise ValueError(f"hands: at most {HAND} cards each")
        state.reserve = cards("riserva", position.get("riserva", []))[::-1]
        state.draws = [self.card(str(c)) for c in position.get("draws", [])]  # type: ignore[attr-defined]
        state.out = [c for c in range(len(self.codes)) if c not in used]
        attacker = position.get("attacker", 1)
        if attacker not in (1, 2):
            raise ValueError("attacker: 1 or 2")
        state.attacker = attacker - 1
        state.turn = int(position.get("turn", 1)) - 1
        state._start_turn()
        state._auto()
        return state

    def parse_action(self, state: MazzoState, spec: Mapping[str, Any]) -> tuple[Any, ...]:
        from .engine import ABILITIES

        spec = {k: v for k, v in spec.items() if k not in ("by", "if_asked")}
        if "attack" in spec:
            ability = spec.get("ability")
            if ability not in ABILITIES:
                raise ValueError(f"attack: ability is one of {', '.join(ABILITIES)}")
            action: tuple[Any, ...] = (
                "attack",
                self.card(str(spec["attack"])),  # type: ignore[attr-defined]
                ABILITIES.index(ability),
            )
        elif set(spec) in ({"open"}, {"nonce"}):
            kind = next(iter(spec))
            action = (kind, self.card(str(spec[kind])))  # type: ignore[attr-defined]
        elif spec in ({"believe": True}, {"doubt": True}):
            action = (next(iter(spec)),)
        elif set(spec) == {"take"} and isinstance(spec["take"], list):
            picked = sorted(self.card(str(c)) for c in spec["take"])  # type: ignore[attr-defined]
            action = ("take", *picked)
        else:
            raise ValueError(f"not a Mazzo move: {dict(spec)}")
        if action not in state.legal_actions():
            raise ValueError(f"{dict(spec)} is not legal now ({state.decision_kind()})")
        return action

    def describe_action(self, state: MazzoState, action: tuple[Any, ...]) -> dict[str, Any]:
        from .engine import ABILITIES

        kind = action[0]
        if kind == "attack":
            return {"attack": self.codes[action[1]], "ability": ABILITIES[action[2]]}
        if kind in ("open", "nonce"):
            return {kind: self.codes[action[1]]}
        if kind == "take":
            return {"take": [self.codes[c] for c in action[1:]]}
        return {kind: True}

    def describe_event(self, event: Event) -> dict[str, Any]:
        from .engine import ABILITIES, EVENT_FIELDS

        out: dict[str, Any] = {"kind": event.kind, "player": event.player + 1}
        for name, value in zip(EVENT_FIELDS.get(event.kind, []), event.args, strict=False):
            if name in CARD_FIELDS:
                value = self.codes[value]
            elif name == "cards":
                value = [self.codes[c] for c in value]
            elif name == "ability":
                value = ABILITIES[value] if value >= 0 else None
            elif name == "winner":
                value = value + 1  # 0: nobody (a tie, a draw)
            elif name == "action" or isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out

    def check(self, state: MazzoState, key: str, want: Any) -> list[str]:
        def codes(cards: Sequence[int]) -> list[str]:
            return sorted(self.codes[c] for c in cards)

        got: Any
        if key == "hands":
            got = {p + 1: codes(state.hands[p]) for p in (0, 1)}
            want = {int(p): sorted(v) for p, v in want.items()}
            got = {p: got[p] for p in want}
        elif key == "bottino":
            got = {p + 1: codes(state.bottini[p]) for p in (0, 1)}
            want = {int(p): sorted(v) for p, v in want.items()}
            got = {p: got[p] for p in want}
        elif key == "bottini":
            got = [len(b) for b in state.bottini]
        elif key == "riserva":
            got = len(state.reserve)
        elif key == "attacker":
            got = state.attacker + 1
        elif key == "turn":
            got = state.turn
        elif key == "known":
            got = {
                p + 1: codes([c for c in state.hands[1 - p] if state.seen[p] >> c & 1])
                for p in (0, 1)
            }
            want = {int(p): sorted(v) for p, v in want.items()}
            got = {p: got[p] for p in want}
        else:
            return [f"unknown expectation {key!r} (known: {', '.join(EXPECT_KEYS)})"]
        return [] if got == want else [f"{key}: expected {want!r}, got {got!r}"]

    def expect_keys(self) -> Sequence[str]:
        return EXPECT_KEYS

    # -- figures --------------------------------------------------------------------------------

    def summarize(self, state: MazzoState) -> dict[str, Any]:
        """One game: who attacked first, the defences, the Mazziere, the bottini, and per
        character the turns it was played in and whether its player won the game."""
        first = next(e.player for e in state.log if e.kind == "first")
        start = [
            next(e.args[0] for e in state.log if e.kind == "deal" and e.player == p) for p in (0, 1)
        ]
        mazz = self.mazziere  # type: ignore[attr-defined]
        outcome = state.outcome()
        winners = list(outcome.winners) if outcome else []
        played: list[list[int]] = [[], []]
        attacker = first
        for e in state.log:
            if e.kind == "turn":
                attacker = e.player
            elif e.kind in ("clash", "doubt", "last_card"):
                cards = e.args[:2] if e.kind != "doubt" else e.args[:1]
                for i, c in enumerate(cards):
                    if not mazz[c]:
                        played[attacker if i == 0 else 1 - attacker].append(self.codes[c])
        defences = [(h[1], h[2], h[3]) for h in state.history if h[1] == "nonce"]
        return {
            "first": first,
            "winners": winners,
            "how": outcome.how if outcome else "",
            "bottini": [len(b) for b in state.bottini],
            "mazziere_start": [p for p in (0, 1) if any(mazz[c] for c in start[p])],
            "mazziere_bottino": [p for p in (0, 1) if any(mazz[c] for c in state.bottini[p])],
            "nonce": len(defences),
            "bluffs": sum(1 for d in defences if d[2] == 1),
            "bluffs_doubted": sum(1 for d in defences if d[1] == "doubt" and d[2] == 1),
            "doubts": sum(1 for d in defences if d[1] == "doubt"),
            "doubts_right": sum(1 for d in defences if d[1] == "doubt" and d[2] == 1),
            "played": played,
        }

    def figures(
        self, summaries: Sequence[Mapping[str, Any]], players: int = 2
    ) -> list[FigureTable]:
        n = len(summaries)
        tables = [self._starts(summaries, n), self._bluffs(summaries), self._mazziere(summaries, n)]
        sizes = Counter(s for g in summaries for s in g["bottini"])
        tables.append(
            FigureTable(
                "bottini",
                "Dimensione dei bottini a fine partita (entrambi i giocatori)",
                ("carte", "bottini"),
                tuple((size, sizes[size]) for size in range(min(sizes), max(sizes) + 1))
                if sizes
                else (),
                chart="histogram",
            )
        )
        tables.append(self._characters(summaries))
        return tables

    def _starts(self, summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
        first = sum(1 for g in summaries if g["first"] in g["winners"])
        draws = sum(1 for g in summaries if not g["winners"])
        return FigureTable(
            "primo-attacco",
            "Chi attacca per primo",
            ("chi", "vittorie"),
            (
                ("chi attacca per primo", rate(first, n)),
                ("chi difende per primo", rate(n - first - draws, n)),
                ("partite pari", rate(draws, n)),
            ),
            chart="bars",
        )

    def _bluffs(self, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
        total = {
            k: sum(g[k] for g in summaries)
            for k in ("nonce", "bluffs", "bluffs_doubted", "doubts", "doubts_right")
        }
        return FigureTable(
            "bluff",
            "Bluff e dubbi",
            ("che cosa", "quota"),
            (
                ("«non ce l'ho» che erano bluff", rate(total["bluffs"], total["nonce"])),
                ("bluff a cui si è detto «dubito»", rate(total["bluffs_doubted"], total["bluffs"])),
                ("«dubito» giusti", rate(total["doubts_right"], total["doubts"])),
            ),
            chart="bars",
        )

    def _mazziere(self, summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
        def won(key: str) -> tuple[int, int]:
            games = [g for g in summaries if g[key]]
            return sum(1 for g in games if g[key][0] in g["winners"]), len(games)

        start_won, start_n = won("mazziere_start")
        loot_won, loot_n = won("mazziere_bottino")
        instant = sum(1 for g in summaries if g["how"] == "mazziere")
        return FigureTable(
            "mazziere",
            "Quanto vale il Mazziere",
            ("chi", "vittorie"),
            (
                ("chi ha il Mazziere nella mano iniziale", rate(start_won, start_n)),
                ("chi ha il Mazziere nel bottino a fine partita", rate(loot_won, loot_n)),
                ("partite vinte pescando il Mazziere", rate(instant, n)),
            ),
            chart="bars",
        )

    def _characters(self, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
        plays: Counter[str] = Counter()
        wins: Counter[str] = Counter()
        for g in summaries:
            for p in (0, 1):
                for code in g["played"][p]:
                    plays[code] += 1
                    wins[code] += p in g["winners"]
        names = dict(zip(self.codes, self.names, strict=True))  # type: ignore[attr-defined]
        rows = [
            (names[c], plays[c], rate(wins[c], plays[c]))
            for c in dict.fromkeys(self.codes[i] for i in self.characters)  # type: ignore[attr-defined]
        ]
        return FigureTable(
            "personaggi",
            "Personaggi: partite vinte da chi li ha giocati",
            ("personaggio", "giocato", "vittorie"),
            tuple(sorted(rows, key=lambda row: -row[2]["rate"])),
            chart="bars",
        )

    # -- invariants -----------------------------------------------------------------------------

    def invariants(self, state: MazzoState) -> list[str]:
        from .engine import HAND, OVER

        out = []
        if any(len(h) > HAND for h in state.hands):
            out.append(f"a hand holds more than {HAND} cards: {[len(h) for h in state.hands]}")
        if state.phase != OVER and (not state.hands[0] and not state.hands[1]):
            out.append("both hands are empty but the game goes on")
        outcome = state.outcome()
        if outcome and outcome.how != "mazziere" and state.reserve:
            out.append("the game ended by the count with cards left in the reserve")
        on_table = [c for c in (state.attacker_card, state.defender_card) if c >= 0]
        if state.phase in ("attack", "take") and on_table:
            out.append(f"cards left on the table at the {state.phase}: {on_table}")
        if state.turn and state.phase != OVER:
            turns = [e.player for e in state.log if e.kind == "turn"]
            if any(a == b for a, b in pairwise(turns)):
                out.append("the same player attacked two turns in a row")
        for p in (0, 1):
            stray = state.seen[p] & ~sum(1 << c for c in state.hands[1 - p])
            if state.phase == "attack" and stray:
                out.append(f"player {p + 1} 'knows' cards that are not in the other's hand")
        return out
