"""A game of Samurai Sword: the deal, the turn and every card effect (legal actions and how
they resolve), over the table of ``table.py``.

Actions are small tuples: ``("gioca", card, target, extra)`` plays a card from the hand
(target -1 when there is none; extra is the property a Geisha discards, else -1),
``("abilita",)`` is Nobunaga's ability, ``("fine",)`` ends the turn, ``("scarta", card)``
discards (hand limit, Grido di battaglia, Jujitsu, Bushido), ``("para", card)`` parries a
weapon (a Parata, or a weapon for Hanzo), ``("subisci",)`` takes the wounds or the loss,
``("onore",)`` gives up the honour point of the Bushido test, ``("pesca", source)`` picks
Ieyasu's first draw ("scarti" or "mazzo"). Every effect is read from the card tables.
"""

from __future__ import annotations

from pipeline.engine.core import Action, IllegalAction

from .cards import DISCARD_ONE, FOR_ANOTHER, ON_ANYONE, ON_SELF, PLAIN, TAKE_ONE, WEAPON
from .table import EVENT_FIELDS, HAND_BY_SEAT, ROLES_BY_PLAYERS, SLUG, Table, event

END: Action = ("fine",)
TAKE: Action = ("subisci",)
HONOUR: Action = ("onore",)
ABILITY: Action = ("abilita",)
FROM_DISCARD: Action = ("pesca", "scarti")
FROM_DECK: Action = ("pesca", "mazzo")
HAND_LIMIT = 7  # rule 5.6


