"""Ladder changes: database triggers add a row to ``LadderChange`` on every write of a rating, so
that the ladder's generation (the sum of a game's rows and their highest id) names what its pages
show, and pages may be kept under it."""

from django.db import migrations, models

#: The ratings written before the triggers existed, counted once per game.
FIRST_ROWS = (
    "INSERT INTO ratings_ladderchange (game, changes) "
    "SELECT game, COUNT(*) FROM ratings_rating GROUP BY game;"
)


def _row(prefix: str) -> str:
    return f"INSERT INTO ratings_ladderchange (game, changes) VALUES ({prefix}.game, 1);"


SQLITE_FORWARD = [
    FIRST_ROWS,
    "CREATE TRIGGER ratings_rating_changed_insert AFTER INSERT ON ratings_rating BEGIN "
    + _row("NEW")
    + " END;",
    "CREATE TRIGGER ratings_rating_changed_delete AFTER DELETE ON ratings_rating BEGIN "
    + _row("OLD")
    + " END;",
    "CREATE TRIGGER ratings_rating_changed_update AFTER UPDATE ON ratings_rating BEGIN "
    + _row("OLD")
    + " INSERT INTO ratings_ladderchange (game, changes) SELECT NEW.game, 1"
    " WHERE NEW.game IS NOT OLD.game; END;",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_changed_insert;",
    "DROP TRIGGER IF EXISTS ratings_rating_changed_delete;",
    "DROP TRIGGER IF EXISTS ratings_rating_changed_update;",
]
POSTGRES_FORWARD = [
    FIRST_ROWS,
    """
    CREATE FUNCTION ratings_rating_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            """
    + _row("OLD")
    + """
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.game IS DISTINCT FROM OLD.game) THEN
            """
    + _row("NEW")
    + """
        END IF;
        RETURN NULL;
    END $$;
    """,
    "CREATE TRIGGER ratings_rating_changed AFTER INSERT OR UPDATE OR DELETE ON ratings_rating "
    "FOR EACH ROW EXECUTE FUNCTION ratings_rating_changed();",
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_changed ON ratings_rating;",
    "DROP FUNCTION IF EXISTS ratings_rating_changed();",
]


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor) -> None:
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("ratings", "0003_ladder_buckets_and_names")]

    operations = [
        migrations.CreateModel(
            name="LadderChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.CharField(max_length=40)),
                ("changes", models.IntegerField()),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["game", "id"], include=("changes",), name="ladder_change_idx"
                    )
                ],
            },
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRES_FORWARD}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRES_BACKWARD}),
        ),
    ]
