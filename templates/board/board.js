/* Cartiera: the step-through board of a worked example or a recorded game.
 *
 * Each <div class="cartiera-tavolo" data-tavolo="{...}"> holds its frames as JSON
 * (pipeline/publish/board.py). This script draws the frame shown: the piles, each seat's
 * attributes and zones as rows of card images, the narration of the step, what changed.
 * Previous/next buttons, the arrow keys, a slider and links (#passo-N) move through the
 * steps. No framework, no network: it works from file:// as well as from a server.
 */
(function () {
  "use strict";

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /* A frame lists only the seat keys and piles that changed: carry the others forward. */
  function whole(frames) {
    var out = [], before = null;
    frames.forEach(function (frame) {
      if (before) {
        var seats = frame.posti.map(function (seat, i) {
          var full = {}, key;
          for (key in before.posti[i]) full[key] = before.posti[i][key];
          for (key in seat) full[key] = seat[key];
          return full;
        });
        var piles = {}, name;
        for (name in before.pile) piles[name] = before.pile[name];
        for (name in frame.pile) piles[name] = frame.pile[name];
        var copy = {};
        for (name in frame) copy[name] = frame[name];
        copy.posti = seats;
        copy.pile = piles;
        frame = copy;
      }
      out.push(frame);
      before = frame;
    });
    return out;
  }

  function Board(root) {
    this.root = root;
    this.data = JSON.parse(root.getAttribute("data-tavolo"));
    this.data.passi = whole(this.data.passi);
    this.prefix = root.getAttribute("data-passo") || "passo";
    var base = root.querySelector(".cartiera-tavolo-base");
    this.imageBase = base ? base.getAttribute("src").replace(/[^\/]*$/, "") : null;
    this.hidden = {};
    var self = this;
    (this.data.nascoste || []).forEach(function (key) { self.hidden[key] = true; });
    this.reveal = false;
    this.index = 0;
    this.build();
    this.show(0);
  }

  Board.prototype.label = function (key) {
    return (this.data.etichette || {})[key] || key;
  };

  Board.prototype.build = function () {
    var self = this, total = this.data.passi.length;
    this.root.textContent = "";
    this.root.setAttribute("tabindex", "0");
    this.root.setAttribute("role", "group");
    this.root.setAttribute("aria-label", "Tavolo passo per passo: " + this.data.titolo);

    var bar = el("div", "ct-barra");
    this.prev = el("button", "ct-prec", "\u2039 Indietro");
    this.prev.type = "button";
    this.next = el("button", "ct-succ", "Avanti \u203a");
    this.next.type = "button";
    this.counter = el("span", "ct-contatore");
    this.counter.setAttribute("aria-live", "polite");
    this.slider = el("input", "ct-cursore");
    this.slider.type = "range";
    this.slider.min = "0";
    this.slider.max = String(total - 1);
    this.slider.value = "0";
    this.slider.setAttribute("aria-label", "Passo");
    var toggle = el("label", "ct-coperte");
    this.box = el("input");
    this.box.type = "checkbox";
    toggle.appendChild(this.box);
    toggle.appendChild(document.createTextNode(" Mostra le carte coperte"));
    this.link = el("a", "ct-link", "Link a questo passo");
    bar.appendChild(this.prev);
    bar.appendChild(this.counter);
    bar.appendChild(this.next);
    bar.appendChild(this.slider);
    bar.appendChild(toggle);
    bar.appendChild(this.link);

    this.text = el("ol", "ct-testo");
    this.text.setAttribute("aria-live", "polite");
    this.table = el("div", "ct-tavolo");
    this.info = el("div", "ct-info");
    this.piles = el("div", "ct-pile");
    this.seats = el("div", "ct-posti");
    this.table.appendChild(this.info);
    this.table.appendChild(this.piles);
    this.table.appendChild(this.seats);
    this.drawn = {};
    this.root.appendChild(bar);
    this.root.appendChild(this.text);
    this.root.appendChild(this.table);

    this.prev.addEventListener("click", function () { self.go(self.index - 1); });
    this.next.addEventListener("click", function () { self.go(self.index + 1); });
    this.slider.addEventListener("input", function () { self.go(parseInt(self.slider.value, 10)); });
    this.box.addEventListener("change", function () {
      self.reveal = self.box.checked;
      self.show(self.index);
    });
    this.root.addEventListener("keydown", function (event) {
      if (event.target && event.target.tagName === "INPUT" && event.target.type === "range") return;
      if (event.key === "ArrowRight") { self.go(self.index + 1); event.preventDefault(); }
      else if (event.key === "ArrowLeft") { self.go(self.index - 1); event.preventDefault(); }
      else if (event.key === "Home") { self.go(0); event.preventDefault(); }
      else if (event.key === "End") { self.go(total - 1); event.preventDefault(); }
    });
  };

  Board.prototype.go = function (index) {
    var last = this.data.passi.length - 1;
    index = Math.max(0, Math.min(last, index));
    this.show(index);
    var hash = "#" + this.prefix + "-" + index;
    if (location.hash !== hash && history.replaceState) {
      try { history.replaceState(null, "", hash); } catch (e) { /* file:// in some browsers */ }
    }
  };

  Board.prototype.card = function (index, covered, fresh) {
    var info = this.data.carte[index] || ["", "?", null, null];
    var hide = covered && !this.reveal;
    var node = el("figure", "ct-carta");
    node.setAttribute("data-codice", hide ? "" : info[0]);
    node.title = hide ? "Carta coperta" : info[1];
    if (hide) node.className += " ct-coperta";
    if (fresh) node.className += " ct-nuova";
    var src = hide ? info[3] : info[2];
    if (src && src.indexOf("data:") !== 0) src = this.imageBase === null ? null : this.imageBase + src;
    if (src) {
      var img = el("img");
      img.src = src;
      img.alt = hide ? "Carta coperta" : info[1];
      img.loading = "lazy";
      node.appendChild(img);
    } else {
      node.appendChild(el("span", "ct-nome", hide ? "Coperta" : info[1]));
    }
    return node;
  };

  Board.prototype.zone = function (name, label, cards, covered, fresh, changed) {
    var row = el("div", "ct-zona");
    row.setAttribute("data-zona", name);
    if (changed) row.className += " ct-cambiata";
    var head = el("div", "ct-etichetta", label + " (" + cards.length + ")");
    row.appendChild(head);
    var fan = el("div", "ct-ventaglio");
    if (cards.length > 10) fan.className += " ct-fitto";
    var self = this;
    cards.forEach(function (card, position) {
      fan.appendChild(self.card(card, covered, fresh.indexOf(position) >= 0));
    });
    if (!cards.length) fan.appendChild(el("span", "ct-vuota", "vuota"));
    row.appendChild(fan);
    return row;
  };

  Board.prototype.pile = function (key, cards, changed, fresh) {
    var covered = !!this.hidden["pile:" + key];
    var box = el("div", "ct-pila");
    box.setAttribute("data-pila", key);
    box.setAttribute("data-n", String(cards.length));
    if (changed) box.className += " ct-cambiata";
    box.appendChild(el("div", "ct-etichetta", this.label(key)));
    if (cards.length) {
      var at = key === "draw" || key === "projects" ? 0 : cards.length - 1;
      box.appendChild(this.card(cards[at], covered, (fresh || []).indexOf(at) >= 0));
    } else {
      box.appendChild(el("span", "ct-vuota ct-carta", "vuoto"));
    }
    box.appendChild(el("div", "ct-conta", cards.length === 1 ? "1 carta" : cards.length + " carte"));
    return box;
  };

  Board.prototype.show = function (index) {
    var data = this.data, frame = data.passi[index], total = data.passi.length, self = this;
    this.index = index;
    this.slider.value = String(index);
    this.prev.disabled = index === 0;
    this.next.disabled = index === total - 1;
    var steps = total - 1;
    this.counter.textContent = index === 0
      ? "Inizio (" + steps + (steps === 1 ? " passo)" : " passi)")
      : "Passo " + index + " di " + steps;
    this.link.href = "#" + this.prefix + "-" + index;
    this.root.setAttribute("data-mostrato", String(index));
    var changed = {}, fresh = frame.nuove || {};
    (frame.cambi || []).forEach(function (key) { changed[key] = true; });

    this.text.textContent = "";
    var lines = frame.testo.length ? frame.testo
      : [index === 0 ? "La posizione di partenza." : "Nessun evento da raccontare."];
    lines.forEach(function (line) { self.text.appendChild(el("li", "", line)); });

    this.info.textContent = "";
    var turn = "Tocca al Giocatore " + frame.turno;
    if (frame.numero) turn = "Turno " + frame.numero + " \u00b7 " + turn;
    if (frame.fine) turn = "Partita finita";
    this.info.appendChild(el("span", "ct-turno-info" + (changed.turno ? " ct-cambiata" : ""), turn));
    if (frame.chi) this.info.appendChild(el("span", "ct-chi", "Ha deciso il Giocatore " + frame.chi));

    var drawn = {};
    this.place(this.piles, drawn, Object.keys(frame.pile).map(function (key) {
      var marks = [changed["pile." + key], fresh["pile." + key]];
      return [["pila", key, frame.pile[key], marks], function () {
        return self.pile(key, frame.pile[key], marks[0], marks[1]);
      }];
    }));
    this.place(this.seats, drawn, frame.posti.map(function (seat, i) {
      var number = i + 1, marks = {};
      Object.keys(seat).forEach(function (key) {
        marks[key] = [changed[number + "." + key], fresh[number + "." + key]];
      });
      var playing = frame.turno === number && !frame.fine;
      return [["posto", number, seat, marks, playing], function () {
        return self.seat(seat, number, playing, changed, fresh);
      }];
    }));
    this.drawn = drawn;
  };

  /* Puts the parts of a row of the table (piles, seats) into `box` in order. A part whose
     key (what it shows: its cards, values and marks, and whether covered cards are shown)
     is the same as in the frame shown before keeps its node, untouched: a step redraws the
     seats and piles it changed, so the browser lays out only those again. */
  Board.prototype.place = function (box, drawn, parts) {
    var self = this;
    parts.forEach(function (part, index) {
      var key = JSON.stringify([part[0], self.reveal]);
      var node = self.drawn[key] || part[1]();
      drawn[key] = node;
      var there = box.children[index];
      if (there !== node) box.insertBefore(node, there || null);
    });
    while (box.children.length > parts.length) box.removeChild(box.lastChild);
  };

  Board.prototype.seat = function (seat, number, playing, changed, fresh) {
    var data = this.data, self = this;
    var box = el("section", "ct-posto");
    box.setAttribute("data-posto", String(number));
    if (playing) box.className += " ct-di-turno";
    box.appendChild(el("h4", "ct-giocatore", "Giocatore " + number));
    var values = el("div", "ct-valori");
    var rows = [];
    Object.keys(seat).forEach(function (key) {
      var kind = data.chiavi[key], value = seat[key], name = number + "." + key;
      var covered = !!self.hidden[key];
      var shown = data.pubblici[key];
      if (kind === "zona") {
        rows.push(self.zone(name, self.label(key), value, covered, fresh[name] || [], changed[name]));
      } else if (kind === "carta") {
        var code = value === null ? null : data.carte[value][0];
        if (covered && shown && shown.indexOf(code) >= 0) covered = false;
        var slot = el("div", "ct-zona ct-singola" + (changed[name] ? " ct-cambiata" : ""));
        slot.setAttribute("data-zona", name);
        slot.appendChild(el("div", "ct-etichetta", self.label(key)));
        var fan = el("div", "ct-ventaglio");
        if (value === null) fan.appendChild(el("span", "ct-vuota", "nessuna"));
        else fan.appendChild(self.card(value, covered, !!changed[name]));
        slot.appendChild(fan);
        rows.unshift(slot);
      } else {
        var chip = el("span", "ct-valore" + (changed[name] ? " ct-cambiata" : ""));
        chip.setAttribute("data-valore", name);
        chip.appendChild(el("span", "ct-etichetta", self.label(key) + ": "));
        chip.appendChild(el("strong", "", value === null ? "\u2014" : value));
        values.appendChild(chip);
      }
    });
    if (values.childNodes.length) box.appendChild(values);
    rows.forEach(function (row) { box.appendChild(row); });
    return box;
  };

  var boards = [];

  function fromHash(scroll) {
    var match = /^#(.+)-(\d+)$/.exec(location.hash);
    if (!match) return;
    boards.forEach(function (board) {
      if (board.prefix === match[1]) {
        board.show(Math.min(parseInt(match[2], 10), board.data.passi.length - 1));
        if (scroll && board.root.scrollIntoView) board.root.scrollIntoView();
      }
    });
  }

  function start() {
    var nodes = document.querySelectorAll(".cartiera-tavolo[data-tavolo]");
    for (var i = 0; i < nodes.length; i++) {
      if (nodes[i].getAttribute("data-pronto")) continue;
      try {
        boards.push(new Board(nodes[i]));
        nodes[i].setAttribute("data-pronto", "1");
      } catch (e) {
        nodes[i].setAttribute("data-errore", String(e));
      }
    }
    if (boards.length === 1) {
      document.addEventListener("keydown", function (event) {
        var t = event.target;
        if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
        if (boards[0].root.contains(t)) return;
        if (event.key === "ArrowRight") boards[0].go(boards[0].index + 1);
        else if (event.key === "ArrowLeft") boards[0].go(boards[0].index - 1);
      });
    }
    fromHash(true);
    window.addEventListener("hashchange", function () { fromHash(true); });
    window.cartieraTavoli = boards;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
