"""BLITZ action cards and the BLITZ card: which plays are legal, the Blocca window and chain,
and what Ruba x1, Scambia x1 and the BLITZ card do (rules 5.1-5.6 and 6).

Functions of the game state (state.BlitzState), kept apart so that each module stays small.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from pipeline.engine.core import Action

from .cards import BLITZ, BLOCCA, PESCA, RAINBOW, RUBA, SCAMBIA, collection_key, plan_keys
from .decisions import LET, MAIN, RESPOND, SWAP

if TYPE_CHECKING:
    from .state import BlitzState


def plays(s: BlitzState, p: int, d: int, role: int) -> list[Action]:
    """The legal ways to play card `d`: only with an effect that applies (5.1)."""
    if role == PESCA:
        return [("gioca", d)] if s.deck else []
    opponents = s.rivals[p]
    if role == RUBA:
        return [("gioca", d, q, k) for q in opponents for k in sorted({k for k, _ in s.comp[q]})]
    if role == SCAMBIA:
        out: list[Action] = []
        for q in opponents:
            if len(s.hands[p]) > 1 and s.hands[q]:
                out.append(("gioca", d, q, "mano"))
            out += [("gioca", d, q, "tavolo", *swap) for swap in table_swaps(s, p, q)]
        return out
    if role == BLITZ and s.comp[p]:
        with_loose = [q for q in opponents if s.loose[q]]
        if len(with_loose) > 2:
            return [("gioca", d, pair) for pair in combinations(with_loose, 2)]
        return [("gioca", d, tuple(with_loose))]
    return []


def table_swaps(s: BlitzState, p: int, q: int) -> list[tuple[int, int, int]]:
    """(my type, their source, their type): source -1 is a loose card, else the key of a
    complete collection; two cards of one type change nothing and are no swap."""
    mine = s._type_counts(p)
    theirs: list[tuple[int, int]] = sorted({(-1, s.inst.type[c]) for c in s.loose[q]})
    for key in sorted({k for k, _ in s.comp[q]}):
        theirs += [(key, t) for t in (range(4) if key == RAINBOW else (key,))]
    keep = s.blitz_mode and bool(s.comp[p])  # 6.3: keep one complete collection
    out = []
    for mt in range(4):
        if not mine[mt]:
            continue
        for src, tt in theirs:
            if tt == mt:
                continue
            if keep:
                after = mine[:]
                after[mt] -= 1
                after[tt] += 1
                if not plan_keys(tuple(after)):
                    continue
            out.append((mt, src, tt))
    return out


# -- actions against an opponent and the Blocca window (5.3-5.6) -------------------------


def open_window(s: BlitzState, against: int) -> None:
    """Offer a Blocca, in seat order after the card on top, to every player of the side
    attacked who holds one (rulings blitz-blocca-due-secondi, blitz-finestra-del-blocca)."""
    top = s.chain[-1][0]
    team = s.team[against]
    role = s.inst.role
    n = s.num_players
    s.responders = [
        q
        for q in ((top + i) % n for i in range(1, n + 1))
        if s.team[q] == team and any(role[c] == BLOCCA for c in s.hands[q])
    ]
    if s.responders:
        s.phase = RESPOND
    else:
        resolve(s)


def respond(s: BlitzState, action: Action) -> None:
    q = s.responders[0]
    if action == LET:
        s._log("let", q)
        s.responders.pop(0)
        if not s.responders:
            resolve(s)
        return
    role = s.inst.role
    c = min(c for c in s.hands[q] if role[c] == BLOCCA)
    s.hands[q].remove(c)
    s.discards.append(c)
    against = s.chain[-1][0]
    s.chain.append((q, c))
    s._log("block", q, (c, against))
    open_window(s, against)


def resolve(s: BlitzState) -> None:
    """5.6: from the top, every card cancels the one below unless it is cancelled itself;
    each player with a cancelled card skips their next turn, once."""
    blocks = len(s.chain) - 1
    losers = sorted({q for i, (q, _) in enumerate(s.chain) if (blocks - i) % 2 == 1})
    for q in losers:
        s.skip[q] = True
    effective = blocks % 2 == 0
    s._log("resolve", s.chain[0][0], (effective, tuple(losers)))
    s.chain, s.responders = [], []
    s.phase = MAIN
    s._player = s.turn_player
    if effective:
        effect(s, s.turn_player, s.chain_action)


def effect(s: BlitzState, p: int, action: Action) -> None:
    c_role = s.rules.table.role[action[1]]
    q = action[2]
    if c_role == RUBA:
        i = next(i for i, (k, _) in enumerate(s.comp[q]) if k == action[3])
        key, cards = s.comp[q].pop(i)
        s.comp[p].append((key, cards))
        s._log("steal", p, (q, key, cards))
        s._arrange(p)
        s._check_win(p)
    elif action[3] == "mano":
        if s.hands[p] and s.hands[q]:
            s._log("reveal", q, (q, tuple(sorted(s.hands[q]))))
            s.swap_target = q
            s.phase = SWAP
        else:  # a Blocca answered by the attacker left a hand empty
            s._log("fizzle", p, (action[1],))
    else:
        swap_tables(s, p, q, *action[4:])


def swap_tables(s: BlitzState, p: int, q: int, mine: int, src: int, theirs: int) -> None:
    kind = s.inst.type
    mine_card = next((c for c in s.loose[p] if kind[c] == mine), -1)
    if mine_card >= 0:
        s.loose[p].remove(mine_card)
    else:  # from a complete collection: the rest is regrouped below
        i = next(i for i, (_, cs) in enumerate(s.comp[p]) if any(kind[c] == mine for c in cs))
        _, cards = s.comp[p].pop(i)
        mine_card = next(c for c in cards if kind[c] == mine)
        s.loose[p] += [c for c in cards if c != mine_card]
    broke = False
    if src < 0:
        took = next(c for c in s.loose[q] if kind[c] == theirs)
        s.loose[q].remove(took)
        s.loose[q].append(mine_card)
    else:  # the card takes the other's place in that collection (5.3)
        i = next(i for i, (k, _) in enumerate(s.comp[q]) if k == src)
        _, cards = s.comp[q].pop(i)
        took = next(c for c in cards if kind[c] == theirs)
        group = tuple(sorted([c for c in cards if c != took] + [mine_card]))
        key = collection_key([kind[c] for c in group])
        if key >= 0:
            s.comp[q].append((key, group))
        else:
            s.loose[q] += group
            broke = True
    s.loose[p].append(took)
    s._log("swap_table", p, (q, mine_card, took, broke))
    s._arrange(p)


def swap_options(s: BlitzState) -> list[Action]:
    card = s.inst.card
    p, q = s.turn_player, s.swap_target
    takes = sorted({card[c] for c in s.hands[q]})
    gives = sorted({card[c] for c in s.hands[p]})
    return [("scambia", t, g) for t in takes for g in gives]


def swap_hands(s: BlitzState, action: Action) -> None:
    p, q = s.turn_player, s.swap_target
    took = s._from_hand(q, action[1])
    gave = s._from_hand(p, action[2])
    s.hands[p].append(took)
    s.hands[q].append(gave)
    s._log("swap_hand", p, (q, took, gave))
    s.swap_target = -1
    s.phase = MAIN


# -- the BLITZ card (6) --------------------------------------------------------------------


def blitz(s: BlitzState, p: int, c: int, targets: tuple[int, ...]) -> None:
    taken: list[int] = []
    for q in targets:
        taken += s.loose[q]
        s.loose[q] = []
    s.shown.append(c)
    s.loose[p] += taken
    s.blitz_mode = True
    s._log("blitz", p, (targets, tuple(taken)))
    s._arrange(p)
