"""The ladder's roster: database triggers add a row to ``LadderRoster`` whenever a write changes
who is on a game's ladder or under what name (a rating inserted or deleted, its player renamed,
its game changed), so that a search's matching players may be kept across rating changes, which
do not change who matches a name."""

from django.db import migrations, models

#: The ratings written before the triggers existed, counted once per game.
FIRST_ROWS = (
    "INSERT INTO ratings_ladderroster (game, changes) "
    "SELECT game, COUNT(*) FROM ratings_rating GROUP BY game;"
)
#: An update that changes neither the game, the name nor the player (a rated match) is no
#: change to the roster.
MOVED = (
    "OLD.game IS DISTINCT FROM NEW.game OR OLD.name IS DISTINCT FROM NEW.name"
    " OR OLD.user_id IS DISTINCT FROM NEW.user_id"
)


def _row(prefix: str) -> str:
    return f"INSERT INTO ratings_ladderroster (game, changes) VALUES ({prefix}.game, 1);"


SQLITE_FORWARD = [
    FIRST_ROWS,
    "CREATE TRIGGER ratings_rating_roster_insert AFTER INSERT ON ratings_rating BEGIN "
    + _row("NEW")
    + " END;",
    "CREATE TRIGGER ratings_rating_roster_delete AFTER DELETE ON ratings_rating BEGIN "
    + _row("OLD")
    + " END;",
    "CREATE TRIGGER ratings_rating_roster_update AFTER UPDATE ON ratings_rating WHEN "
    + MOVED.replace("IS DISTINCT FROM", "IS NOT")
    + " BEGIN "
    + _row("OLD")
    + " INSERT INTO ratings_ladderroster (game, changes) SELECT NEW.game, 1"
    " WHERE NEW.game IS NOT OLD.game; END;",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_roster_insert;",
    "DROP TRIGGER IF EXISTS ratings_rating_roster_delete;",
    "DROP TRIGGER IF EXISTS ratings_rating_roster_update;",
]
POSTGRES_FORWARD = [
    FIRST_ROWS,
    """
    CREATE FUNCTION ratings_rating_roster() RETURNS trigger LANGUAGE plpgsql AS $$
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
    "CREATE TRIGGER ratings_rating_roster_insert_delete AFTER INSERT OR DELETE ON ratings_rating"
    " FOR EACH ROW EXECUTE FUNCTION ratings_rating_roster();",
    "CREATE TRIGGER ratings_rating_roster_update AFTER UPDATE ON ratings_rating"
    f" FOR EACH ROW WHEN ({MOVED}) EXECUTE FUNCTION ratings_rating_roster();",
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_roster_insert_delete ON ratings_rating;",
    "DROP TRIGGER IF EXISTS ratings_rating_roster_update ON ratings_rating;",
    "DROP FUNCTION IF EXISTS ratings_rating_roster();",
]


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor) -> None:
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("ratings", "0006_trigram_index_without_pending_list")]

    operations = [
        migrations.CreateModel(
            name="LadderRoster",
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
                        fields=["game", "id"], include=("changes",), name="ladder_roster_idx"
                    )
                ],
            },
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRES_FORWARD}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRES_BACKWARD}),
        ),
    ]
