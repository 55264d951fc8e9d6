"""Write tests/data/pre_migrations_db.json: a database as Arena made it before migrations.

Run it with the code of commit df824f7 (the last one without migrations), e.g.::

    mkdir /tmp/old && git archive df824f7 | tar -x -C /tmp/old
    cd /tmp/old && /path/to/.venv/bin/python /path/to/tests/data/make_pre_migrations_db.py OUT.json

It plays a small real tournament with the old ``arena`` (three Python sample bots,
table sizes 2 and 3, unsandboxed), saves the leaderboard's ratings, removes one bot,
then writes the DDL that the old ``create_all`` emits for SQLite and for PostgreSQL
and every row of every table (as the old models read them), so that
tests/test_migrations.py can rebuild that database on either backend.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.schema import CreateIndex, CreateTable
from sqlmodel import Session, SQLModel, select

import leaderboard.models as models
from leaderboard.store import Store


def arena(*args: str) -> None:
    subprocess.run([sys.executable, "-c", "from arena.cli.main import main; raise SystemExit(main())", *args],
                   check=True, stdout=subprocess.DEVNULL)


def value(v: object) -> object:
    return {"datetime": v.isoformat()} if isinstance(v, datetime) else v


def main(out: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="arena-old-"))
    db = f"sqlite:///{folder}/arena.sqlite"
    bots = [f"sample_bots/python/{b}/bot.toml" for b in ("random_bot", "greedy_bot", "investor_bot")]
    arena("tournament", "run", *[x for b in bots for x in ("--bot", b)], "--players", "2,3", "--rounds", "1",
          "--isolation", "none", "--seed", "7", "--quiet", "--db", db, "--logs", str(folder / "logs"))
    arena("leaderboard", "--db", db)
    arena("bot", "remove", "investor-bot", "--db", db)
    tables = list(SQLModel.metadata.sorted_tables)
    ddl = {}
    for name, dialect in (("sqlite", sqlite.dialect()), ("postgresql", postgresql.dialect())):
        statements = []
        for table in tables:
            statements.append(str(CreateTable(table).compile(dialect=dialect)).strip())
            statements += [str(CreateIndex(index).compile(dialect=dialect)).strip() for index in table.indexes]
        ddl[name] = statements
    data = {}
    with Store.open(db) as store, Session(store._engine) as session:
        for model in (models.Bot, models.Tournament, models.Match, models.Seat, models.RatingSnapshot,
                      models.RatingHistory):
            columns = list(model.__table__.columns.keys())
            rows = session.exec(select(model)).all()
            data[model.__tablename__] = {"columns": columns,
                                         "rows": [[value(getattr(r, c)) for c in columns] for r in rows]}
    Path(out).write_text(json.dumps({"made_by": "df824f7", "ddl": ddl, "tables": data}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
