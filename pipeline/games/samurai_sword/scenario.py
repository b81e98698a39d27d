"""The Samurai Sword vocabulary of worked examples (scenario format 2): positions, moves and
the expectations only this game has. Players are 1..N here, cards are named by code.

A position::

    turno: 1              # whose turn it is, in its play phase (default: the Shogun)
    numero_turno: 3
    armi_giocate: 0
    giocatori:            # one per player, in seat order
      - {ruolo: shogun, personaggio: benkei, resistenza: 5, onore: 5, mano: [bokken],
         davanti: [armatura]}
    mazzo: [parata]       # the top of the deck, top card first
    scarti: [bokken]      # the discard pile, bottom first
    resto: mazzo          # where the other playing cards go: under the deck, or "scarti"

A move: ``gioca: CARD`` (with ``bersaglio: N`` and, for a Geisha, ``proprieta: CARD``),
``fine``, ``abilita``, ``scarta: CARD``, ``para: CARD``, ``subisci``, ``onore``,
``pesca: scarti|mazzo``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pipeline.engine.core import Action, Chance, Event

from .cards import Cards
from .state import ABILITY, END, HONOUR, TAKE, SamuraiState
from .table import EVENT_FIELDS

POSITION_KEYS = {
    "turno",
    "numero_turno",
    "armi_giocate",
    "giocatori",
    "mazzo",
    "scarti",
    "resto",
}
PLAYER_KEYS = {"ruolo", "personaggio", "resistenza", "onore", "mano", "davanti"}
EXPECT_KEYS = (
    "resistenza",
    "onore",
    "mano",
    "carte",
    "davanti",
    "indifesi",
    "distanza",
    "difficolta",
    "mazzo",
    "scarti",
    "punteggio",
    "turno",
    "ruoli_visti",
)
CARD_FIELDS = {"card"}
PLAYER_FIELDS = {"target", "to", "by", "from", "attacker"}


def _unknown(keys: Any, allowed: set[str], where: str) -> None:
    extra = sorted(set(keys) - allowed)
    if extra:
        raise ValueError(f"{where}: unknown key '{extra[0]}' (known: {', '.join(sorted(allowed))})")


def setup_position(cards: Cards, position: Mapping[str, Any], players: int) -> SamuraiState:
    """A state in the position a scenario describes; ValueError naming the wrong key."""
    _unknown(position, POSITION_KEYS, "position")
    seats = position.get("giocatori") or []
    if len(seats) != players:
        raise ValueError(
            f"position.giocatori: {len(seats)} players listed, the scenario has {players}"
        )
    state = SamuraiState(cards, players, Chance(0))
    pool = Counter(cards.deck)
    unused_roles = Counter(r for rs in cards.roles.values() for r in rs)
    unused_chars = Counter(cards.characters)

    def take(code: str, where: str, counter: Counter) -> int:
        try:
            c = cards.card(code)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if counter[c] <= 0:
            raise ValueError(f"{where}: no copy of '{code}' is left for this position")
        counter[c] -= 1
        return c

    for p, seat in enumerate(seats):
        where = f"position.giocatori[{p + 1}]"
        _unknown(seat, PLAYER_KEYS, where)
        if "ruolo" not in seat or "personaggio" not in seat:
            raise ValueError(f"{where}: give the player's ruolo and personaggio")
        state.role.append(take(seat["ruolo"], f"{where}.ruolo", unused_roles))
        state.char.append(take(seat["personaggio"], f"{where}.personaggio", unused_chars))
        state.maxres[p] = cards.resistance[state.char[p]]
        state.res[p] = int(seat.get("resistenza", state.maxres[p]))
        state.honour[p] = int(seat.get("onore", state.starting_honour(p)))
        state.hands[p] = [take(c, f"{where}.mano", pool) for c in seat.get("mano", [])]
        state.front[p] = [take(c, f"{where}.davanti", pool) for c in seat.get("davanti", [])]
    if sum(1 for p in range(players) if state.kind(p) == "shogun") != 1:
        raise ValueError("position.giocatori: exactly one player must be the Shogun")
    top = [take(c, "position.mazzo", pool) for c in position.get("mazzo", [])]
    state.discard = [take(c, "position.scarti", pool) for c in position.get("scarti", [])]
    rest = sorted(pool.elements())
    state.chance.shuffle("resto", rest)
    where_rest = position.get("resto", "mazzo")
    if where_rest == "mazzo":
        state.deck = rest + top[::-1]
    elif where_rest == "scarti":
        state.deck = top[::-1]
        state.discard = rest + state.discard
    else:
        raise ValueError("position.resto: use 'mazzo' or 'scarti'")
    state.aside = sorted(unused_roles.elements()) + sorted(unused_chars.elements())
    for p in range(players):
        state.log.append(
            Event(
                "setup",
                p,
                (
                    cards.code[state.role[p]],
                    cards.code[state.char[p]],
                    state.res[p],
                    state.honour[p],
                    len(state.hands[p]),
                ),
            )
        )
    active = int(position.get("turno", state.shogun() + 1)) - 1
    if not 0 <= active < players:
        raise ValueError(f"position.turno: player {active + 1} is not at the table")
    state.turns = int(position.get("numero_turno", 1))
    state.active = state.who = active
    state.weapons_used = int(position.get("armi_giocate", 0))
    return state


def _player(state: SamuraiState, value: Any, where: str) -> int:
    p = int(value) - 1
    if not 0 <= p < state.num_players:
        raise ValueError(f"{where}: player {value} is not at the table")
    return p


def parse_action(state: SamuraiState, spec: Mapping[str, Any]) -> Action:
    """The legal action a scenario step's ``play`` describes."""
    cards = state.cards
    spec = {k: v for k, v in spec.items() if k not in ("by", "if_asked")}
    action: Action
    if "gioca" in spec:
        _unknown(spec, {"gioca", "bersaglio", "proprieta"}, "play")
        c = cards.card(spec["gioca"])
        target = _player(state, spec["bersaglio"], "play.bersaglio") if "bersaglio" in spec else -1
        extra = cards.card(spec["proprieta"]) if "proprieta" in spec else -1
        if target < 0 and cards.kind[c] == "proprieta" and not cards.honour_test[c]:
            target = state.who
        action = ("gioca", c, target, extra)
    elif len(spec) != 1:
        raise ValueError(f"play: one move at a time, not {sorted(spec)}")
    else:
        ((key, value),) = spec.items()
        if key in ("scarta", "para"):
            action = (key, cards.card(value))
        elif key == "pesca":
            action = ("pesca", str(value))
        else:
            fixed = {"fine": END, "abilita": ABILITY, "subisci": TAKE, "onore": HONOUR}
            if key not in fixed:
                raise ValueError(f"play: unknown move '{key}'")
            action = fixed[key]
    if action not in state.legal_actions():
        legal = "; ".join(str(describe_action(state, a)) for a in state.legal_actions())
        raise ValueError(f"play: {dict(spec)} is not legal now (legal: {legal})")
    return action


