/* The card query language in the browser: the same grammar and the same meaning as
   pipeline/search/parser.py and pipeline/search/sql.py, over the index that pipeline.search.sql.browser_index
   writes (folding tables, each game's vocabulary, every card's values). Cartiera's own code;
   tests/data/search_vectors.yaml is played against both implementations. */
(function (root) {
  "use strict";

  var ORDERING = [">=", "<=", ">", "<"];

  function QueryError(message, column, query) {
    this.message = message;
    this.column = column;
    this.query = query;
  }

  function Folder(index) {
    var fold = index.fold;
    this.accents = fold.accents;
    this.spaces = fold.spaces;
    this.dropped = fold.dropped;
  }
  Folder.prototype.fold = function (text) {
    var out = "";
    for (var i = 0; i < text.length; i++) {
      var ch = text[i];
      var mapped = Object.prototype.hasOwnProperty.call(this.accents, ch) ? this.accents[ch] : ch;
      out += mapped;
    }
    return out.replace(/[A-Z]/g, function (c) { return c.toLowerCase(); });
  };
  Folder.prototype.words = function (text) {
    var out = this.fold(text), i;
    for (i = 0; i < this.spaces.length; i++) out = out.split(this.spaces[i]).join(" ");
    for (i = 0; i < this.dropped.length; i++) out = out.split(this.dropped[i]).join("");
    return out.split(/\s+/).filter(function (w) { return w.length > 0; }).join(" ");
  };
  Folder.prototype.nameKey = function (text) {
    return this.fold(text).trim().replace(/[\s\-]+/g, "_");
  };

  /* --- syntax ------------------------------------------------------------------------ */

  var TOKEN = new RegExp(
    "(\\s+)|(\\()|(\\))" +
      "|(([\\p{L}_][\\p{L}\\p{N}_]*)(>=|<=|!=|>|<|=|~|:)(\"[^\"]*\"?|[^\\s()\"]*))" +
      "|(!(\"[^\"]*\"?|[^\\s()\"]*))" +
      "|(\"[^\"]*\"?)|(-(?=[^\\s)]))|([^\\s()\"]+)",
    "uy"
  );

  var LIMIT_WORDS = {
    length: ["query length", "characters"],
    word: ["word length", "characters in one word or condition"],
    terms: ["condition count", "conditions"],
    depth: ["nesting depth", "parentheses and '-' inside one another"],
    number: ["number size", "digits"]
  };

  function limitError(limits, name, column, text) {
    var said = LIMIT_WORDS[name];
    return new QueryError(said[0] + " limit passed: at most " + limits[name] + " " + said[1],
                          column, text);
  }

  function tokens(text, limits) {
    var out = [], pos = 0, m, terms = 0;
    if (text.length > limits.length) throw limitError(limits, "length", limits.length + 1, text);
    var lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])([\uDC00-\uDFFF])/.exec(text);
    if (lone) throw new QueryError("this character is not text (UTF-8)",
                                   lone.index + (lone[1] ? lone[0].length : 1), text);
    while (pos < text.length) {
      TOKEN.lastIndex = pos;
      m = TOKEN.exec(text);
      var col = pos + 1;
      pos = TOKEN.lastIndex;
      if (m[1]) continue;
      if (m[0].length > limits.word) throw limitError(limits, "word", col, text);
      if ((m[4] || m[8] || m[10] || m[12]) && ++terms > limits.terms)
        throw limitError(limits, "terms", col, text);
      if (m[2]) { out.push({ kind: "open", column: col }); continue; }
      if (m[3]) { out.push({ kind: "close", column: col }); continue; }
      if (m[4]) {
        var raw = m[7], vcol = col + m[5].length + m[6].length, phrase = false;
        if (raw.charAt(0) === '"') {
          if (raw.length < 2 || raw.charAt(raw.length - 1) !== '"')
            throw new QueryError("this quotation is never closed", vcol, text);
          raw = raw.slice(1, -1);
          phrase = true;
        }
        if (!raw.trim())
          throw new QueryError("expected a value after '" + m[5] + m[6] + "'", vcol, text);
        out.push({ kind: "term", column: col, term: {
          field: m[5], op: m[6], value: raw, column: col, valueColumn: vcol, phrase: phrase } });
        continue;
      }
      if (m[8]) {
        var name = m[9], quoted = name.charAt(0) === '"';
        if (quoted) {
          if (name.length < 2 || name.charAt(name.length - 1) !== '"')
            throw new QueryError("this quotation is never closed", col + 1, text);
          name = name.slice(1, -1);
        }
        if (!name.trim()) throw new QueryError("expected a card's name after '!'", col + 1, text);
        out.push({ kind: "term", column: col, term: {
          field: "", op: "!", value: name, column: col, valueColumn: col + 1, phrase: quoted } });
        continue;
      }
      if (m[10]) {
        var p = m[10];
        if (p.length < 2 || p.charAt(p.length - 1) !== '"')
          throw new QueryError("this quotation is never closed", col, text);
        if (p.slice(1, -1).trim())
          out.push({ kind: "term", column: col, term: {
            field: "", op: ":", value: p.slice(1, -1), column: col, valueColumn: col + 1,
            phrase: true } });
        continue;
      }
      if (m[11]) { out.push({ kind: "neg", column: col }); continue; }
      var word = m[12], lower = word.toLowerCase();
      if (lower === "or") out.push({ kind: "or", column: col });
      else if (lower === "and") out.push({ kind: "and", column: col });
      else out.push({ kind: "term", column: col, term: {
        field: "", op: ":", value: word, column: col, valueColumn: col, phrase: false } });
    }
    out.push({ kind: "end", column: text.length + 1 });
    return out;
  }

  function Parser(text, generic, folder, limits) {
    this.text = text;
    this.limits = limits;
    this.tokens = tokens(text, limits);
    this.i = 0;
    this.depth = 0;  // parentheses and negations open around the current token
    this.sort = [];
    this.generic = generic;
    this.folder = folder;
  }
  Parser.prototype.peek = function () { return this.tokens[this.i]; };
  Parser.prototype.take = function () { return this.tokens[this.i++]; };
  Parser.prototype.error = function (message, token) {
    return new QueryError(message, token.column, this.text);
  };
  Parser.prototype.parse = function () {
    var where = this.peek().kind === "end" ? null : this.disjunction(true);
    var end = this.peek();
    if (end.kind === "close") throw this.error("this parenthesis closes nothing", end);
    return { text: this.text, where: where, sort: this.sort };
  };
  Parser.prototype.disjunction = function (top) {
    var parts = [this.conjunction(top)];
    while (this.peek().kind === "or") {
      var token = this.take();
      if (["end", "close", "or"].indexOf(this.peek().kind) >= 0)
        throw this.error("expected a condition after 'or'", this.peek());
      var part = this.conjunction(top);
      if (parts[parts.length - 1] === null || part === null)
        throw this.error("'or' needs a condition on each side (not ordina:)", token);
      parts.push(part);
    }
    var kept = parts.filter(function (p) { return p !== null; });
    if (!kept.length) return null;
    return kept.length === 1 ? kept[0] : { any: kept };
  };
  Parser.prototype.conjunction = function (top) {
    var parts = [];
    if (this.peek().kind === "or") throw this.error("expected a condition before 'or'", this.peek());
    while (["end", "close", "or"].indexOf(this.peek().kind) < 0) {
      if (this.peek().kind === "and") {
        this.take();
        if (["end", "close", "or", "and"].indexOf(this.peek().kind) >= 0)
          throw this.error("expected a condition after 'and'", this.peek());
        continue;
      }
      var node = this.unary(top);
      if (node !== null) parts.push(node);
    }
    if (!parts.length) return null;
    return parts.length === 1 ? parts[0] : { all: parts };
  };
  Parser.prototype.unary = function (top) {
    var token = this.take();
    if (token.kind !== "neg" && token.kind !== "open") return this.leaf(token, top);
    if (this.depth === this.limits.depth) throw limitError(this.limits, "depth", token.column, this.text);
    this.depth += 1;
    var node = token.kind === "neg" ? this.negation(token) : this.group();
    this.depth -= 1;
    return node;
  };
  Parser.prototype.negation = function (token) {
    if (["end", "close", "or", "and"].indexOf(this.peek().kind) >= 0)
      throw this.error("expected a condition after '-'", this.peek());
    var inner = this.unary(false);
    if (inner === null) throw this.error("ordina: cannot be negated", token);
    return { not: inner };
  };
  Parser.prototype.group = function () {
    if (this.peek().kind === "close")
      throw this.error("expected a condition inside the parentheses", this.peek());
    var group = this.disjunction(false);
    var close = this.take();
    if (close.kind !== "close") throw this.error("expected ')' to close the parenthesis", close);
    if (group === null) throw this.error("expected a condition inside the parentheses", close);
    return group;
  };
  Parser.prototype.leaf = function (token, top) {
    if (token.kind === "close") throw this.error("this parenthesis closes nothing", token);
    var term = token.term;
    if (this.generic[this.folder.nameKey(term.field)] === "sort") {
      if (!top) throw this.error("ordina: belongs at the top level of the query", token);
      var value = term.value, descending = value.charAt(0) === "-";
      this.sort.push({ field: value.replace(/^-+/, ""), descending: descending,
                       column: term.valueColumn });
      return null;
    }
    return term;
  };

  /* --- vocabulary and resolution --------------------------------------------------- */

  function Unknown(message, column) { this.message = message; this.column = column; this.unknown = true; }

  function Engine(index) {
    this.index = index;
    this.folder = new Folder(index);
    this.generic = index.generic;
  }

  Engine.prototype.text = function (game, field) {
    var key = game.text_names[this.folder.nameKey(field)];
    return key === undefined ? null : key;
  };
  Engine.prototype.attribute = function (game, field) {
    var key = game.names[this.folder.nameKey(field)];
    return key ? Object.assign({ key: key }, game.attributes[key]) : null;
  };
  Engine.prototype.named = function (raw, table) {
    var wanted = this.folder.nameKey(raw);
    for (var key in table) {
      if (wanted === this.folder.nameKey(key) || wanted === this.folder.nameKey(table[key])) return key;
    }
    return null;
  };
  Engine.prototype.matchesGame = function (game, raw) {
    var f = this.folder, sq = function (t) { return f.nameKey(t).split("_").join(""); };
    return sq(raw) === sq(game.slug) || sq(raw) === sq(game.name);
  };

  Engine.prototype.equalityOnly = function (term, what) {
    if (ORDERING.indexOf(term.op) >= 0)
      throw new QueryError("'" + term.op + "' compares numbers; " + what + " takes ':' or '!='",
                           term.column, "");
    this.noPiece(term, what);
  };
  Engine.prototype.noPiece = function (term, what) {
    if (term.op === "~")
      throw new QueryError("'~' finds a piece of a name or a text, not of " + what, term.column, "");
  };
  Engine.prototype.wholeNumber = function (term) {
    if (!/^[+-]?[0-9]+$/.test(term.value))
      throw new QueryError("expected a whole number after '" + term.field + term.op + "'",
                           term.valueColumn, "");
    if (term.value.replace(/^[+-]/, "").length > this.index.limits.number)
      throw limitError(this.index.limits, "number", term.valueColumn, "");
    return parseInt(term.value, 10);
  };
  Engine.prototype.numberCondition = function (term, target) {
    this.noPiece(term, term.field);
    return { target: target, how: "compare", value: this.wholeNumber(term),
             op: term.op === ":" || term.op === "!=" ? "=" : term.op };
  };
  Engine.prototype.textCondition = function (term, target) {
    if (term.op === "~") return { target: target, how: "contains", value: this.folder.fold(term.value) };
    this.equalityOnly(term, term.field);
    return { target: target, how: "words", value: term.value };
  };
  Engine.prototype.isCondition = function (term, game) {
    var status = this.index.status[this.folder.fold(term.value)];
    if (status !== undefined) return { target: "status", how: "equal", value: status };
    var attr = this.attribute(game, term.value);
    if (attr === null || attr.type !== "bool")
      throw new Unknown("unknown is: value '" + term.value +
                        "' (use ufficiale, ricostruito, incompleto or a yes/no attribute)", term.valueColumn);
    return { target: attr.key, how: "equal", value: 1 };
  };
  Engine.prototype.attributeCondition = function (term, attr) {
    var f = this.folder;
    if (attr.type === "int") return this.numberCondition(term, attr.key);
    if (attr.type === "str") {
      if (term.op !== "~") this.equalityOnly(term, attr.label);
      return { target: attr.key, how: "contains", value: f.fold(term.value) };
    }
    this.equalityOnly(term, attr.label);
    if (attr.type === "bool") {
      var b = this.index.boolean[f.fold(term.value)];
      if (b === undefined)
        throw new Unknown(attr.label + " is sì or no, not '" + term.value + "'", term.valueColumn);
      return { target: attr.key, how: "equal", value: b ? 1 : 0 };
    }
    if (attr.type === "enum") {
      var wanted = f.nameKey(term.value), value = null;
      for (var i = 0; i < attr.values.length; i++) {
        if (f.nameKey(attr.values[i]) === wanted) { value = attr.values[i]; break; }
      }
      if (value === null)
        throw new Unknown("unknown " + attr.label + " '" + term.value + "'", term.valueColumn);
      return { target: attr.key, how: attr.multiple ? "member" : "equal", value: value };
    }
    throw new Error("attribute type " + attr.type);
  };
  Engine.prototype.genericCondition = function (term, generic, game) {
    var f = this.folder;
    if (generic === "copies" || generic === "number") return this.numberCondition(term, generic);
    if (generic === "name" || generic === "text") return this.textCondition(term, generic);
    this.equalityOnly(term, term.field);
    if (generic === "is") return this.isCondition(term, game);
    if (generic === "game") {
      if (!this.matchesGame(game, term.value))
        throw new Unknown("unknown game '" + term.value + "'", term.valueColumn);
      return { how: "constant", value: true };
    }
    if (generic === "status") {
      var status = this.index.status[f.fold(term.value)];
      if (status === undefined)
        throw new QueryError("unknown status '" + term.value +
                             "' (use ufficiale, ricostruito or incompleto)", term.valueColumn, "");
      return { target: "status", how: "equal", value: status };
    }
    if (generic === "kind") {
      var kind = this.named(term.value, game.kinds);
      if (kind === null) throw new Unknown("unknown card kind '" + term.value + "'", term.valueColumn);
      return { target: "kind", how: "equal", value: kind };
    }
    var deck = this.named(term.value, game.decks);
    if (deck === null) throw new Unknown("unknown deck '" + term.value + "'", term.valueColumn);
    return { target: "deck", how: "equal", value: deck };
  };
  Engine.prototype.resolve = function (term, game) {
    var f = this.folder;
    if (!term.field) {
      if (term.op === "!") return { target: "name", how: "exact", value: f.words(term.value) };
      return { target: "name", how: "words", value: term.value };
    }
    var attr = this.attribute(game, term.field);
    var generic = this.generic[f.nameKey(term.field)];
    if (generic === undefined) generic = null;
    if (attr !== null) {
      try {
        return this.attributeCondition(term, attr);
      } catch (e) {
        if (!e.unknown || generic === null) throw e;
      }
    } else {
      var text = this.text(game, term.field);
      if (text !== null) return this.textCondition(term, "text_" + text);
    }
    if (generic === null) throw new Unknown("unknown attribute '" + term.field + "'", term.column);
    return this.genericCondition(term, generic, game);
  };

  Engine.prototype.checkTerms = function (node, games, text) {
    if (node === null) return;
    if (node.not) { this.checkTerms(node.not, games, text); return; }
    var children = node.all || node.any;
    if (children) { for (var c = 0; c < children.length; c++) this.checkTerms(children[c], games, text); return; }
    var first = null;
    var isGame = !!node.field && this.generic[this.folder.nameKey(node.field)] === "game";
    var scope = isGame ? this.index.games : games;
    for (var g = 0; g < scope.length; g++) {
      try {
        this.resolve(node, scope[g]);
        return;
      } catch (e) {
        if (!e.unknown) throw new QueryError(e.message, e.column, text);
        if (first === null) first = e;
      }
    }
    throw new QueryError(first.message, first.column, text);
  };

  var SORTABLE = ["copies", "number", "name", "kind", "deck", "status", "game"];
  Engine.prototype.checkSort = function (sort, games, text) {
    for (var i = 0; i < sort.length; i++) {
      var key = sort[i];
      if (SORTABLE.indexOf(this.generic[this.folder.nameKey(key.field)]) >= 0) continue;
      var self = this;
      if (games.some(function (g) { return self.attribute(g, key.field) !== null; })) continue;
      throw new QueryError("cannot sort by unknown field '" + key.field + "'", key.column, text);
    }
  };

  /* --- evaluation ------------------------------------------------------------------ */

  Engine.prototype.test = function (node, game, card) {
    if (node.not) return !this.test(node.not, game, card);
    var i;
    if (node.all) { for (i = 0; i < node.all.length; i++) if (!this.test(node.all[i], game, card)) return false; return true; }
    if (node.any) { for (i = 0; i < node.any.length; i++) if (this.test(node.any[i], game, card)) return true; return false; }
    var cond;
    try {
      cond = this.resolve(node, game);
    } catch (e) {
      if (e.unknown) return false;
      throw e;
    }
    var result = this.condition(cond, game, card);
    return node.op === "!=" ? !result : result;
  };
  Engine.prototype.value = function (card, target) {
    if (Object.prototype.hasOwnProperty.call(card, target)) return card[target];
    var v = card.attributes[target];
    return v === undefined ? null : v;
  };
  /* The values a name or text condition reads: "text" is every text of the card. */
  Engine.prototype.texts = function (target, game, card) {
    if (target === "text") return card.texts;
    if (target.indexOf("text_") === 0) return [card.texts[game.texts.indexOf(target.slice(5))]];
    return [this.value(card, target)];
  };
  Engine.prototype.condition = function (cond, game, card) {
    var f = this.folder;
    if (cond.how === "constant") return cond.value;
    if (cond.how === "words" || cond.how === "contains" || cond.how === "exact") {
      var values = this.texts(cond.target, game, card).filter(function (t) { return t !== null && t !== undefined; });
      if (cond.how === "contains")
        return values.some(function (t) { return f.fold(String(t)).indexOf(cond.value) >= 0; });
      if (cond.how === "exact")
        return values.some(function (t) { return f.words(String(t)) === cond.value; });
      var prefix = /\*$/.test(cond.value);
      var wanted = f.words(cond.value.replace(/\*+$/, ""));
      if (!wanted) return false;
      var needle = " " + wanted + (prefix ? "" : " ");
      return values.some(function (t) { return (" " + f.words(String(t)) + " ").indexOf(needle) >= 0; });
    }
    var v = this.value(card, cond.target);
    if (v === null) return false;
    if (cond.how === "member") return (", " + v + ", ").indexOf(", " + cond.value + ", ") >= 0;
    if (cond.how === "equal") return v === cond.value;
    switch (cond.op) {
      case "=": return v === cond.value;
      case ">=": return v >= cond.value;
      case "<=": return v <= cond.value;
      case ">": return v > cond.value;
      case "<": return v < cond.value;
    }
    return false;
  };
  Engine.prototype.sortValue = function (key, game, card) {
    var generic = this.generic[this.folder.nameKey(key.field)];
    var attr = this.attribute(game, key.field);
    var v;
    if (attr !== null) {
      v = card.attributes[attr.key];
      if (v === null || v === undefined) return [null, null];
      if (attr.type === "int" || attr.type === "bool") return [Number(v), null];
      return [null, this.folder.fold(String(v))];
    }
    if (generic === "copies" || generic === "number") return [card[generic], null];
    if (["name", "kind", "deck", "status"].indexOf(generic) >= 0) return [null, this.folder.fold(card[generic])];
    if (generic === "game") return [null, game.slug];
    return [null, null];
  };

  function compare(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  Engine.prototype.search = function (text, gameSlug) {
    var parser = new Parser(text, this.generic, this.folder, this.index.limits);
    var query = parser.parse();
    var games = this.index.games;
    if (gameSlug) {
      games = games.filter(function (g) { return g.slug === gameSlug; });
      if (!games.length) throw new QueryError("the database holds no game '" + gameSlug + "'", 1, text);
    }
    this.checkTerms(query.where, games, text);
    this.checkSort(query.sort, games, text);
    var rows = [], self = this;
    games.forEach(function (game) {
      game.cards.forEach(function (card) {
        if (query.where !== null && !self.test(query.where, game, card)) return;
        var keys = query.sort.map(function (k) { return self.sortValue(k, game, card); });
        rows.push({ game: game.slug, card: card, position: games.indexOf(game), keys: keys });
      });
    });
    rows.sort(function (a, b) {
      for (var i = 0; i < query.sort.length; i++) {
        var ka = a.keys[i], kb = b.keys[i], desc = query.sort[i].descending;
        var na = ka[0] === null && ka[1] === null, nb = kb[0] === null && kb[1] === null;
        if (na !== nb) return na ? 1 : -1;
        if ((ka[0] === null) !== (kb[0] === null)) return ka[0] === null ? 1 : -1;
        var c = ka[0] !== null ? compare(ka[0], kb[0]) : 0;
        if (c === 0 && ka[1] !== null && kb[1] !== null) c = compare(ka[1], kb[1]);
        if (c !== 0) return desc ? -c : c;
      }
      return compare(a.position, b.position) || compare(a.card.number, b.card.number) ||
             compare(a.card.deck, b.card.deck);
    });
    var found = rows.map(function (r) {
      return { game: r.game, code: r.card.code, number: r.card.number, name: r.card.name,
               card: r.card };
    });
    found.sorted = query.sort.length > 0;  // an ordina: asks the page to reorder too
    return found;
  };

  /* --- the query box on a page ------------------------------------------------------ */

  // The site speaks Italian: the parser's messages (the CLI's, in English) said again.
  var ITALIAN = [
    [/^expected a value after '(.*)'$/, "manca un valore dopo «$1»"],
    [/^this quotation is never closed$/, "le virgolette non sono chiuse"],
    [/^this parenthesis closes nothing$/, "questa parentesi non chiude niente"],
    [/^expected '\)' to close the parenthesis$/, "manca la «)» che chiude la parentesi"],
    [/^expected a condition inside the parentheses$/, "fra le parentesi manca una condizione"],
    [/^expected a condition after '(.*)'$/, "manca una condizione dopo «$1»"],
    [/^expected a condition before 'or'$/, "manca una condizione prima di «or»"],
    [/^'or' needs a condition on each side \(not ordina:\)$/, "«or» vuole una condizione da ogni lato"],
    [/^ordina: cannot be negated$/, "ordina: non si può negare"],
    [/^ordina: belongs at the top level of the query$/, "ordina: va messo fuori dalle parentesi"],
    [/^unknown attribute '(.*)'$/, "non c'è un attributo «$1»"],
    [/^unknown status '(.*)' .*$/, "stato sconosciuto «$1» (si scrive ufficiale, ricostruito o incompleto)"],
    [/^unknown card kind '(.*)'$/, "non c'è un tipo di carta «$1»"],
    [/^unknown deck '(.*)'$/, "non c'è un mazzo «$1»"],
    [/^unknown game '(.*)'$/, "non c'è un gioco «$1»"],
    [/^unknown (.*) '(.*)'$/, "«$2» non è un valore di $1"],
    [/^'(.*)' compares numbers; (.*) takes ':' or '!='$/, "«$1» confronta numeri: con $2 si usa «:» o «!=»"],
    [/^expected a whole number after '(.*)'$/, "dopo «$1» ci vuole un numero intero"],
    [/^(.*) is sì or no, not '(.*)'$/, "$1 è sì o no, non «$2»"],
    [/^cannot sort by unknown field '(.*)'$/, "non si può ordinare per «$1»: campo sconosciuto"],
    [/^the database holds no game '(.*)'$/, "non c'è un gioco «$1»"],
    [/^expected a card's name after '!'$/, "dopo «!» ci vuole il nome di una carta"],
    [/^'~' finds a piece of a name or a text, not of (.*)$/, "«~» cerca un pezzo di un nome o di un testo, non di $1"],
    [/^unknown is: value '(.*)' .*$/, "«is:$1» non c'è (si scrive ufficiale, ricostruito, incompleto o un attributo sì/no)"],
    [/^this character is not text \(UTF-8\)$/, "questo carattere non è testo (UTF-8)"],
    [/^query length limit passed: at most (\d+) characters$/, "query troppo lunga: al massimo $1 caratteri"],
    [/^word length limit passed: at most (\d+) .*$/, "parola troppo lunga: al massimo $1 caratteri per parola o condizione"],
    [/^condition count limit passed: at most (\d+) conditions$/, "troppe condizioni: al massimo $1"],
    [/^nesting depth limit passed: at most (\d+) .*$/, "troppe parentesi o «-» uno dentro l'altro: al massimo $1"],
    [/^number size limit passed: at most (\d+) digits$/, "numero troppo grande: al massimo $1 cifre"]
  ];

  function italian(message) {
    for (var i = 0; i < ITALIAN.length; i++) {
      if (ITALIAN[i][0].test(message)) return message.replace(ITALIAN[i][0], ITALIAN[i][1]);
    }
    return message;
  }

  var EXAMPLES = {
    "bless": "forma:ombra occhio>=5", "blitz": "tipo:azione", "samurai-sword": "tipo:arma difficolta>=3",
    "mazzo": "forza>=5 or magia>=5", "bldng": "tipo:jolly colore:rosso"
  };

  function siteRoot() {
    var script = document.querySelector('script[src*="assets/query.js"]');
    return script ? script.src.replace(/assets\/query\.js.*$/, "") : "/";
  }

  // The offline variant (opened from file://) has page.html files, the served one folders.
  function pageUrl(path) {
    return siteRoot() + path + (window.location.protocol === "file:" ? ".html" : "/");
  }

  function cardUrl(game, code) {
    return pageUrl("giochi/" + game + "/carte/" + code);
  }

  /* A filter control of the card table, as the words of the query it stands for. */
  function controlQuery(control) {
    var value = control.value.trim();
    if (!value) return "";
    var field = control.dataset.filtro, kind = control.dataset.tipo;
    var quoted = /[\s()"]/.test(value) ? '"' + value.replace(/"/g, "") + '"' : value;
    if (field === "kind") field = "tipo";
    if (field === "deck") field = "mazzo";
    if (kind === "min") return field + ">=" + value;
    if (kind === "max") return field + "<=" + value;
    return field + ":" + quoted;
  }

  function build(box, index) {
    var target = box.dataset.tabella || "";
    var all = box.hasAttribute("data-tutti");
    var game = all ? null : target.replace(/^(carte|galleria)-/, "");
    var label = document.createElement("label");
    label.className = "cartiera-query-label";
    label.textContent = all ? "Cerca fra le carte di tutti i giochi" : "Cerca con una query";
    var input = document.createElement("input");
    input.type = "search";
    input.className = "cartiera-query-input";
    input.placeholder = all ? "gioco:samurai-sword tipo:arma" : (EXAMPLES[game] || "nome:…");
    input.setAttribute("aria-describedby", (box.id || "q") + "-errore");
    input.spellcheck = false;
    label.append(input);
    var help = document.createElement("a");
    help.className = "cartiera-query-aiuto";
    help.href = pageUrl("cercare");
    help.textContent = "come si scrive";
    var error = document.createElement("p");
    error.className = "cartiera-query-error";
    error.id = (box.id || "q") + "-errore";
    error.setAttribute("role", "alert");
    var results = document.createElement("ul");
    results.className = "cartiera-query-risultati";
    box.append(label, help, error, results);
    return { game: game, all: all, target: target, input: input, results: results };
  }

  function show(ui, rows) {
    var codes = rows ? rows.map(function (r) { return r.code; }) : null;
    var rank = {};
    if (codes) codes.forEach(function (c, i) { rank[c] = i; });
    if (ui.all) {
      ui.results.replaceChildren();
      if (!rows) return;
      var count = document.createElement("li");
      count.className = "cartiera-query-conteggio";
      count.textContent = rows.length === 1 ? "1 carta" : rows.length + " carte";
      ui.results.append(count);
      rows.slice(0, 200).forEach(function (r) {
        var item = document.createElement("li");
        var link = document.createElement("a");
        link.href = cardUrl(r.game, r.code);
        link.textContent = r.name;
        var game = document.createElement("small");
        game.textContent = " · " + r.game;
        item.append(link, game);
        ui.results.append(item);
      });
      return;
    }
    var table = document.getElementById(ui.target);
    var containers = table ? [table.tBodies[0]] :
      Array.from(document.querySelectorAll('[id^="' + ui.target + '-"]'));
    var shown = 0, total = 0;
    containers.forEach(function (container) {
      var items = Array.from(container.children).filter(function (el) { return el.dataset.code; });
      items.forEach(function (el) {
        var visible = !codes || rank[el.dataset.code] !== undefined;
        el.hidden = !visible;
        total += 1;
        if (visible) shown += 1;
      });
      if (codes && rows.sorted) {
        items.filter(function (el) { return !el.hidden; })
          .sort(function (a, b) { return rank[a.dataset.code] - rank[b.dataset.code]; })
          .forEach(function (el) { container.append(el); });
      }
    });
    var counter = document.querySelector('.cartiera-filtri[data-tabella="' + ui.target + '"] .cartiera-conteggio');
    // after an empty or bad query every row shows again, and the counter says so
    if (counter) counter.textContent = (shown === 1 ? "1 carta" : shown + " carte") + " su " + total;
  }

  function autoMount() {
    var index = root.CARTIERA_INDEX;
    if (!index) return;
    document.querySelectorAll(".cartiera-query").forEach(function (box) {
      if (box.dataset.montato) return;
      box.dataset.montato = "1";
      var ui = build(box, index);
      var mounted = mount(box, index, ui.game, function (rows) { show(ui, rows); });
      var filters = document.querySelector('.cartiera-filtri[data-tabella="' + ui.target + '"]');
      if (filters && !ui.input.value) {
        // filters restored from the address (tabella.js) become the query they stand for
        var restored = Array.from(filters.querySelectorAll("[data-filtro]")).map(controlQuery)
          .filter(function (w) { return w; }).join(" ");
        if (restored) { ui.input.value = restored; mounted.run(false); }
      }
      if (filters) {
        filters.dataset.query = "1";  // tabella.js leaves the filtering to the query
        var sync = function () {
          var words = Array.from(filters.querySelectorAll("[data-filtro]")).map(controlQuery)
            .filter(function (w) { return w; });
          ui.input.value = words.join(" ");
          mounted.run(true);
        };
        filters.addEventListener("input", sync);
        filters.addEventListener("change", sync);
        filters.addEventListener("reset", function () { setTimeout(sync, 0); });
      }
    });
  }

  // The query in the page's address, so a search can be kept or sent: not `q`, which
  // Material reads on every page to open its own search over the page.
  var PARAM = "cerca";

  function mount(box, index, gameSlug, onResult) {
    var engine = new Engine(index);
    var input = box.querySelector("input");
    var error = box.querySelector(".cartiera-query-error");
    function run(push) {
      var text = input.value.trim();
      var url = new URL(window.location.href);
      if (text) url.searchParams.set(PARAM, text); else url.searchParams.delete(PARAM);
      if (push) window.history.replaceState(window.history.state, "", url);
      box.classList.remove("cartiera-query-invalid");
      if (!text) { error.textContent = ""; onResult(null); return; }
      try {
        var rows = engine.search(text, gameSlug);
        error.textContent = "";
        onResult(rows);
      } catch (e) {
        if (!(e instanceof QueryError)) throw e;
        box.classList.add("cartiera-query-invalid");
        error.textContent = "Colonna " + e.column + ": " + italian(e.message);
        onResult(null, e);
      }
    }
    input.addEventListener("input", function () { run(true); });
    var initial = new URL(window.location.href).searchParams.get(PARAM);
    if (initial) input.value = initial;
    run(false);
    return { run: run, engine: engine };
  }

  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", autoMount);
    else autoMount();
  }

  root.CartieraQuery = {
    Engine: Engine, QueryError: QueryError, mount: mount, autoMount: autoMount, italian: italian
  };
})(typeof window !== "undefined" ? window : this);
