"""The stage between cards.db and the rules engines: card records in, Rules out.

The engines never read the database (pipeline.engine is pure); this module reads a game's
cards from cards.db as plain CardRecords and builds its Rules through the registry. It also
plays the worked examples against a freshly written database and stores their narration
(a stage run after the database writer, see ``DB_STAGES``), and replays saved games.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sqlmodel import Session, create_engine, select

from pipeline.common.output import atomic_write
from pipeline.common.problems import Problem, SourceError, SourceErrors
from pipeline.common.project import Project, code_digest
from pipeline.common.sanitize import literal_names
from pipeline.database import catalog, models
from pipeline.database.catalog import AttributeInfo, read_game
from pipeline.database.connection import open_project_db
from pipeline.database.store import canonical_json
from pipeline.engine import registry
from pipeline.engine.core import (
    CardRecord,
    Replay,
    ReplayError,
    Seats,
    State,
    card_digest,
    play_replay,
)
from pipeline.engine.plugin import Engine
from pipeline.sources.load import LoadedGame

from .examples import ExampleResult, example_names, examples_dir, run_examples


def engine_input(project: Project, slug: str) -> tuple[Seats, list[CardRecord]]:
    """What a game's engine is built from, read from the project's database: game.yaml's
    player counts and the game's distinct cards, in number order."""
    with open_project_db(project) as db:
        game = read_game(db, slug)
    return Seats(game.players_min, game.players_max), _records(game)


def file_records(project: Project, slug: str, path: Path, shown: str) -> list[CardRecord]:
    """The game's distinct cards as a whole other cards.yaml at `path` gives them (a variant
    for `cartiera balance`): the game is loaded with it, in a scratch copy of its folder,
    and checked as `validate` checks it (SourceErrors naming `shown`, the path as the user
    wrote it); then written to a scratch database and read back, as an engine always gets
    its cards."""
    from pipeline.database.store import write_sqlite
    from pipeline.sources.load import load_game_with_cards

    loaded = load_game_with_cards(project, slug, path.read_bytes())
    errors = [
        dataclasses.replace(p, file=shown) if p.file == f"games/{slug}/cards.yaml" else p
        for p in loaded.problems
        if p.is_error
    ]
    if errors:
        raise SourceErrors(errors)
    with tempfile.TemporaryDirectory(prefix="cartiera-variant-") as tmp:
        database = Path(tmp) / "variant.db"
        write_sqlite(database, [loaded])
        engine = create_engine(f"sqlite:///{database}")
        try:
            return _records(read_game(engine, slug))
        finally:
            engine.dispose()


def _records(game: catalog.GameInfo) -> list[CardRecord]:
    """A game's distinct cards as the engines take them, in number order."""
    return [
        CardRecord(
            c.number,
            c.code,
            c.name,
            c.kind,
            c.copies,
            c.deck,
            c.status,
            c.attributes,
            c.texts,
            c.data,
        )
        for c in sorted(game.cards, key=lambda c: c.number)
    ]


def declared_attributes(project: Project, slug: str) -> dict[str, AttributeInfo]:
    """The attributes game.yaml declares for the game's cards (type, range, values), by
    key, from the project's database."""
    with open_project_db(project) as db:
        return {attribute.key: attribute for attribute in read_game(db, slug).attributes}


def game_name(project: Project, slug: str) -> str:
    """The game's name as game.yaml gives it ("Samurai Sword"), from the project's database:
    what the reports of its games are titled with."""
    with open_project_db(project) as db:
        return catalog.game_name(db, slug)


def card_records(project: Project, slug: str) -> list[CardRecord]:
    """The game's distinct cards from the project's database, in number order."""
    return engine_input(project, slug)[1]


def load_rules(project: Project, slug: str) -> Engine[Any]:
    """A game's rules with its cards read from the project's database (never the YAML)."""
    if slug not in registry.engine_slugs():
        known = ", ".join(registry.engine_slugs()) or "none"
        raise SourceError(
            Problem("error", f"no rules engine for the game '{slug}'", hint=f"engines: {known}")
        )
    return _rules(slug, *engine_input(project, slug))


def _rules(slug: str, seats: Seats, records: list[CardRecord]) -> Engine[Any]:
    return registry.build_rules(slug, seats, records, card_digest(records))