class SamuraiState(Table):
    """A game of Samurai Sword: the base game for 3 to 7 players (rules 4-9)."""

    slug = SLUG
    EVENT_FIELDS = EVENT_FIELDS

    __slots__ = ()

    # -- the deal (rules 4.1-4.4) --------------------------------------------------------

    def deal(self) -> None:
        n, cards = self.num_players, self.cards
        pool = []
        for name, chosen in cards.roles.items():
            count = ROLES_BY_PLAYERS[n].get(name, 0)
            if 0 < count < len(set(chosen)):  # e.g. two of the three Ninja, unseen (rule 3.2)
                kept = self.chance.sample(name, list(range(len(chosen))), count)
                self.aside += [chosen[i] for i in range(len(chosen)) if i not in kept]
                chosen = [chosen[i] for i in sorted(kept)]
            self.aside += chosen[count:]
            pool += chosen[:count]
        self.chance.shuffle("ruoli", pool)
        self.role = pool
        characters = list(cards.characters)
        self.chance.shuffle("personaggi", characters)
        self.char = characters[:n]
        self.aside += characters[n:]
        self.deck = list(cards.deck)
        self.chance.shuffle("mazzo", self.deck)
        shogun = self.shogun()
        for p in range(n):
            self.maxres[p] = self.res[p] = cards.resistance[self.char[p]]
            self.honour[p] = self.starting_honour(p)
        for seat in range(n):
            p = (shogun + seat) % n
            for _ in range(HAND_BY_SEAT[seat]):
                self.hands[p].append(self.deck.pop())
        for p in range(n):
            self.log.append(
                event(
                    "setup",
                    p,
                    (
                        cards.code[self.role[p]],
                        cards.code[self.char[p]],
                        self.res[p],
                        self.honour[p],
                        len(self.hands[p]),
                    ),
                )
            )
        self.log.append(event("shogun", shogun))
        self.begin_turn(shogun)

    # -- legal actions ---------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """The legal actions, computed once per decision (callers must not change the list)."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[Action]:
        if self.over:
            return []
        phase, p, cards = self.phase, self.who, self.cards
        hand = self.hands[p]
        if phase == "main":
            return self._main_actions(p)
        if phase == "scarto":
            return [("scarta", c) for c in sorted(set(hand))]
        if phase == "parata":
            out: list[Action] = [("para", c) for c in sorted(set(hand)) if cards.is_parry[c]]
            if self.ability(p).parata_con_arma and len(hand) > 1:
                out += [("para", c) for c in sorted(set(hand)) if cards.is_weapon[c]]
            return [*out, TAKE]
        if phase == "risposta":
            fits = self._required(self.ctx[1])
            return [*(("scarta", c) for c in sorted(set(hand)) if fits[c]), TAKE]
        if phase == "bushido":
            return [*(("scarta", c) for c in sorted(set(hand)) if cards.is_weapon[c]), HONOUR]
        return [FROM_DISCARD, FROM_DECK]  # "pesca": Ieyasu's choice

    def _main_actions(self, p: int) -> list[Action]:
        """Every card of the hand that can be played now, with each target it can take."""
        cards, n, hands = self.cards, self.num_players, self.hands
        codes = cards.play
        others = [(p + k) % n for k in range(1, n)]
        out: list[Action] = []
        targets: list[tuple[int, int]] | None = None
        for c in sorted(set(hands[p])):
            code = codes[c]
            if code == WEAPON:
                if targets is None:
                    targets = []
                    if self.weapons_used < self.weapon_limit(p):
                        targets = self.targets(p)
                        if self.ability(p).portata_illimitata:
                            targets = [(t, 0) for t, _ in targets]
                reach = cards.difficulty[c]
                out += [("gioca", c, t, -1) for t, need in targets if need <= reach]
            elif code == PLAIN:
                out.append(("gioca", c, -1, -1))
            elif code == ON_SELF:
                out.append(("gioca", c, p, -1))
            elif code == FOR_ANOTHER:
                out += [("gioca", c, t, -1) for t in others]
            elif code == TAKE_ONE:
                out += [("gioca", c, t, -1) for t in others if hands[t]]
            elif code == DISCARD_ONE:
                out += [("gioca", c, t, x) for t in range(n) for x in sorted(set(self.front[t]))]
                out += [("gioca", c, t, -1) for t in others if hands[t]]
            elif code == ON_ANYONE and not any(cards.honour_test[x] for f in self.front for x in f):
                out += [("gioca", c, t, -1) for t in range(n)]  # one Bushido in play (7.5)
        if self.ability(p).resistenza_per_carta and self.res[p] > 1:
            out.append(ABILITY)
        out.append(END)
        return out

    def _required(self, card: int) -> list[bool]:
        needs = self.cards.effect(card).richiede
        return self.cards.is_parry if needs == "parata" else self.cards.is_weapon

    # -- applying an action ----------------------------------------------------------------

    def apply(self, action: Action) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action} is not legal now ({self.phase})")
        p = self.who
        self._legal = None
        self.log.append(event("action", p, action))
        phase = self.phase
        if phase == "main":
            self._main(p, action)
        elif phase == "scarto":
            self._lose_card(p, action[1], "limite")
            if len(self.hands[p]) <= HAND_LIMIT:
                self._next_turn()
        elif phase == "parata":
            self._answer_attack(p, action)
        elif phase == "risposta":
            self._answer_call(p, action)
        elif phase == "bushido":
            self._answer_bushido(p, action)
        else:
            self._draw_phase_rest(p, action == FROM_DISCARD)

    def _main(self, p: int, action: Action) -> None:
        if action == END:
            self.log.append(event("end_turn", p))
            if len(self.hands[p]) > HAND_LIMIT:
                self.phase = "scarto"
            else:
                self._next_turn()
            return
        if action == ABILITY:  # Nobunaga: 1 resistance, never the last, for a card
            self.res[p] -= 1
            self.log.append(event("ability", p, ("resistenza",)))
            self._draw(p, 1)
            return
        _, c, target, extra = action
        self._leave_hand(p, c)
        kind = self.cards.kind[c]
        if kind == "arma":
            self._attack(p, target, c)
        elif kind == "proprieta":
            self.front[target].append(c)
            self.log.append(event("place", p, (c, target)))
        else:
            self.discard.append(c)
            self.log.append(event("play", p, (c, target)))
            self._act(p, c, target, extra)

    # -- weapons (rules 6.4-6.7) -----------------------------------------------------------

    def _attack(self, p: int, target: int, c: int) -> None:
        self.weapons_used += 1
        self.aggression[p * self.num_players + target] += 1
        need = self.difficulty(p, target)
        self.log.append(event("attack", p, (target, c, need)))
        self.discard.append(c)  # rule 6.4: parried or not, the weapon goes to the discards
        self.who, self.phase, self.ctx = target, "parata", (p, c)
        if self.legal_actions() == [TAKE]:  # nothing to parry with: no decision to take
            self._legal = None
            self._answer_attack(target, TAKE)

    def _answer_attack(self, target: int, action: Action) -> None:
        attacker, weapon = self.ctx
        self.who, self.phase, self.ctx = attacker, "main", ()
        if action != TAKE:
            self._lose_card(target, action[1], "parata")
            self.log.append(event("parry", target, (action[1], attacker)))
            return
        cards = self.cards
        amount = (
            cards.damage[weapon]
            + sum(cards.extra_wounds[x] for x in self.front[attacker])
            + self.ability(attacker).ferite_inflitte
        )
        amount = max(1, amount + self.ability(target).ferite_subite)
        lost = self._wound(target, amount, attacker, weapon)
        if self.over or not lost:
            return
        # Ruling abilita-pesca: the wounded player's draw first, then the attacker's.
        self._draw(target, lost * self.ability(target).pesca_per_ferita)
        if not self.over:
            self._draw(attacker, self.ability(attacker).pesca_se_ferisce)

    def _wound(self, p: int, amount: int, by: int, card: int) -> int:
        """Take resistance away (never below 0); the last point costs an honour (6.7)."""
        before = self.res[p]
        lost = min(before, amount)
        self.res[p] = before - lost
        # dealt: the wounds the blow carried; lost: the ones it could take (6.6)
        self.log.append(event("wound", p, (lost, self.res[p], by, card, amount)))
        if before and not self.res[p]:
            self.log.append(event("harmless", p))
            if by >= 0 and by != p:
                self.honour[p] -= 1
                self.honour[by] += 1
                self.log.append(event("honour", p, (-1, "ferita", by, self.honour[p])))
                if self.honour[p] <= 0:
                    self.finish("ferita")
                    return lost
            standing = [q for q in range(self.num_players) if self.res[q]]
            if len(standing) == 1:  # ruling ultimo-in-piedi
                self.finish("ultimo-in-piedi", self.team(standing[0]))
        return lost

    # -- actions (rules 7.6-7.13) ----------------------------------------------------------

    def _act(self, p: int, c: int, target: int, extra: int) -> None:
        effect = self.cards.effect(c)
        what = effect.effetto
        if what == "scarta":
            if extra >= 0:
                self.front[target].remove(extra)
                self.discard.append(extra)
                self.log.append(event("discard", target, (extra, "scartata")))
            else:
                self._lose_card(target, self._random_card(target), "scartata")
        elif what == "prendi":
            taken = self._random_card(target)
            self.hands[target].remove(taken)
            # Only the two of them know which card it was: what others knew of the victim's
            # hand is no longer sure; the victim now knows one card of the thief's.
            mine = [k for k in self.known if k[1] == target and k[0] == p]
            if (p, target, taken) in mine:
                mine.remove((p, target, taken))
            self.known = [k for k in self.known if k[1] != target] + mine + [(target, p, taken)]
            self.hands[p].append(taken)
            self.log.append(event("take", p, (taken, target)))
        elif what == "cura":
            self.res[p] = self.maxres[p]
            self.log.append(event("heal", p, (self.res[p],)))
            self._draw(target, effect.pesca_scelto)
        elif what == "pesca":
            self._draw(p, effect.pesca)
            for q in self._others_in_order(p):
                if self.over:
                    return
                self._draw(q, effect.pescano_altri)
        else:  # "richiesta": Grido di battaglia, Jujitsu (rules 7.10, 7.11)
            self.queue = self._others_in_order(p)
            self.ctx = (p, c)
            self._next_call()

    def _others_in_order(self, p: int) -> list[int]:
        """Ruling azioni-collettive: one at a time, from the player on the left."""
        n = self.num_players
        return [(p + k) % n for k in range(1, n)]

    def _next_call(self) -> None:
        caster, card = self.ctx
        fits = self._required(card)
        wounds = self.cards.effect(card).ferite
        while self.queue and not self.over:
            q = self.queue[0]
            if self.harmless(q) or self.ability(q).solo_armi:
                self.queue.pop(0)
                continue
            if any(fits[x] for x in self.hands[q]):
                self.who, self.phase = q, "risposta"
                return
            self.queue.pop(0)
            self._wound(q, wounds, caster, card)
        self.who, self.phase, self.ctx = self.active, "main", ()

    def _answer_call(self, q: int, action: Action) -> None:
        caster, card = self.ctx
        self.queue.pop(0)
        if action == TAKE:
            self._wound(q, self.cards.effect(card).ferite, caster, card)
        else:
            self._lose_card(q, action[1], "richiesta")
        if not self.over:
            self._next_call()

    # -- cards moving ----------------------------------------------------------------------

    def _leave_hand(self, p: int, c: int) -> None:
        """A card leaves a hand face up: nobody needs to remember it is there any more."""
        self.hands[p].remove(c)
        if self.known:
            seen = [k for k in self.known if k[1] == p and k[2] == c]
            for observer in {k[0] for k in seen}:
                self.known.remove((observer, p, c))

    def _lose_card(self, p: int, c: int, why: str) -> None:
        self._leave_hand(p, c)
        self.discard.append(c)
        self.log.append(event("discard", p, (c, why)))

    def _random_card(self, p: int) -> int:
        hand = self.hands[p]
        return hand[self.chance.integer("carta a caso", 0, len(hand) - 1)]

    def _take(self) -> int:
        """The top card of the deck, the deck running out first if it is empty (rule 9.2)."""
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.log.append(event("deck_out", -1, (len(self.deck),)))
            if self.deck:
                self.chance.shuffle("mazzo", self.deck)
            for q in range(self.num_players):
                self.honour[q] -= 1
                self.log.append(event("honour", q, (-1, "mazzo", -1, self.honour[q])))
            if min(self.honour) <= 0:
                self.finish("mazzo")
                return -1
            if not self.deck:  # ruling mazzo-esaurito: nothing to take
                return -1
        return self.deck.pop()

    def _draw(self, p: int, count: int) -> None:
        drawn = 0
        for _ in range(count):
            c = self._take()
            if c < 0:
                break
            self.hands[p].append(c)
            drawn += 1
        if drawn:
            self.log.append(event("draw", p, (drawn, "mazzo")))

    # -- the turn (rules 5.1-5.6, 7.5) -----------------------------------------------------

    def _next_turn(self) -> None:
        self.begin_turn((self.active + 1) % self.num_players)

    def begin_turn(self, p: int) -> None:
        self.active = self.who = p
        self.turns += 1
        self.weapons_used = 0
        self.phase, self.ctx = "main", ()
        self.log.append(event("turn", p, (self.turns,)))
        if not self.res[p]:
            self.res[p] = self.maxres[p]
            self.log.append(event("recover", p, (self.res[p],)))
        test = self.cards.honour_test
        if any(test[c] for c in self.front[p]):
            flipped = self._take()
            if self.over:
                return
            weapon = flipped >= 0 and self.cards.is_weapon[flipped]
            if flipped >= 0:
                self.discard.append(flipped)
            self.log.append(event("bushido_test", p, (flipped, weapon)))
            if weapon:
                if any(self.cards.is_weapon[c] for c in self.hands[p]):
                    self.phase = "bushido"
                    return
                self._bushido_lost(p)
                if self.over:
                    return
            else:
                self._bushido_pass(p)
        self._draw_phase(p)

    def _bushido_card(self, p: int) -> int:
        return next(c for c in self.front[p] if self.cards.honour_test[c])

    def _bushido_pass(self, p: int) -> None:
        c = self._bushido_card(p)
        left = (p + 1) % self.num_players
        self.front[p].remove(c)
        self.front[left].append(c)
        self.log.append(event("bushido_pass", p, (left,)))

    def _bushido_lost(self, p: int) -> None:
        c = self._bushido_card(p)
        self.front[p].remove(c)
        self.discard.append(c)
        self.honour[p] -= 1
        self.log.append(event("bushido_lost", p))
        self.log.append(event("honour", p, (-1, "bushido", -1, self.honour[p])))
        if self.honour[p] <= 0:
            self.finish("bushido")

    def _answer_bushido(self, p: int, action: Action) -> None:
        if action == HONOUR:
            self._bushido_lost(p)
            if self.over:
                return
        else:
            self._lose_card(p, action[1], "bushido")
            self._bushido_pass(p)
        self.phase = "main"
        self._draw_phase(p)

    def _draw_phase(self, p: int) -> None:
        if self.ability(p).pesca_dagli_scarti and self.discard:
            self.phase = "pesca"
            return
        self._draw_phase_rest(p, False)

    def _draw_phase_rest(self, p: int, from_discard: bool) -> None:
        """Rule 5.3: two cards, +1 for Hideyoshi, +1 for the 3-player Shogun (rule 10.2)."""
        count = 2 + self.ability(p).pesca_extra
        if self.num_players == 3 and self.kind(p) == "shogun":
            count += 1
        if from_discard:
            c = self.discard.pop()
            self.hands[p].append(c)
            self.log.append(event("draw", p, (1, "scarti")))
            count -= 1
        self._draw(p, count)
        self.phase = "main"
