"""Card search: the query language, its SQL, the CLI, and the browser implementation agreeing.

The vectors in tests/data/search_vectors.yaml are played against both implementations; a
seeded generator of queries built from the games' declared vocabularies checks that the two
agree on thousands more.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, invoke
from sqlalchemy import create_engine

from pipeline.search.parser import QueryError, fold, parse, words_of
from pipeline.search.sql import COLUMNS, Searcher, Vocabulary, browser_index, compile_query

VECTORS = yaml.safe_load((ROOT / "tests" / "data" / "search_vectors.yaml").read_text("utf-8"))
QUERY_JS = ROOT / "site" / "assets" / "query.js"


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("search") / "cards.db"
    shutil.copy(ROOT / "cards.db", path)
    return path


@pytest.fixture(scope="module")
def searcher(db_path: Path) -> Searcher:
    return Searcher(create_engine(f"sqlite:///{db_path}"))


def _found(searcher: Searcher, query: str, game: str | None) -> list[str] | dict[str, Any]:
    try:
        rows = searcher.search(query, game).rows
    except QueryError as exc:
        return {"column": exc.column, "message": exc.message.split(" (did you mean")[0]}
    return [f"{r['game']}/{r['code']}" for r in rows]


def test_there_are_enough_vectors_over_every_game() -> None:
    games = {v["game"] for v in VECTORS}
    assert len(VECTORS) >= 80
    assert {"bless", "blitz", "samurai-sword", "mazzo", "bldng", None} <= games
    assert sum("error" in v for v in VECTORS) >= 10


@pytest.mark.parametrize("vector", VECTORS, ids=[f"{v['game']}:{v['query']}" for v in VECTORS])
def test_vector_in_sql(searcher: Searcher, vector: dict[str, Any]) -> None:
    want = vector.get("error") or vector["cards"]
    assert _found(searcher, vector["query"], vector["game"]) == want


def test_the_issue_query_gives_exactly_the_rows_of_its_sql(db_path: Path) -> None:
    run = invoke(ROOT, "--db", str(db_path), "search", "bless",
                 "forma:ombra occhio>=5 preghiera:legame", "--format", "ids")  # fmt: skip
    assert run.exit_code == 0, run.output
    with sqlite3.connect(db_path) as conn:
        want = conn.execute(
            "select code from bless_cards where forma = 'Ombra' and occhio >= 5"
            " and preghiera = 'Legame' order by number"
        ).fetchall()
    assert run.stdout.split() == [f"bless/{code}" for (code,) in want]
    assert want  # the query is not vacuous


def test_across_games_with_negation(db_path: Path) -> None:
    query = "gioco:samurai-sword tipo:arma difficolta>=3 -nome:daikyu"
    run = invoke(ROOT, "--db", str(db_path), "search", query, "-f", "json")
    assert run.exit_code == 0, run.output
    rows = json.loads(run.stdout)
    with sqlite3.connect(db_path) as conn:
        want = conn.execute(
            "select code from samurai_sword_cards where kind = 'arma' and difficolta >= 3"
            " and lower(name) != 'daikyu' order by number"
        ).fetchall()
    assert [r["code"] for r in rows] == [c for (c,) in want]
    assert {r["game"] for r in rows} == {"samurai-sword"}
    assert "daikyu" not in {r["code"] for r in rows}


def test_a_bad_query_exits_2_with_one_line_and_a_caret(db_path: Path) -> None:
    run = invoke(ROOT, "--db", str(db_path), "search", "bless", "forma:ombra ochio>=5")
    assert run.exit_code == 2
    lines = run.stderr.splitlines()
    assert lines[0] == "query:13: error: unknown attribute 'ochio' (did you mean 'occhio'?)"
    assert lines[1].strip() == "forma:ombra ochio>=5"
    assert lines[2].index("^") - lines[1].index("f") == 12
    assert "Traceback" not in run.output


# The issue's hostile queries: each is refused with the limit it passed, never a traceback.
HOSTILE = {
    "330 nested parentheses": ("(" * 330 + "re" + ")" * 330, "nesting depth"),
    "5,000 chained minus signs": ("-" * 5000 + "re", "query length"),
    "a 64-bit overflow": ("occhio>=9223372036854775808", "number size"),
    "a 5,000-digit number": ("occhio>=" + "9" * 5000, "query length"),
    "2,000 words": (" ".join(["re"] * 2000), "query length"),
    "101 words": (" ".join(["re"] * 101), "condition count"),
    "a 100,000-character word": ("x" * 100_000, "query length"),
    "a 201-character word": ("x" * 201, "word length"),
    "21 nested minus signs": ("-" * 21 + "re", "nesting depth"),
}


@pytest.mark.parametrize(("query", "limit"), HOSTILE.values(), ids=HOSTILE.keys())
def test_a_query_past_a_limit_is_one_line_with_a_caret(
    db_path: Path, query: str, limit: str
) -> None:
    run = invoke(ROOT, "--db", str(db_path), "search", "bless", query)
    assert run.exit_code == 2, run.output
    first, shown, caret = run.stderr.splitlines()
    assert first.startswith("query:") and f"error: {limit} limit passed: at most " in first
    column = int(first.split(":")[1])
    assert len(shown) < 100  # a long query is cut around the column
    assert caret.strip() == "^" and "Traceback" not in run.output
    if len(query) < 70:
        assert caret.index("^") - shown.index(query[0]) == column - 1


def test_the_limits_hold_at_their_edge(searcher: Searcher) -> None:
    """Just inside every limit the query runs (on SQLite: its expression tree is bounded
    by the limits, not by luck)."""
    inside = [
        "-" * 20 + "re",
        "(" * 20 + "re" + ")" * 20,
        " or ".join(["forma:luce"] * 50),
        " ".join(f"o:{'x' * 190}" for _ in range(10)),
        "occhio<999999999",
    ]
    for query in inside:
        searcher.search(query)
    assert len(searcher.search(" ".join(["re"] * 100), "bless").rows) == 2


def test_any_text_gives_cards_or_one_query_error(searcher: Searcher) -> None:
    """Whatever is typed, the parser and the SQL give results or a QueryError (a one-line
    message and a column inside the query), never another exception."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    words = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8)
    terms = st.one_of(
        st.integers(-(10**30), 10**30).map(lambda n: f"occhio>={n}"),
        st.builds("{}{}{}".format, st.sampled_from(["nome", "o", "maledizione", "x"]),
                  st.sampled_from([":", "~", "!=", ">"]), words),
        st.sampled_from(["forma:luce", "is:ricostruito", "t:carta", "re*", '!"re luce"', "%",
                         "_", "\\", '"', "ordina:-occhio", "or", "-", "(", ")"]),
        words,
    )  # fmt: skip
    queries = st.recursive(
        terms,
        lambda inner: st.one_of(
            inner.map("-{}".format),
            inner.map("({})".format),
            st.lists(inner, min_size=2, max_size=4).map(" ".join),
            st.lists(inner, min_size=2, max_size=3).map(" or ".join),
        ),
        max_leaves=30,
    )
    texts = st.one_of(st.text(max_size=60), queries)

    @settings(max_examples=150, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(text=texts, game=st.sampled_from([None, "bless", "bldng"]))
    def check(text: str, game: str | None) -> None:
        try:
            searcher.search(text, game)
        except QueryError as exc:
            assert "\n" not in exc.one_line()
            assert 1 <= exc.column <= len(text) + 1

    check()


def test_the_python_api_takes_what_the_cli_takes(db_path: Path) -> None:
    from pipeline.common.problems import SourceError
    from pipeline.search.sql import search

    for db in (
        str(db_path),
        db_path,
        f"sqlite:///{db_path}",
        create_engine(f"sqlite:///{db_path}"),
    ):
        assert [r["code"] for r in search(db, "re", "bless").rows] == ["re-luce", "re-ombra"]
    with pytest.raises(SourceError, match="does not exist"):
        search(db_path.parent / "missing.db", "re")


def test_a_limit_says_how_many_were_found(db_path: Path) -> None:
    run = invoke(ROOT, "--db", str(db_path), "search", "bless", "forma:luce", "--limit", "3")
    assert run.exit_code == 0
    assert run.stdout.splitlines()[-1] == "3 of 29 cards"
    all_of_them = invoke(ROOT, "--db", str(db_path), "search", "bless", "forma:duale", "-n", "4")
    assert all_of_them.stdout.splitlines()[-1] == "4 cards"


def test_formats_and_limit(db_path: Path) -> None:
    args = ["--db", str(db_path), "search", "bless", "forma:duale"]
    csv_run = invoke(ROOT, *args, "-f", "csv")
    assert csv_run.stdout.splitlines()[0].startswith("game,number,code,name,kind,copies")
    assert len(csv_run.stdout.splitlines()) == 1 + 4  # the four Duali
    assert len(invoke(ROOT, *args, "-f", "ids", "--limit", "2").stdout.split()) == 2
    table = invoke(ROOT, *args)
    assert table.exit_code == 0 and "4 cards" in table.stdout
    assert invoke(ROOT, "--db", str(db_path), "search", "scacchi", "re").exit_code == 2


def test_a_search_of_several_games_shows_the_attributes_its_query_names(
    searcher: Searcher, db_path: Path
) -> None:
    """Without a game, a search showed only the columns every game has: `tipo:arma
    difficolta>=5` listed two weapons without their difficulty."""
    result = searcher.search("forza>=8 or difficolta>=5")
    assert result.columns == (*COLUMNS, "forza", "difficolta")
    assert {r["game"] for r in result.rows} == {"mazzo", "samurai-sword"}
    for row in result.rows:  # each game's own value, and nothing where it has none
        mine, other = ("forza", "difficolta") if row["game"] == "mazzo" else ("difficolta", "forza")
        assert row[mine] >= (8 if mine == "forza" else 5) and row[other] is None
    # `tipo:arma` is the kind of card: BLDNG's attribute `tipo` is not shown for it
    assert searcher.search("tipo:arma").columns == COLUMNS
    assert searcher.search("copie>1 ordina:-karma").columns == (*COLUMNS, "karma")
    # piped, the table keeps its natural width: rich cut "Cavaliere" to "Cavalie…" at 80
    wide = invoke(ROOT, "--db", str(db_path), "search", "forza>=8 or tipo:arma")
    assert "…" not in wide.stdout and "reconstructed" in wide.stdout
    assert wide.stdout.splitlines()[0].split() == [
        *("game", "number", "name", "kind", "copies", "deck", "status", "forza")
    ]
    run = invoke(ROOT, "--db", str(db_path), "search", "tipo:arma difficolta>=5")
    assert run.stdout.splitlines()[:3] == [
        " number  name         difficolta ",
        "     41  Tanegashima           5 ",
        "     42  Daikyu                5 ",
    ]


def test_user_text_never_reaches_the_sql(searcher: Searcher, db_path: Path) -> None:
    evil = "x'; drop table card; --"
    query = parse(f'nome:"{evil}" o:"{evil}"')
    stmt = compile_query(query, searcher.games, searcher.db)
    assert "drop table" not in stmt.sql.lower() and "x'" not in stmt.sql
    assert any("drop table card" in str(value) for value in stmt.params.values())
    assert searcher.search(f'nome:"{evil}"').rows == []
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("select count(*) from card").fetchone()[0] > 0


def test_precedence_or_binds_looser_than_juxtaposition(searcher: Searcher) -> None:
    def codes(query: str) -> set[str]:
        return {r["code"] for r in searcher.search(query, "bless").rows}

    duali, luce, strong = codes("forma:duale"), codes("forma:luce"), codes("occhio>=8")
    assert codes("forma:duale or forma:luce occhio>=8") == duali | (luce & strong)
    assert codes("(forma:duale or forma:luce) occhio>=8") == (duali | luce) & strong
    assert codes("-forma:luce") == codes("") - luce
    assert duali - strong  # the two readings differ on this data


def test_multi_valued_attributes_match_any_value(searcher: Searcher) -> None:
    rows = searcher.search("forma:cerchio colore:rosso", "bldng").rows
    kinds = {r["kind"] for r in rows}
    assert "jolly" in kinds and "forma" in kinds  # a Jolly holds several shapes and colours
    for row in rows:
        assert "Cerchio" in row["forma"] and "Rosso" in row["colore"]


def test_folding_is_the_same_as_unicode_for_italian_letters() -> None:
    import unicodedata

    letters = "àèéìíòóùÀÈÉÌÒÙ"
    for ch in letters:
        plain = unicodedata.normalize("NFD", ch)[0].lower()
        assert fold(ch) == plain
    assert words_of("Dell'avversario, «Spezza»: sì!") == "dell avversario spezza si"


# --- the browser implementation -----------------------------------------------------------


@pytest.fixture(scope="module")
def page(searcher: Searcher, session_browser: Any) -> Iterator[Any]:
    folder = Path(tempfile.mkdtemp(prefix="query-"))
    shutil.copy(QUERY_JS, folder / "query.js")
    index = json.dumps(browser_index(searcher.db), ensure_ascii=False)
    (folder / "index.html").write_text(
        "<!doctype html><meta charset=utf-8><script src=query.js></script>"
        f"<script>window.ENGINE = new CartieraQuery.Engine({index});</script>",
        encoding="utf-8",
    )
    session_browser.get((folder / "index.html").as_uri())
    yield session_browser
    shutil.rmtree(folder, ignore_errors=True)


RUN_ALL = """
const out = [];
for (const [query, game] of arguments[0]) {
  try {
    out.push(window.ENGINE.search(query, game).map(r => r.game + "/" + r.code));
  } catch (e) {
    if (!(e instanceof CartieraQuery.QueryError)) throw e;
    out.push({column: e.column, message: e.message});
  }
}
return out;
"""


def test_vectors_in_the_browser(page: Any) -> None:
    got = page.execute_script(RUN_ALL, [[v["query"], v["game"]] for v in VECTORS])
    for vector, found in zip(VECTORS, got, strict=True):
        assert found == (vector.get("error") or vector["cards"]), vector["query"]


def random_query(rng: random.Random, games: list[Vocabulary], cards: dict[str, Any]) -> str:
    """A query built from the declared vocabulary, with the shapes users type."""

    def spelled(word: str) -> str:
        return rng.choice([word, word.upper(), word.capitalize(), word.lower()])

    def term() -> str:
        vocab = rng.choice(games)
        deck = cards[vocab.slug]
        pick = rng.random()
        attrs = list(vocab.attributes.values())
        if pick < 0.35 and attrs:
            attr = rng.choice(attrs)
            name = spelled(rng.choice([attr.key, attr.label.replace(" ", "_")]))
            if attr.type == "int":
                op = rng.choice([":", "=", ">=", "<=", ">", "<", "!="])
                return f"{name}{op}{rng.randint(-1, 11)}"
            if attr.type == "enum":
                value = rng.choice([*attr.values, "nessuno"])
                return f"{name}{rng.choice([':', '!='])}{spelled(value)}"
            if attr.type == "bool":
                return f"{name}:{rng.choice(['si', 'no', 'sì', 'true'])}"
            return f"{name}:{rng.choice(['a', 'e'])}"
        if pick < 0.5:
            card = rng.choice(deck)
            word = rng.choice(words_of(card["name"]).split() or ["re"])
            how = rng.random()
            if how < 0.15:
                return f'!"{spelled(card["name"].replace(chr(34), ""))}"'
            if how < 0.3:
                return f"nome~{spelled(word[: rng.randint(1, len(word))])}"
            if how < 0.45:
                return f"{spelled(word[: rng.randint(1, len(word))])}*"
            return spelled(word)
        if pick < 0.62 and vocab.texts:
            card = rng.choice(deck)
            i = rng.randrange(len(vocab.texts))
            words = words_of(card["texts"][i]).split() or ["carta"]
            w = rng.randrange(len(words))
            field = rng.choice(["o", "testo", vocab.texts[i], vocab.text_labels[vocab.texts[i]]])
            field = field.replace(" ", "_")
            if rng.random() < 0.3:
                return f'{field}:"{" ".join(words[w : w + 2])}"'
            if rng.random() < 0.15:
                return f"{field}~{words[w][: rng.randint(1, len(words[w]))]}"
            return f"{field}:{spelled(words[w])}{'*' if rng.random() < 0.2 else ''}"
        if pick < 0.72:
            kind = rng.choice([*vocab.kinds, *vocab.kinds.values()])
            return f"{rng.choice(['tipo', 't'])}:{spelled(kind.replace(' ', '_'))}"
        if pick < 0.78:
            return f"gioco:{rng.choice([vocab.slug, vocab.name.replace(' ', '')])}"
        if pick < 0.84:
            status = rng.choice(["ufficiale", "ricostruito", "incompleto"])
            return f"{rng.choice(['stato', 'is'])}:{status}"
        if pick < 0.9:
            return f"copie{rng.choice(['>', '>=', '<', ':'])}{rng.randint(0, 6)}"
        return f"mazzo:{rng.choice(list(vocab.decks))}"

    def expr(depth: int) -> str:
        parts = []
        for _ in range(rng.randint(1, 3)):
            r = rng.random()
            if depth and r < 0.15:
                parts.append(f"({expr(depth - 1)})")
            elif r < 0.3:
                parts.append(f"-{term()}")
            else:
                parts.append(term())
        joined = parts[0]
        for part in parts[1:]:
            joined += rng.choice([" ", " ", " or ", " and "]) + part
        return joined

    query = expr(2)
    if rng.random() < 0.3:
        vocab = rng.choice(games)
        field = rng.choice([*vocab.attributes, "nome", "numero", "copie"])
        query += f" ordina:{'-' if rng.random() < 0.5 else ''}{field}"
    return query


def test_browser_and_sql_agree_on_generated_queries(searcher: Searcher, page: Any) -> None:
    rng = random.Random(20261201)
    index = browser_index(searcher.db)
    cards = {g["slug"]: g["cards"] for g in index["games"]}
    slugs = [None, *cards]
    cases = []
    for _ in range(2000):
        game = rng.choice(slugs)
        scope = [v for v in searcher.games if game is None or v.slug == game]
        cases.append((random_query(rng, scope, cards), game))
    got = page.execute_script(RUN_ALL, [list(c) for c in cases])
    mismatches = []
    matched = 0
    for (query, game), found in zip(cases, got, strict=True):
        want = _found(searcher, query, game)
        if isinstance(found, dict):
            found = {"column": found["column"], "message": found["message"]}
        if found != want:
            mismatches.append((game, query, want, found))
        matched += isinstance(want, list) and bool(want)
    assert not mismatches, mismatches[:5]
    assert matched > 600  # most generated queries find something: the check is not vacuous


def test_the_limits_are_the_same_in_the_browser(searcher: Searcher, page: Any) -> None:
    cases = [[query, "bless"] for query, _ in HOSTILE.values()]
    cases += [["(" * 20 + "re" + ")" * 20, "bless"], ["o:" + "x" * 198, None]]
    got = page.execute_script(RUN_ALL, cases)
    for (query, game), found in zip(cases, got, strict=True):
        assert found == _found(searcher, query, game), query[:40]


def test_every_error_is_said_in_italian_on_the_site(page: Any) -> None:
    messages = sorted({v["error"]["message"] for v in VECTORS if "error" in v})
    said = page.execute_script("return arguments[0].map(m => CartieraQuery.italian(m))", messages)
    for english, italian in zip(messages, said, strict=True):
        assert italian != english, english