def played_examples(project: Project, db_project: Project, slug: str) -> list[ExampleResult]:
    """The game's worked examples played with the cards of `db_project`'s database.

    What they show depends only on those cards, the scenario files and the code, so the
    results are kept in the cache under the digest of the three: a `db build` after an
    edit plays again only the examples of the game it touched (playing them is half of
    the time it takes to write cards.db). A scenario that cannot be read raises, and is
    never kept."""
    seats, records = engine_input(db_project, slug)
    names = example_names(project, slug)
    folder = examples_dir(project, slug)
    digest = hashlib.sha256(f"{code_digest()}|{slug}|{seats}".encode())
    digest.update(canonical_json([asdict(record) for record in records]).encode())
    try:
        for name in names:
            digest.update(f"|{name}|".encode())
            digest.update((folder / f"{name}.yaml").read_bytes())
    except OSError:  # unreadable: the runner says so at the file, as one problem
        return run_examples(project, slug, _rules(slug, seats, records))
    entry = project.cache_dir / "examples" / f"{digest.hexdigest()}.json"
    with contextlib.suppress(OSError, ValueError, TypeError):
        return [
            ExampleResult(**{**kept, "failed": [tuple(pair) for pair in kept["failed"]]})
            for kept in json.loads(entry.read_text(encoding="utf-8"))
        ]
    results = run_examples(project, slug, _rules(slug, seats, records))
    kept = json.dumps([asdict(result) for result in results], ensure_ascii=False)
    atomic_write(entry, kept.encode())
    return results


@contextmanager
def replay_problems(project: Project, path: Path) -> Iterator[None]:
    """One SourceError line for a replay file that cannot be read, or whose cards or log
    disagree with the database (for `replay`, and `replay --html` in pipeline.publish.board)."""
    where = project.rel(path)
    try:
        yield
    except OSError as exc:
        message = f"cannot read the replay: {exc.strerror}"
        raise SourceError(Problem("error", message, file=where)) from exc
    except (ReplayError, UnicodeDecodeError) as exc:
        hint = "record the game again with the current cards"
        raise SourceError(Problem("error", str(exc), file=where, hint=hint)) from exc


def replay_file(project: Project, path: Path) -> tuple[State, list[str]]:
    """Play a saved replay again and narrate it in Italian; one SourceError line when the
    file is not a replay, or when its cards or its log disagree with the database."""
    with replay_problems(project, path):
        replay = Replay.from_json(path.read_text(encoding="utf-8"))
        rules = load_rules(project, replay.slug)
        state = play_replay(rules, replay)
    return state, rules.narrate(state.log, state.num_players)


def store_examples(db_url: str, project: Project, games: Sequence[LoadedGame]) -> list[str]:
    """Play every game's worked examples against the database just written and store those
    that hold. One that no longer holds (a designer changed a card it relies on) is left out
    and reported, so the rulebook and the site never narrate something false."""
    scratch = Project(root=project.root, db_url=db_url)
    db = create_engine(db_url)
    left_out = []
    try:
        with Session(db) as session:
            ids = {g.slug: g.id or 0 for g in session.exec(select(models.Game))}
            next_id = 1
            for loaded in games:
                slug = loaded.slug
                # examples first: a game without any (a designer's new one) imports no engine
                if not example_names(project, slug) or slug not in registry.engine_slugs():
                    continue
                results = played_examples(project, scratch, slug)
                for pos, result in enumerate(results):
                    if not result.passed:
                        left_out.append(
                            f"games/{slug}/examples/{result.name}.yaml: warning: the example "
                            f"no longer holds ({result.failures[0]}) and was left out (fix: "
                            f"run `cartiera example {slug} {result.name}`)"
                        )
                        continue
                    session.add(
                        models.Example(
                            id=next_id,
                            game_id=ids[slug],
                            code=result.name,
                            title=result.title,
                            clauses=canonical_json(result.clauses),
                            narration_md=literal_names(result.body, (c.name for c in loaded.cards)),
                            scenario=canonical_json(result.narration),
                            position=pos,
                        )
                    )
                    next_id += 1
            session.commit()
    finally:
        db.dispose()
    return left_out


DB_STAGES = (store_examples,)
"""What `db build` runs on the new database before it replaces the old one."""