def describe_action(state: SamuraiState, action: Action) -> dict[str, Any]:
    code = state.cards.code
    if action[0] == "gioca":
        _, c, target, extra = action
        out: dict[str, Any] = {"gioca": code[c]}
        if target >= 0 and not (
            state.cards.kind[c] == "proprieta" and not state.cards.honour_test[c]
        ):
            out["bersaglio"] = target + 1
        if extra >= 0:
            out["proprieta"] = code[extra]
        return out
    if action[0] in ("scarta", "para"):
        return {action[0]: code[action[1]]}
    if action[0] == "pesca":
        return {"pesca": action[1]}
    return {action[0]: True}


def describe_event(cards: Cards, event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": event.kind,
        "player": event.player + 1 if event.player >= 0 else None,
    }
    for name, value in zip(EVENT_FIELDS.get(event.kind, []), event.args, strict=False):
        if name in CARD_FIELDS and isinstance(value, int):
            value = cards.code[value] if value >= 0 else None
        elif name in PLAYER_FIELDS and isinstance(value, int):
            value = value + 1 if value >= 0 else None
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def _by_player(state: SamuraiState, want: Any, key: str) -> dict[int, Any]:
    if not isinstance(want, Mapping):
        raise ValueError(f"expect.{key}: give a mapping from player number to value")
    return {_player(state, p, f"expect.{key}"): v for p, v in want.items()}


def check(state: SamuraiState, key: str, want: Any) -> list[str]:
    """Failures of one Samurai Sword expectation, one line each."""
    cards, fails = state.cards, []

    def compare(what: str, got: Any, expected: Any) -> None:
        if got != expected:
            fails.append(f"{what}: expected {expected}, got {got}")

    if key in ("resistenza", "onore", "carte"):
        values = {
            "resistenza": state.res,
            "onore": state.honour,
            "carte": [len(h) for h in state.hands],
        }
        for p, v in _by_player(state, want, key).items():
            compare(f"{key} of player {p + 1}", values[key][p], int(v))
    elif key in ("mano", "davanti"):
        zone = state.hands if key == "mano" else state.front
        for p, v in _by_player(state, want, key).items():
            compare(f"{key} of player {p + 1}", sorted(cards.codes(zone[p])), sorted(v))
    elif key == "indifesi":
        got = [p + 1 for p in range(state.num_players) if state.harmless(p)]
        compare("harmless players", got, sorted(want))
    elif key in ("distanza", "difficolta"):
        measure = state.distance if key == "distanza" else state.difficulty
        for item in want:
            a, b = _player(state, item["da"], key), _player(state, item["a"], key)
            compare(f"{key} from {a + 1} to {b + 1}", measure(a, b), int(item["valore"]))
    elif key == "mazzo":
        compare("cards in the deck", len(state.deck), int(want))
    elif key == "scarti":
        compare("discard pile (bottom first)", cards.codes(state.discard), list(want))
    elif key == "punteggio":
        compare("team scores", state.team_scores(), dict(want))
    elif key == "turno":
        compare("player whose turn it is", state.active + 1, int(want))
    elif key == "ruoli_visti":
        for p, v in _by_player(state, want, key).items():
            seen = sorted(int(q) + 1 for q in state.observation(p)["roles"])
            compare(f"roles player {p + 1} sees", seen, sorted(v))
    else:
        raise ValueError(f"expect: unknown key '{key}' (known: {', '.join(EXPECT_KEYS)})")
    return fails
