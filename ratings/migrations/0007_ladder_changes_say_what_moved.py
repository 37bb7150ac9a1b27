"""Each row of ``LadderChange`` says what moved when a rating only moved: the player, the value
before and after (a rated match, an admin's edit of the value). Every other write (a rating
inserted or deleted, moved to another game, renamed, given to another player) still adds a row,
without a player: a reader cannot tell what it changed. A page kept under an earlier generation
may then be carried forward to a later one by the ratings that moved since
(``ladder.carried_page``)."""

from django.db import migrations, models

#: The row of an update (``OLD``/``NEW`` in the trigger): the player only when the rating kept
#: its game, its player and its name (``IS`` compares NULLs too, in both databases).
UPDATE_COLUMNS = (
    "OLD.game, 1, CASE WHEN NEW.game IS NOT DISTINCT FROM OLD.game"
    " AND NEW.user_id IS NOT DISTINCT FROM OLD.user_id"
    " AND NEW.name IS NOT DISTINCT FROM OLD.name THEN OLD.user_id END, OLD.value, NEW.value"
)
SQLITE_UPDATE_COLUMNS = UPDATE_COLUMNS.replace("IS NOT DISTINCT FROM", "IS")
INSERT = "INSERT INTO ratings_ladderchange (game, changes, user_id, value_before, value_after)"

SQLITE_FORWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_changed_update;",
    "CREATE TRIGGER ratings_rating_changed_update AFTER UPDATE ON ratings_rating BEGIN "
    f"{INSERT} SELECT {SQLITE_UPDATE_COLUMNS};"
    " INSERT INTO ratings_ladderchange (game, changes) SELECT NEW.game, 1"
    " WHERE NEW.game IS NOT OLD.game; END;",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_changed_update;",
    "CREATE TRIGGER ratings_rating_changed_update AFTER UPDATE ON ratings_rating BEGIN "
    "INSERT INTO ratings_ladderchange (game, changes) VALUES (OLD.game, 1);"
    " INSERT INTO ratings_ladderchange (game, changes) SELECT NEW.game, 1"
    " WHERE NEW.game IS NOT OLD.game; END;",
]


def _postgres_function(says_what_moved: bool) -> str:
    update = (
        f"{INSERT} VALUES ({UPDATE_COLUMNS});"
        if says_what_moved
        else "INSERT INTO ratings_ladderchange (game, changes) VALUES (OLD.game, 1);"
    )
    return f"""
    CREATE OR REPLACE FUNCTION ratings_rating_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'UPDATE' THEN
            {update}
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO ratings_ladderchange (game, changes) VALUES (OLD.game, 1);
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.game IS DISTINCT FROM OLD.game) THEN
            INSERT INTO ratings_ladderchange (game, changes) VALUES (NEW.game, 1);
        END IF;
        RETURN NULL;
    END $$;
    """


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor) -> None:
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("ratings", "0006_trigram_index_without_pending_list")]

    operations = [
        migrations.AddField(
            model_name="ladderchange", name="user_id", field=models.IntegerField(null=True)
        ),
        migrations.AddField(
            model_name="ladderchange", name="value_before", field=models.FloatField(null=True)
        ),
        migrations.AddField(
            model_name="ladderchange", name="value_after", field=models.FloatField(null=True)
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": [_postgres_function(True)]}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": [_postgres_function(False)]}),
        ),
    ]
