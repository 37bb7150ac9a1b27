"""A rating deleted when its game has no bucket rows left adds no row of -1.

Its bucket rows can only be gone while the rating still exists when something emptied the
bucket table under the ratings: SQLite's flush between tests deletes the tables one by one, the
buckets first, and the ratings' triggers then left rows of -1 for the next test to meet. In a
consistent ladder a rating's bucket always has a row (its sum is at least the rating's 1), so
the guard changes nothing else."""

from django.db import migrations

SQLITE_FLOOR = "(CAST({v} AS INTEGER) - ({v} < CAST({v} AS INTEGER)))"
OLD_BUCKET = SQLITE_FLOOR.format(v="OLD.value")
DELETE_ROW = (
    "INSERT INTO ratings_ladderbucket (game, bucket, players) "
    f"VALUES (OLD.game, {OLD_BUCKET}, -1);"
)
SQLITE_FORWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_bucket_delete;",
    "CREATE TRIGGER ratings_rating_bucket_delete AFTER DELETE ON ratings_rating "
    "WHEN EXISTS (SELECT 1 FROM ratings_ladderbucket "
    f"WHERE game = OLD.game AND bucket = {OLD_BUCKET}) BEGIN " + DELETE_ROW + " END;",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_bucket_delete;",
    "CREATE TRIGGER ratings_rating_bucket_delete AFTER DELETE ON ratings_rating BEGIN "
    + DELETE_ROW
    + " END;",
]


def _postgres_function(guarded: bool) -> str:
    old_row = "INSERT INTO ratings_ladderbucket (game, bucket, players) VALUES (OLD.game, {}, -1);"
    guard = (
        " AND (TG_OP <> 'DELETE' OR EXISTS (SELECT 1 FROM ratings_ladderbucket"
        " WHERE game = OLD.game AND bucket = floor(OLD.value)::integer))"
        if guarded
        else ""
    )
    return f"""
    CREATE OR REPLACE FUNCTION ratings_rating_bucket() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT'{guard} THEN
            {old_row.format("floor(OLD.value)::integer")}
        END IF;
        IF TG_OP <> 'DELETE' THEN
            INSERT INTO ratings_ladderbucket (game, bucket, players)
            VALUES (NEW.game, floor(NEW.value)::integer, 1);
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
    dependencies = [("ratings", "0004_ladder_changes")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": [_postgres_function(True)]}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": [_postgres_function(False)]}),
        ),
    ]
